import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog } from '../../src/core/log.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { CorruptPackError } from '../../src/remote/errors.ts';
import { chunkSizeBound, fetchObjects } from '../../src/remote/fetch.ts';
import { pushRefs } from '../../src/remote/push.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';
import { commitFile, gitIn, sourceAndTarget, withFixture } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const settings = { atomic: false, dryRun: false, progress: false, leases: new Map() };

async function setup(maxBlobSize?: number) {
  const dir = tempDir('fetch-test-');
  const env = hermeticGitEnv(dir.path);
  const { source, target } = sourceAndTarget(dir.path, env);
  const ledger = new MemoryLedger(OWNER);
  const blobStore = new MemoryBlobStore(maxBlobSize);
  const { id } = await ledger.createRepository('app');
  const pushDeps = { ledger, blobStore, local: new NativeGitRepository(join(source, '.git'), env), log: silentLog };
  const local = new NativeGitRepository(join(target, '.git'), env);
  const fetchDeps = { ledger, blobStore, local, log: silentLog };
  const pushMain = () => pushRefs(pushDeps, id, [{ src: 'refs/heads/main', dst: 'refs/heads/main', force: false }], settings);
  return { dir, env, source, target, ledger, blobStore, id, local, fetchDeps, pushMain };
}

/** A test against fresh source and target repositories and a ledger. */
const inRepositories = (test: (t: Awaited<ReturnType<typeof setup>>) => Promise<void>, maxBlobSize?: number) => withFixture(() => setup(maxBlobSize), test);

const fetch = suite('fetchObjects');

fetch('applies every pack in push order (thin packs included), then a no-op fetch is one chain read and no blob read', inRepositories(async (t) => {
  for (let round = 0; round < 3; round++) {
    commitFile(t.source, t.env, 'big.txt', `line of text ${round}\n`.repeat(200 + round));
    await t.pushMain();
  }
  const head = gitIn(t.source, t.env, 'rev-parse', 'HEAD');
  await fetchObjects(t.fetchDeps, t.id, [head], false);
  assert.is(gitIn(t.target, t.env, 'cat-file', '-t', head), 'commit');
  gitIn(t.target, t.env, 'update-ref', 'refs/heads/main', head);
  gitIn(t.target, t.env, 'fsck', '--strict');
  assert.is(await t.local.readAppliedPacks(t.id), 3);

  t.ledger.calls.length = 0;
  const reads = t.blobStore.reads;
  await fetchObjects(t.fetchDeps, t.id, [head], false);
  assert.equal(t.ledger.calls, ['getRepository']);
  assert.is(t.blobStore.reads, reads);
}, 700));

fetch('fetches only the packs pushed since the last fetch', inRepositories(async (t) => {
  commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  await fetchObjects(t.fetchDeps, t.id, [gitIn(t.source, t.env, 'rev-parse', 'HEAD')], false);
  const next = commitFile(t.source, t.env, 'b.txt', 'b\n');
  await t.pushMain();
  const reads = t.blobStore.reads;
  await fetchObjects(t.fetchDeps, t.id, [next], false);
  assert.is(t.blobStore.reads - reads, 1);
  assert.is(await t.local.readAppliedPacks(t.id), 2);
}));

fetch('a pack whose bytes do not match the chain fails the fetch and writes nothing', inRepositories(async (t) => {
  const head = commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  const [blobId] = t.ledger.packs(t.id)[0]!.chunks;
  const bytes = t.blobStore.blobs.get(blobId)!;
  bytes[bytes.length - 1] ^= 0xff;
  try {
    await fetchObjects(t.fetchDeps, t.id, [head], false);
    assert.unreachable();
  } catch (e) {
    assert.instance(e, CorruptPackError);
    assert.match((e as Error).message, /pack 0 of repository .* is corrupt/);
  }
  assert.equal(readdirSync(join(t.target, '.git', 'objects', 'pack')), []);
  assert.is(await t.local.readAppliedPacks(t.id), 0);
  assert.equal(readdirSync(join(t.target, '.git', 'objects')).filter((n) => n.startsWith('incoming-')), []);
}));

fetch('re-applies from the first live pack when the record says more than the object database holds', inRepositories(async (t) => {
  const head = commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  await t.local.writeAppliedPacks(t.id, 1);
  await fetchObjects(t.fetchDeps, t.id, [head], false);
  assert.is(gitIn(t.target, t.env, 'cat-file', '-t', head), 'commit');
}));

fetch('takes the packs pushed after the pack count it was given, without reading earlier ones again', inRepositories(async (t) => {
  commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  const stale = await t.ledger.getRepository(t.id);
  await fetchObjects(t.fetchDeps, t.id, [gitIn(t.source, t.env, 'rev-parse', 'HEAD')], false, stale);
  const next = commitFile(t.source, t.env, 'b.txt', 'b\n');
  await t.pushMain();
  const reads = t.blobStore.reads;
  await fetchObjects(t.fetchDeps, t.id, [next], false, stale);
  assert.is(gitIn(t.target, t.env, 'cat-file', '-t', next), 'commit');
  assert.is(t.blobStore.reads - reads, 1);
}));

const bound = suite('chunkSizeBound');

bound('bounds every chunk of a pack from its size and chunk count alone', () => {
  const pack = (sizes: number[]) => ({ chunks: sizes.map((_, i) => `chunk${i}`), size: sizes.reduce((a, b) => a + b, 0), sha256: '' });
  for (const sizes of [[10, 10, 5], [10, 10, 10], [10, 1], [7], [4, 4, 4, 4, 3]]) {
    assert.ok(Math.max(...sizes) <= chunkSizeBound(pack(sizes)), `${sizes}`);
  }
  assert.is(chunkSizeBound(pack([10, 10, 10, 10, 10, 10, 10, 10, 4])), 11);
});

fetch('a clone asking for connectivity: links checked by index-pack; one pack is kept for git to unlock, several are not kept', inRepositories(async (t) => {
  commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  const first = gitIn(t.source, t.env, 'rev-parse', 'HEAD');
  const one = await fetchObjects(t.fetchDeps, t.id, [first], false, undefined, true);
  assert.is(one.connected, true);
  assert.ok(one.lock !== null && one.lock.endsWith('.keep') && existsSync(one.lock), 'the pack is kept until git unlocks it');

  commitFile(t.source, t.env, 'b.txt', 'b\n');
  await t.pushMain();
  commitFile(t.source, t.env, 'c.txt', 'c\n');
  await t.pushMain();
  const head = gitIn(t.source, t.env, 'rev-parse', 'HEAD');
  const two = await fetchObjects(t.fetchDeps, t.id, [head], false, undefined, true);
  assert.equal(two, { connected: true, lock: null });
  const keeps = readdirSync(join(t.target, '.git', 'objects', 'pack')).filter((name) => name.endsWith('.keep'));
  assert.equal(keeps, [one.lock!.split('/').at(-1)], 'only the first fetch\'s pack is still kept');
}));

fetch.run();
bound.run();
