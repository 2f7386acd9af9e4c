import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog } from '../../src/core/log.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { fetchObjects, firstPackToApply } from '../../src/remote/fetch.ts';
import { collectGarbage } from '../../src/remote/gc.ts';
import { pushRefs } from '../../src/remote/push.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';
import { commitFile, gitIn, initRepo, withFixture } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const settings = { atomic: false, dryRun: false, progress: false, leases: new Map() };

async function setup() {
  const dir = tempDir('gc-test-');
  const env = hermeticGitEnv(dir.path);
  const repos = Object.fromEntries(['source', 'fresh', 'old'].map((name) => {
    const path = join(dir.path, name);
    mkdirSync(path);
    initRepo(path, env);
    return [name, path];
  })) as Record<'source' | 'fresh' | 'old', string>;
  const ledger = new MemoryLedger(OWNER);
  const blobStore = new MemoryBlobStore();
  const { id } = await ledger.createRepository('app');
  const deps = (repo: string) => ({ ledger, blobStore, local: new NativeGitRepository(join(repo, '.git'), env), log: silentLog });
  const push = (dst = 'refs/heads/main') => pushRefs(deps(repos.source), id, [{ src: 'refs/heads/main', dst, force: false }], settings);
  return { dir, env, repos, ledger, blobStore, id, deps, push };
}

const inRepositories = (test: (t: Awaited<ReturnType<typeof setup>>) => Promise<void>) => withFixture(setup, test);

/** `count` pushes of one small commit each. */
async function smallPushes(t: Awaited<ReturnType<typeof setup>>, count: number): Promise<string> {
  for (let i = 0; i < count; i++) {
    commitFile(t.repos.source, t.env, `f${i % 3}.txt`, `push ${i}\n`);
    await t.push();
  }
  return gitIn(t.repos.source, t.env, 'rev-parse', 'HEAD');
}

const gc = suite('collectGarbage');

gc('consolidates every live pack into one; a new clone reads only it; an existing clone skips it', inRepositories(async (t) => {
  const head = await smallPushes(t, 6);
  await fetchObjects(t.deps(t.repos.old), t.id, [head], false);
  const result = await collectGarbage(t.deps(t.repos.source), t.id, false);
  assert.ok(result);
  assert.equal([result.replaced, result.packIndex], [6, 6]);
  const info = await t.ledger.getRepository(t.id);
  assert.equal([info.packCount, info.liveFrom], [7, 6]);

  const reads = t.blobStore.reads;
  await fetchObjects(t.deps(t.repos.fresh), t.id, [head], false);
  assert.is(t.blobStore.reads - reads, 1, 'a new clone reads the one consolidated pack');
  gitIn(t.repos.fresh, t.env, 'update-ref', 'refs/heads/main', head);
  gitIn(t.repos.fresh, t.env, 'fsck', '--strict', '--no-dangling');

  // The existing clone applied the 6 packs the consolidated one replaces: its next fetch reads only the new push.
  commitFile(t.repos.source, t.env, 'new.txt', 'after gc\n');
  await t.push();
  const next = gitIn(t.repos.source, t.env, 'rev-parse', 'HEAD');
  const before = t.blobStore.reads;
  await fetchObjects(t.deps(t.repos.old), t.id, [next], false);
  assert.is(t.blobStore.reads - before, 1, 'only the pack of the push after the gc');
  assert.is(gitIn(t.repos.old, t.env, 'cat-file', '-t', next), 'commit');
}));

gc('a repository with one live pack has nothing to do', inRepositories(async (t) => {
  await smallPushes(t, 1);
  assert.is(await collectGarbage(t.deps(t.repos.source), t.id, false), null);
  assert.not.ok(t.ledger.calls.includes('repack'));
}));

gc('a push that lands just before the repack makes it change nothing; the next round consolidates the push too', inRepositories(async (t) => {
  await smallPushes(t, 3);
  const racer = join(t.dir.path, 'racer');
  mkdirSync(racer);
  initRepo(racer, t.env);
  const racedCommit = commitFile(racer, t.env, 'racer.txt', 'raced\n');
  t.ledger.beforeRepack = async () => {
    t.ledger.beforeRepack = null;
    await pushRefs({ ...t.deps(racer) }, t.id, [{ src: 'refs/heads/main', dst: 'refs/heads/racer', force: false }], settings);
  };
  const result = await collectGarbage(t.deps(t.repos.source), t.id, false);
  assert.ok(result);
  const info = await t.ledger.getRepository(t.id);
  // packs: 3 pushes, the racer's, the consolidated one (the first round's repack was refused and appended nothing).
  assert.equal([info.packCount, info.liveFrom, result.packIndex], [5, 4, 4]);
  assert.is(t.ledger.calls.filter((c) => c === 'repack').length, 2);
  assert.is((await t.ledger.listRefs(t.id)).get('refs/heads/racer'), racedCommit);
  // A new clone reads the last consolidated pack alone and has the racer's commit.
  const reads = t.blobStore.reads;
  await fetchObjects(t.deps(t.repos.fresh), t.id, [racedCommit, gitIn(t.repos.source, t.env, 'rev-parse', 'HEAD')], false);
  assert.is(t.blobStore.reads - reads, 1);
}));

gc('a push that lands while the pack is built restarts the round with its refs', inRepositories(async (t) => {
  await smallPushes(t, 2);
  let raced = false;
  const deps = t.deps(t.repos.source);
  const upload = deps.blobStore.write.bind(deps.blobStore);
  deps.blobStore.write = async (...args: Parameters<typeof upload>) => {
    if (!raced) {
      raced = true;
      commitFile(t.repos.source, t.env, 'during.txt', 'during gc\n');
      await t.push('refs/heads/during');
    }
    return upload(...args);
  };
  const result = await collectGarbage(deps, t.id, false);
  assert.ok(result);
  const info = await t.ledger.getRepository(t.id);
  assert.equal([info.packCount, info.liveFrom], [4, 3], 'the refused repack appended nothing');
  assert.ok((await t.ledger.listRefs(t.id)).has('refs/heads/during'));
  // The first round's repack is refused by its compare-and-swap (on Sui while estimating gas: no transaction, no gas).
  assert.is(t.ledger.calls.filter((c) => c === 'repack').length, 2);
}));

const first = suite('firstPackToApply');

first('a clone that applied everything before live_from skips the consolidated pack; one behind reads it', () => {
  assert.is(firstPackToApply(0, 0), 0);
  assert.is(firstPackToApply(4, 0), 4);
  assert.is(firstPackToApply(0, 6), 6);
  assert.is(firstPackToApply(3, 6), 6);
  assert.is(firstPackToApply(6, 6), 7);
  assert.is(firstPackToApply(8, 6), 8);
});

gc.run();
first.run();
