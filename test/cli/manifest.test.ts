import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMemoryCli } from '../support/memory-cli.ts';
import { MemoryLedger } from '../support/memory-ports.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const workspace = { remoteUrl: async () => null };
const run = (args: string[]) => runMemoryCli({ ledger: new MemoryLedger(OWNER) }, workspace as never, args);

test('git walrus manifest: prints the settings, writes the plan and the termination message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-cli-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'a', walrus: { port: 3000, test: 'npm test' } }));
    writeFileSync(join(dir, 'package-lock.json'), '{}');
    const result = await run(['manifest', dir, '--plan', join(dir, 'plan'), '--termination-message', join(dir, 'report')]);
    assert.is(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout), { source: 'package.json', lockfile: true, port: 3000, test: 'npm test' });
    assert.is(readFileSync(join(dir, 'report'), 'utf8'), result.stdout);
    assert.match(readFileSync(join(dir, 'plan', 'build.sh'), 'utf8'), /^npm ci --ignore-scripts$/m, 'install scripts are held back unless the manifest allows them');
    assert.match(readFileSync(join(dir, 'plan', 'test.sh'), 'utf8'), /^npm test$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('git walrus manifest: a field it cannot use fails the command, naming it; no package.json is the defaults', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-cli-'));
  try {
    assert.equal(JSON.parse((await run(['manifest', dir])).stdout), { source: 'defaults', lockfile: false });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ walrus: { replicas: 'two' } }));
    const result = await run(['manifest', dir]);
    assert.is.not(result.code, 0);
    assert.match(result.stderr, /package\.json walrus\.replicas: expected a whole number from 1 to 1000, got "two"/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('git walrus manifest: a package.json linked out of the app\'s directory, not a file, or too large is refused unread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-cli-'));
  const refusal = async (expected: RegExp) => {
    const result = await run(['manifest', dir]);
    assert.is(result.code, 129, result.stderr);
    assert.is(result.stdout, '');
    assert.match(result.stderr, expected);
    assert.not.match(result.stderr, /root:|internal error/);
  };
  try {
    symlinkSync('/etc/passwd', join(dir, 'package.json'));
    await refusal(/the app's manifest: package\.json is a symbolic link to outside the app's directory; commit the file itself/);
    rmSync(join(dir, 'package.json'));
    symlinkSync('/dev/zero', join(dir, 'package.json'));
    await refusal(/package\.json is a symbolic link to outside the app's directory/);
    rmSync(join(dir, 'package.json'));
    mkdirSync(join(dir, 'package.json'));
    await refusal(/the app's manifest: package\.json is not a regular file; commit the file itself/);
    rmSync(join(dir, 'package.json'), { recursive: true });
    writeFileSync(join(dir, 'package.json'), `{"pad":"${'x'.repeat(1024 * 1024)}"}`);
    await refusal(/the app's manifest: package\.json takes 1048586 bytes; at most 1048576 are read/);
    // A link that stays inside the checkout is the checkout's own file.
    writeFileSync(join(dir, 'real.json'), JSON.stringify({ walrus: { port: 3000 } }));
    rmSync(join(dir, 'package.json'));
    symlinkSync('real.json', join(dir, 'package.json'));
    assert.equal(JSON.parse((await run(['manifest', dir])).stdout), { source: 'package.json', lockfile: false, port: 3000 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
