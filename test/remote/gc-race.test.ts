/**
 * gc racing a push on the devnet (the chain engine runs the contract twin's `repack_at`): a push that lands exactly
 * between gc's last read and its repack transaction makes the repack change nothing, the push is kept, and a new clone
 * reads the repository at every point, also when gc stops right after the refused repack; when a push lands before
 * every repack, gc gives up after its rounds with GcRacedError, having changed nothing.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog } from '../../src/core/log.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { forwardingLedger } from '../../src/main/instrumented.ts';
import { fetchObjects } from '../../src/remote/fetch.ts';
import { PackMissingError } from '../../src/remote/errors.ts';
import { GcRacedError, collectGarbage } from '../../src/remote/gc.ts';
import { pushRefs } from '../../src/remote/push.ts';
import { StaleRepackError } from '../../src/sui/errors.ts';
import type { Ledger } from '../../src/ports/ledger.ts';
import { MemoryBlobStore } from '../support/memory-ports.ts';
import { commitFile, gitIn, initRepo } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';
import { inProcess, openWithTwoLedgers, type TwoLedgers } from '../sui/fronts.ts';

const settings = { atomic: false, dryRun: false, progress: false, leases: new Map() };

/** Big enough that git stores later versions as deltas, so a push's thin pack needs bases from earlier packs. */
const bigFile = (version: number) => Array.from({ length: 800 }, (_, i) => `line ${i} of a file git deltifies${i === 400 ? ` (version ${version})` : ''}\n`).join('');

interface World {
  chain: TwoLedgers;
  dir: { path: string; remove(): void };
  env: NodeJS.ProcessEnv;
  blobStore: MemoryBlobStore;
  id: string;
  /** The clone gc runs in, pushing as the owner. */
  source: string;
  deps(repo: string, ledger: Ledger): { ledger: Ledger; blobStore: MemoryBlobStore; local: NativeGitRepository; log: typeof silentLog };
  clones: number;
}

async function world(): Promise<World> {
  const chain = await openWithTwoLedgers(inProcess);
  const dir = tempDir('gc-race-');
  const env = hermeticGitEnv(dir.path);
  const source = join(dir.path, 'source');
  mkdirSync(source);
  initRepo(source, env);
  const blobStore = new MemoryBlobStore();
  const { id } = await chain.owner.createRepository('raced');
  await chain.owner.addWriter(id, chain.otherAddress);
  const w: World = {
    chain, dir, env, blobStore, id, source, clones: 0,
    deps: (repo, ledger) => ({ ledger, blobStore, local: new NativeGitRepository(join(repo, '.git'), env), log: silentLog }),
  };
  for (let i = 0; i < 3; i++) {
    commitFile(source, env, 'big.txt', bigFile(i));
    await pushRefs(w.deps(source, chain.owner), id, [{ src: 'refs/heads/main', dst: 'refs/heads/main', force: false }], settings);
  }
  return w;
}

const inWorld = (test: (w: World) => Promise<void>) => async () => {
  const w = await world();
  try {
    await test(w);
  } finally {
    w.dir.remove();
    await w.chain.front.close();
  }
};

/** Another writer's clone pushes a change of big.txt on top of main to `refs/heads/racer-<n>` (a thin pack). */
async function racingPush(w: World, n = 1): Promise<string> {
  const racer = join(w.dir.path, `racer-${n}`);
  mkdirSync(racer);
  initRepo(racer, w.env);
  const main = (await w.chain.other.listRefs(w.id)).get('refs/heads/main')!;
  const deps = w.deps(racer, w.chain.other);
  await fetchObjects(deps, w.id, [main], false);
  gitIn(racer, w.env, 'update-ref', 'refs/heads/main', main);
  gitIn(racer, w.env, 'checkout', '-q', '-f', 'main');
  const commit = commitFile(racer, w.env, 'big.txt', bigFile(100 + n), 'racer');
  const [result] = await pushRefs(deps, w.id, [{ src: 'refs/heads/main', dst: `refs/heads/racer-${n}`, force: false }], settings);
  assert.ok(result.ok, `the racing push landed: ${JSON.stringify(result)}`);
  return commit;
}

/**
 * A new clone of the repository as the chain holds it now: fetches every ref's objects from the live packs into an
 * empty repository, sets the refs and checks them with `git fsck --strict`. Returns the refs and the blobs it read.
 */
