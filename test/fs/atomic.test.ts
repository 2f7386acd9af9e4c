import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createFileExclusive, writeFileAtomic, withFileLock } from '../../src/fs/atomic.ts';

const atomic = suite('writeFileAtomic');

atomic('replaces content and leaves no temporary files', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'atomic-'));
  const file = join(dir, 'sub', 'state.json');
  await writeFileAtomic(file, 'one');
  await writeFileAtomic(file, 'two');
  assert.is(await readFile(file, 'utf8'), 'two');
  assert.equal(await readdir(join(dir, 'sub')), ['state.json']);
});

atomic.run();

const exclusive = suite('createFileExclusive');

exclusive('of racing creators exactly one wins; the file is whole, with its mode, and no temporary file is left', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'walrus-exclusive-'));
  const path = join(dir, 'keystore');
  const contents = Array.from({ length: 8 }, (_, i) => `writer ${i} `.repeat(1000));
  const created = await Promise.all(contents.map((text) => createFileExclusive(path, text, 0o600)));
  assert.is(created.filter(Boolean).length, 1);
  assert.is(await readFile(path, 'utf8'), contents[created.indexOf(true)]);
  assert.is((await stat(path)).mode & 0o777, 0o600);
  assert.equal(await readdir(dir), ['keystore']);
  assert.is(await createFileExclusive(path, 'later'), false);
  assert.is(await readFile(path, 'utf8'), contents[created.indexOf(true)]);
});

exclusive.run();

const lock = suite('withFileLock');

lock('serialises concurrent critical sections', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lock-'));
  const counter = join(dir, 'counter');
  await writeFile(counter, '0');
  const bump = () => withFileLock(join(dir, 'lock'), async () => {
    const value = Number(await readFile(counter, 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 1));
    await writeFile(counter, String(value + 1));
  });
  await Promise.all(Array.from({ length: 20 }, bump));
  assert.is(await readFile(counter, 'utf8'), '20');
});

lock('takes over a lock whose holder process has died', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lock-'));
  const child = spawn(process.execPath, ['-e', '']);
  const deadPid = child.pid;
  await new Promise((resolve) => child.on('exit', resolve));
  await writeFile(join(dir, 'lock'), String(deadPid));
  const result = await withFileLock(join(dir, 'lock'), async () => 'acquired', 2_000);
  assert.is(result, 'acquired');
});

lock('times out with a typed error while a live process holds the lock', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lock-'));
  await writeFile(join(dir, 'lock'), String(process.ppid));
  try {
    await withFileLock(join(dir, 'lock'), async () => 'never', 100);
    assert.unreachable('lock should time out');
  } catch (error) {
    assert.is((error as { code?: string }).code, 'LOCK_TIMEOUT');
  }
});

lock.run();
