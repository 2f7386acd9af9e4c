import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { commit, createWorld, refsOf } from '../../scripts/harness/world.ts';
import { inPushedRepository } from '../support/pushed-repository.ts';
import type { World } from '../../scripts/harness/world.ts';

const STACK_LINE = /^\s+at /m;

async function assertConsistentClone(w: World, url: string, dir: string, expected: string | null) {
  const clone = await w.run('.', ['clone', '-q', url, dir]);
  assert.is(clone.code, 0, clone.stderr);
  if (expected !== null) assert.is(await w.ok(dir, ['rev-parse', 'origin/main']), expected);
  await w.ok(dir, ['fsck', '--strict']);
}

const interrupted = suite('interrupted pushes');

for (const fault of ['during-upload', 'after-upload']) {
  interrupted(`a push killed ${fault.replace('-', ' ')} leaves the remote consistent, and the retry lands`, async () => {
    await inPushedRepository('crashy', { dir: 'src', file: 'a.txt', content: 'one\n' }, async ({ world: w, repo: src, url, first: first }) => {
      const second = await commit(w, src, 'b.txt', 'two\n'.repeat(1000));
      const killed = await w.run(src, ['push', 'walrus', 'main'], { env: { GIT_WALRUS_FAULT: fault } });
      assert.is.not(killed.code, 0);
      assert.is((await w.ok(src, ['ls-remote', 'walrus', 'refs/heads/main'])).split('\t')[0], first);
      await assertConsistentClone(w, url, 'before-retry', first);
      const retry = await w.run(src, ['push', 'walrus', 'main']);
      assert.is(retry.code, 0, retry.stderr);
      await assertConsistentClone(w, url, 'after-retry', second);
    });
  });
}

interrupted('a fetch killed mid-download leaves its partial pack only until the next fetch, which removes it', async () => {
  await inPushedRepository('killed-fetch', { dir: 'src', file: 'a.txt', content: 'one\n' }, async ({ world: w, repo: src, url }) => {
    await w.ok('.', ['clone', '-q', url, 'clone']);
    // Incompressible content, so the download and index-pack take long enough to be caught in the middle.
    writeFileSync(w.path(src, 'big.bin'), randomBytes(6 * 1024 * 1024));
    await w.ok(src, ['add', 'big.bin']);
    await w.ok(src, ['commit', '-q', '-m', 'big']);
    await w.ok(src, ['push', '-q', 'walrus', 'main']);

    const objects = w.path('clone', '.git', 'objects');
    const incoming = () => readdirSync(objects).filter((name) => name.startsWith('incoming-'));
    const fetch = spawn('git', ['fetch', '-q'], { cwd: w.path('clone'), env: w.env, stdio: 'ignore', detached: true });
    const exited = new Promise<void>((done) => fetch.once('close', () => done()));
    let caught = false;
    for (let waited = 0; waited < 60_000 && fetch.exitCode === null; waited += 5) {
      if (incoming().length > 0) { process.kill(-fetch.pid!, 'SIGKILL'); caught = true; break; }
      await new Promise((done) => setTimeout(done, 5));
    }
    await exited;
    assert.ok(caught, 'the fetch was killed while its pack was arriving');
    assert.ok(incoming().length > 0, 'the killed fetch left its partial pack behind');

    const again = await w.run('clone', ['fetch', '-q']);
    assert.is(again.code, 0, again.stderr);
    assert.equal(incoming(), [], 'the next fetch removed what the killed one left');
    assert.is(await w.ok('clone', ['rev-parse', 'origin/main']), await w.ok(src, ['rev-parse', 'HEAD']));
    await w.ok('clone', ['fsck', '--strict']);
  });
});

const tampered = suite('tampered packs');

tampered('a pack whose bytes do not match the chain fails clone and fetch clearly, refs untouched', async () => {
  await inPushedRepository('tampered', { dir: 'src', file: 'a.txt', content: 'one\n' }, async ({ world: w, repo: src, url }) => {
    await w.ok('.', ['clone', '-q', url, 'clone']);
    const refsBefore = await refsOf(w, 'clone');

    await commit(w, src, 'b.txt', 'two\n');
    const blobsDir = w.path('walrus-home', 'local', 'walrus', 'blobs');
    const before = new Set(readdirSync(blobsDir));
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    const [added] = readdirSync(blobsDir).filter((b) => !before.has(b));
    const bytes = readFileSync(`${blobsDir}/${added}`);
    bytes[bytes.length - 5] ^= 0xff;
    writeFileSync(`${blobsDir}/${added}`, bytes);

    const fetch = await w.run('clone', ['fetch']);
    assert.is.not(fetch.code, 0);
    assert.match(fetch.stderr, /fatal: pack 1 of repository 0x[0-9a-f]{64} is corrupt: its bytes hash to sha256 [0-9a-f]{64}, but the chain records [0-9a-f]{64}/);
    assert.not.match(fetch.stderr, STACK_LINE);
    assert.is(await refsOf(w, 'clone'), refsBefore);
    await w.ok('clone', ['fsck', '--strict']);

    const clone = await w.run('.', ['clone', url, 'fresh']);
    assert.is.not(clone.code, 0);
    assert.match(clone.stderr, /is corrupt/);
  });
});

const errors = suite('errors the user can act on');

errors('an unknown repository and a malformed URL give one clear line, no stack trace', async () => {
  const w = createWorld();
  try {
    const unknown = await w.run('.', ['clone', `walrus://0x${'7'.repeat(64)}`, 'x']);
    assert.is.not(unknown.code, 0);
    const ours = unknown.stderr.split('\n').filter((l) => l.startsWith('fatal:'));
    assert.ok(ours.length >= 1, unknown.stderr);
    assert.match(ours[0], /0x7{64}/);
    assert.not.match(unknown.stderr, STACK_LINE);

    const malformed = await w.run('.', ['clone', 'walrus://not-an-id', 'y']);
    assert.is.not(malformed.code, 0);
    assert.match(malformed.stderr, /fatal: malformed repository URL 'walrus:\/\/not-an-id'/);
    assert.not.match(malformed.stderr, STACK_LINE);

    const cli = await w.run('.', ['walrus', 'writers', 'list', 'walrus://nope']);
    assert.is(cli.code, 129);
    assert.match(cli.stderr, /^fatal: malformed repository URL/);
    assert.not.match(cli.stderr, STACK_LINE);
  } finally { w.remove(); }
});

interrupted.run();
tampered.run();
errors.run();