async function assertClonable(w: World, when: string): Promise<{ refs: Map<string, string>; reads: number }> {
  const fresh = join(w.dir.path, `clone-${++w.clones}`);
  mkdirSync(fresh);
  initRepo(fresh, w.env);
  const refs = await w.chain.owner.listRefs(w.id);
  const reads = w.blobStore.reads;
  try {
    await fetchObjects(w.deps(fresh, w.chain.owner), w.id, [...refs.values()], false);
  } catch (error) {
    assert.unreachable(`${when}: a new clone cannot read the repository: ${(error as Error).message}`);
  }
  for (const [name, value] of refs) gitIn(fresh, w.env, 'update-ref', name, value);
  gitIn(fresh, w.env, 'fsck', '--strict');
  return { refs, reads: w.blobStore.reads - reads };
}

/**
 * The owner's ledger for gc, with `onRepack(n)` run before its n-th repack transaction (n from 1) and `onRefused`
 * after a refused one.
 */
function hookedLedger(w: World, onRepack: (n: number) => Promise<void>, onRefused: (error: unknown) => Promise<void>): Ledger & { repacks: number } {
  let repacks = 0;
  const forwarded = forwardingLedger(w.chain.owner, async (name) => {
    if (name === 'repackAt') await onRepack(++repacks);
  });
  return {
    ...forwarded,
    get repacks() { return repacks; },
    repackAt: async (...args) => {
      try {
        return await forwarded.repackAt(...args);
      } catch (error) {
        await onRefused(error);
        throw error;
      }
    },
  };
}

const race = suite('gc racing a push on the devnet');

race('a push landing between gc\'s last read and its repack is kept; the repack changes nothing; a clone reads every state', inWorld(async (w) => {
  await assertClonable(w, 'before gc');
  let racer = '';
  const refused: unknown[] = [];
  const ledger = hookedLedger(w, async (n) => {
    if (n > 1) return;
    racer = await racingPush(w);
    await assertClonable(w, 'after the racing push, before the repack');
  }, async (error) => {
    refused.push(error);
    const info = await w.chain.owner.getRepository(w.id);
    assert.equal([info.seq, info.packCount, info.liveFrom], [4, 4, 0], 'the refused repack changed nothing');
    await assertClonable(w, 'right after the refused repack');
  });

  const result = await collectGarbage({ ...w.deps(w.source, ledger) }, w.id, false);
  assert.ok(result);
  assert.is(refused.length, 1);
  assert.instance(refused[0], StaleRepackError);
  assert.is((refused[0] as StaleRepackError).data.expectedSeq, 3);
  assert.is(ledger.repacks, 2, 'one refused repack, then the round that consolidates the push too');

  const info = await w.chain.owner.getRepository(w.id);
  // Packs: three pushes, the racer's, the consolidated one; seq: those four pushes and the one repack.
  assert.equal([info.packCount, info.liveFrom, info.seq, result.packIndex, result.seq, result.replaced], [5, 4, 5, 4, 5, 3]);
  const after = await assertClonable(w, 'after gc');
  assert.is(after.refs.get('refs/heads/racer-1'), racer, 'the racing push is kept');
  assert.is(after.reads, result.pack.chunks.length, 'a new clone reads the consolidated pack alone');
  const fresh = join(w.dir.path, `clone-${w.clones}`);
  assert.is(gitIn(fresh, w.env, 'show', `${racer}:big.txt`), bigFile(101).trimEnd());
}));

race('a gc stopped right after its repack lost the race leaves a repository a new clone reads; the next gc finishes', inWorld(async (w) => {
  class Stopped extends Error {}
  let racer = '';
  const ledger = hookedLedger(w, async (n) => {
    if (n === 1) racer = await racingPush(w);
  }, async (error) => {
    assert.instance(error, StaleRepackError);
    throw new Stopped('gc stopped right after the refused repack');
  });

  try {
    await collectGarbage(w.deps(w.source, ledger), w.id, false);
    assert.unreachable('gc went on after it was stopped');
  } catch (error) {
    assert.instance(error, Stopped);
  }
  const info = await w.chain.owner.getRepository(w.id);
  assert.equal([info.seq, info.packCount, info.liveFrom], [4, 4, 0], 'only the racing push landed');
  const stopped = await assertClonable(w, 'after gc stopped');
  assert.is(stopped.refs.get('refs/heads/racer-1'), racer);

  const result = await collectGarbage(w.deps(w.source, w.chain.owner), w.id, false);
  assert.ok(result);
  assert.equal([result.packIndex, result.replaced], [4, 4]);
  const after = await assertClonable(w, 'after the next gc');
  assert.is(after.refs.get('refs/heads/racer-1'), racer);
  assert.is(after.reads, result.pack.chunks.length);
}));

race('a push before every repack: gc gives up with GcRacedError after its rounds, every push kept, nothing else changed', inWorld(async (w) => {
  const racers: string[] = [];
  const ledger = hookedLedger(w, async (n) => {
    racers.push(await racingPush(w, n));
  }, async (error) => {
    assert.instance(error, StaleRepackError);
  });
  try {
    await collectGarbage(w.deps(w.source, ledger), w.id, false);
    assert.unreachable('gc claimed success while every repack lost');
  } catch (error) {
    assert.instance(error, GcRacedError);
    assert.is((error as GcRacedError).data.rounds, 3);
  }
  const info = await w.chain.owner.getRepository(w.id);
  assert.equal([info.seq, info.packCount, info.liveFrom], [6, 6, 0], 'three pushes and three racing pushes; no repack');
  const { refs } = await assertClonable(w, 'after gc gave up');
  assert.equal(racers.map((_, i) => refs.get(`refs/heads/racer-${i + 1}`)), racers);
}));

/**
 * A fetch into a new clone whose first blob read is preceded by a gc that deletes the chunks of every pack it
 * replaced (what `git walrus gc` does with deletable packs, src/remote/reclaim.ts), and by `alsoLose` after it.
 */
async function fetchRacingGc(w: World, alsoLose: (consolidated: string[]) => string[] = () => []) {
  const fresh = join(w.dir.path, `clone-${++w.clones}`);
  mkdirSync(fresh);
  initRepo(fresh, w.env);
  const refs = await w.chain.owner.listRefs(w.id);
  const replaced = (await w.chain.owner.listPacks(w.id, 0)).flatMap((pack) => pack.chunks);
  let gc: Awaited<ReturnType<typeof collectGarbage>> = null;
  // One gc for all first reads: the fetch reads several chunks at once, and each would otherwise start its own.
  let gcRun: Promise<void> | undefined;
  const read: string[] = [];
  const blobStore = Object.create(w.blobStore) as MemoryBlobStore;
  blobStore.read = async (blobId) => {
    gcRun ??= (async () => {
      gc = await collectGarbage(w.deps(w.source, w.chain.owner), w.id, false);
      for (const gone of [...replaced, ...alsoLose(gc!.pack.chunks)]) w.blobStore.blobs.delete(gone);
    })();
    await gcRun;
    read.push(blobId);
    return w.blobStore.read(blobId);
  };
  const outcome = fetchObjects({ ...w.deps(fresh, w.chain.owner), blobStore }, w.id, [...refs.values()], false);
  return { fresh, refs, outcome, gc: () => gc, read, replaced };
}

race('a fetch that read the state before a gc deleted the packs it replaced reads the consolidated pack instead, by itself', inWorld(async (w) => {
  const { fresh, refs, outcome, gc, read, replaced } = await fetchRacingGc(w);
  await outcome;
  assert.ok(gc(), 'the gc ran between the fetch\'s state read and its first blob read');
  for (const [name, value] of refs) gitIn(fresh, w.env, 'update-ref', name, value);
  gitIn(fresh, w.env, 'fsck', '--strict');
  const consolidated = gc()!.pack.chunks;
  assert.equal(read.filter((id) => consolidated.includes(id)), consolidated, 'the consolidated pack, read once');
  const before = read.filter((id) => !consolidated.includes(id));
  assert.ok(before.length > 0 && before.every((id) => replaced.includes(id)), 'before it, only reads of deleted packs (the ones in flight)');
}));

race('when the consolidated pack is gone too, the fetch fails once, naming the pack', inWorld(async (w) => {
  const { outcome } = await fetchRacingGc(w, (consolidated) => consolidated);
  try {
    await outcome;
    assert.unreachable('fetched from packs that are gone');
  } catch (error) {
    assert.instance(error, PackMissingError);
    assert.is((error as PackMissingError).packIndex, 3, 'the consolidated pack');
    assert.match((error as Error).message, /^pack 3 of repository 0x[0-9a-f]+ cannot be read: blob \S+ not found$/);
  }
}));

race.run();
