import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { silentLog, streamLog } from '../../src/core/log.ts';
import { formatBytes } from '../../src/remote/progress.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { KeyFormatError } from '../../src/config/key-material.ts';
import { pushRefs } from '../../src/remote/push.ts';
import { readRemote } from '../../src/remote/remote-state.ts';
import type { PushSettings } from '../../src/remote/push.ts';
import type { PackEntry } from '../../src/ports/ledger.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';
import { commitFile, gitIn, initRepo, withFixture } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const plain: PushSettings = { atomic: false, dryRun: false, progress: false, leases: new Map() };

async function setup(maxBlobSize?: number) {
  const dir = tempDir('push-test-');
  const env = hermeticGitEnv(dir.path);
  const work = initRepo(dir.path, env);
  const ledger = new MemoryLedger(OWNER);
  const blobStore = new MemoryBlobStore(maxBlobSize);
  const { id } = await ledger.createRepository('app');
  const local = new NativeGitRepository(join(work, '.git'), env);
  const deps = { ledger, blobStore, local, log: silentLog };
  return { dir, env, work, ledger, blobStore, id, local, deps };
}

/** A test against a fresh repository and ledger. */
const inRepository = (test: (t: Awaited<ReturnType<typeof setup>>) => Promise<void>, maxBlobSize?: number) => withFixture(() => setup(maxBlobSize), test);

/** Push the local main to the remote main, as `git push walrus main` asks. */
const MAIN = [{ src: 'refs/heads/main', dst: 'refs/heads/main', force: false }];

/** Another writer moves the remote main while the next push is on its way (just before its transaction). */
function moveMainUnderNextPush(t: Awaited<ReturnType<typeof setup>>): void {
  t.ledger.beforePush = () => {
    t.ledger.beforePush = null;
    t.ledger.moveRefs(t.id, [['refs/heads/main', 'e'.repeat(40)]]);
  };
}

const MAIN_AND_OTHER = [...MAIN, { src: 'refs/heads/main', dst: 'refs/heads/other', force: false }];

const push = suite('pushRefs');

push('a first push stores one pack and sets the ref in one transaction', inRepository(async (t) => {
  const head = commitFile(t.work, t.env, 'a.txt', 'one\n');
  const results = await pushRefs(t.deps, t.id, MAIN, plain);
  assert.equal(results, [{ dst: 'refs/heads/main', ok: true }]);
  assert.equal(t.ledger.refsOf(t.id), new Map([['refs/heads/main', head]]));
  assert.is(t.blobStore.writes, 1);
  assert.is(t.ledger.calls.filter((c) => c === 'push').length, 1);
  const pack = t.ledger.packs(t.id)[0];
  assert.is(pack.chunks.length, 1);
  assert.is(pack.size, t.blobStore.blobs.get(pack.chunks[0])!.byteLength);
}));

push('frees the blob store\'s write resources after the upload and before the transaction', inRepository(async (t) => {
  const order: string[] = [];
  const calls = t.ledger.calls;
  t.blobStore.release = async () => { order.push(`release after ${t.blobStore.writes} write(s), ${calls.filter((c) => c === 'push').length} transaction(s)`); };
  commitFile(t.work, t.env, 'a.txt', 'one\n');
  await pushRefs(t.deps, t.id, MAIN, plain);
  assert.equal(order, ['release after 1 write(s), 0 transaction(s)']);
}));

push('splits a pack larger than the blob limit into chunks', inRepository(async (t) => {
  for (let i = 0; i < 5; i++) commitFile(t.work, t.env, `f${i}.txt`, `content ${i} `.repeat(50 + i));
  await pushRefs(t.deps, t.id, MAIN, plain);
  const pack = t.ledger.packs(t.id)[0];
  assert.ok(pack.chunks.length > 1);
  assert.ok([...t.blobStore.blobs.values()].every((b) => b.byteLength <= 300));
}, 300));

push('prepares the first transaction once the pack\'s size is known: its updates and a stand-in of the pack\'s shape', inRepository(async (t) => {
  for (let i = 0; i < 5; i++) commitFile(t.work, t.env, `f${i}.txt`, `content ${i} `.repeat(50 + i));
  const prepared: { updates: unknown; pack: PackEntry | null; pushes: number }[] = [];
  t.ledger.preparePush = (_id, updates, pack) => {
    prepared.push({ updates, pack, pushes: t.ledger.calls.filter((c) => c === 'push').length });
  };
  await pushRefs(t.deps, t.id, MAIN_AND_OTHER, plain);
  const landed = t.ledger.packs(t.id)[0]!;
  assert.is(prepared.length, 1);
  const [{ updates, pack, pushes }] = prepared;
  assert.is(pushes, 0);
  assert.equal(updates, [...t.ledger.refsOf(t.id)].map(([name, id]) => ({ name, old: null, new: id, force: false })));
  assert.equal({ chunks: pack!.chunks.length, size: pack!.size, sealedKey: pack!.sealedKey }, { chunks: landed.chunks.length, size: landed.size, sealedKey: undefined });
  assert.ok(landed.chunks.length > 1);
  assert.ok(pack!.chunks.every((id) => !landed.chunks.includes(id)), 'stand-in blob ids');
}, 300));

push('refuses non-fast-forwards and stale leases in git words; force and a matching lease land', inRepository(async (t) => {
  const first = commitFile(t.work, t.env, 'a.txt', '1\n');
  await pushRefs(t.deps, t.id, MAIN, plain);
  gitIn(t.work, t.env, 'commit', '-q', '--amend', '-m', 'rewritten');
  const rewritten = gitIn(t.work, t.env, 'rev-parse', 'HEAD');
  const req = MAIN;
  assert.equal(await pushRefs(t.deps, t.id, req, plain), [{ dst: 'refs/heads/main', ok: false, reason: 'non-fast forward' }]);
  const stale = await pushRefs(t.deps, t.id, req, { ...plain, leases: new Map([['refs/heads/main', 'f'.repeat(40)]]) });
  assert.equal(stale, [{ dst: 'refs/heads/main', ok: false, reason: 'stale info' }]);
  assert.equal(await pushRefs(t.deps, t.id, req, { ...plain, leases: new Map([['refs/heads/main', first]]) }), [{ dst: 'refs/heads/main', ok: true }]);
  assert.is(t.ledger.refsOf(t.id).get('refs/heads/main'), rewritten);
  assert.equal(await pushRefs(t.deps, t.id, req, plain), [{ dst: 'refs/heads/main', ok: false, reason: 'up to date' }]);
}));

push('a ref at a commit the remote already has needs no blob; a delete neither', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', '1\n');
  await pushRefs(t.deps, t.id, MAIN, plain);
  const writes = t.blobStore.writes;
  assert.equal(await pushRefs(t.deps, t.id, [{ src: 'refs/heads/main', dst: 'refs/heads/copy', force: false }], plain), [{ dst: 'refs/heads/copy', ok: true }]);
  assert.equal(await pushRefs(t.deps, t.id, [{ src: null, dst: 'refs/heads/copy', force: false }], plain), [{ dst: 'refs/heads/copy', ok: true }]);
  assert.is(t.blobStore.writes, writes);
  assert.is(t.ledger.packs(t.id).length, 1);
  assert.not.ok(t.ledger.refsOf(t.id).has('refs/heads/copy'));
}));

push('dry run: no upload and no transaction', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', '1\n');
  assert.equal(await pushRefs(t.deps, t.id, MAIN, { ...plain, dryRun: true }), [{ dst: 'refs/heads/main', ok: true }]);
  assert.is(t.blobStore.writes, 0);
  assert.is(t.ledger.calls.filter((c) => c === 'push').length, 0);
}));

push('when a ref moves under the push, that ref answers "fetch first" and the others land', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', '1\n');
  await pushRefs(t.deps, t.id, MAIN, plain);
  const next = commitFile(t.work, t.env, 'b.txt', '2\n');
  moveMainUnderNextPush(t);
  const results = await pushRefs(t.deps, t.id, MAIN_AND_OTHER, plain);
  assert.equal(results, [{ dst: 'refs/heads/main', ok: false, reason: 'fetch first' }, { dst: 'refs/heads/other', ok: true }]);
  assert.is(t.ledger.refsOf(t.id).get('refs/heads/other'), next);
}));

push('atomic: a ref that moved fails the whole batch', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', '1\n');
  await pushRefs(t.deps, t.id, MAIN, plain);
  commitFile(t.work, t.env, 'b.txt', '2\n');
  moveMainUnderNextPush(t);
  const results = await pushRefs(t.deps, t.id, MAIN_AND_OTHER, { ...plain, atomic: true });
  assert.equal(results, [{ dst: 'refs/heads/main', ok: false, reason: 'fetch first' }, { dst: 'refs/heads/other', ok: false, reason: 'atomic push failed' }]);
  assert.not.ok(t.ledger.refsOf(t.id).has('refs/heads/other'));
}));

push('a ref protected while the push was on its way is refused; the rest lands', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', '1\n');
  await pushRefs(t.deps, t.id, MAIN, plain);
  const writer = `0x${'3'.repeat(64)}`;
  await t.ledger.addWriter(t.id, writer);
  t.ledger.address = writer;
  gitIn(t.work, t.env, 'commit', '-q', '--amend', '-m', 'rewritten');
  t.ledger.beforePush = () => {
    t.ledger.beforePush = null;
    t.ledger.protectNow(t.id, 'refs/heads/main');
  };
  const results = await pushRefs(t.deps, t.id, [
    { src: 'refs/heads/main', dst: 'refs/heads/main', force: true },
    { src: 'refs/heads/main', dst: 'refs/heads/side', force: false },
  ], plain);
  assert.is(results[0].ok, false);
  assert.match((results[0] as { reason: string }).reason, new RegExp(`refs/heads/main is protected: only the owner ${OWNER}`));
  assert.equal(results[1], { dst: 'refs/heads/side', ok: true });
}));

push('a non-writer is refused with the owner named, before any upload', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', '1\n');
  t.ledger.address = `0x${'2'.repeat(64)}`;
  const [result] = await pushRefs(t.deps, t.id, MAIN, plain);
  assert.is(result.ok, false);
  assert.match((result as { reason: string }).reason, new RegExp(`not a writer.*${OWNER}`));
  assert.is(t.blobStore.writes, 0);
}));

push('a key that cannot be loaded fails the push with its typed error, before any upload', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', '1\n');
  t.ledger.signerAddress = async () => { throw new KeyFormatError('GIT_WALRUS_KEY', 'not a Sui private key'); };
  await pushRefs(t.deps, t.id, MAIN, plain).then(
    () => assert.unreachable('pushed without a signer'),
    (error) => assert.is(error.code, 'KEY_FORMAT'),
  );
  assert.is(t.blobStore.writes, 0);
  assert.is(t.ledger.calls.filter((c) => c === 'push').length, 0);
}));

/** `count` branches at the local main, pushed as `git push --mirror` asks (long names: a few hundred per transaction). */
function manyBranches(count: number) {
  return Array.from({ length: count }, (_, i) => ({ src: 'refs/heads/main', dst: `refs/heads/team/feature/${'x'.repeat(20)}-${String(i).padStart(4, '0')}`, force: false }));
}

push('a push of more refs than one transaction holds lands in several, the pack with the first', inRepository(async (t) => {
  const head = commitFile(t.work, t.env, 'a.txt', 'one\n');
  const requests = manyBranches(1200);
  const results = await pushRefs(t.deps, t.id, requests, plain);
  assert.ok(results.every((r) => r.ok));
  assert.is(results.length, 1200);
  const refs = t.ledger.refsOf(t.id);
  assert.is(refs.size, 1200);
  assert.ok([...refs.values()].every((id) => id === head));
  const transactions = t.ledger.calls.filter((c) => c === 'push').length;
  assert.ok(transactions >= 3, `${transactions} transactions`);
  assert.is(t.ledger.packs(t.id).length, 1);
  assert.is(t.blobStore.writes, 1);
  // Its transactions were the only changes: the refs are kept for the next list as after a push of one.
  t.ledger.calls.length = 0;
  const listed = await readRemote(t.ledger, t.id, t.local);
  assert.equal(t.ledger.calls, ['getRepository']);
  assert.equal(listed.refs, refs);
}));

push('keeps nothing when another writer pushed between two of its transactions', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', 'one\n');
  let pushes = 0;
  t.ledger.beforePush = () => {
    if (++pushes !== 2) return;
    t.ledger.moveRefs(t.id, [['refs/heads/elsewhere', 'e'.repeat(40)]]);
  };
  const results = await pushRefs(t.deps, t.id, manyBranches(1200), plain);
  assert.ok(results.every((r) => r.ok));
  t.ledger.beforePush = null;
  t.ledger.calls.length = 0;
  const listed = await readRemote(t.ledger, t.id, t.local);
  assert.equal(t.ledger.calls, ['getRepository', 'listRefs']);
  assert.is(listed.refs.get('refs/heads/elsewhere'), 'e'.repeat(40));
  assert.equal(listed.refs, t.ledger.refsOf(t.id));
}));

push('atomic over more than one transaction is refused before anything is uploaded, naming the limit', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', 'one\n');
  const results = await pushRefs(t.deps, t.id, manyBranches(1200), { ...plain, atomic: true });
  assert.ok(results.every((r) => !r.ok && /^atomic push failed: 1200 ref updates need \d transactions; Sui allows 16384 bytes per transaction argument \(max_pure_argument_size\)/.test(r.reason)));
  assert.is(t.blobStore.writes, 0);
  assert.is(t.ledger.calls.filter((c) => c === 'push').length, 0);
  assert.is(t.ledger.refsOf(t.id).size, 0);
}));

push('a later transaction that loses a compare-and-swap race reports its moved refs; earlier ones stay', inRepository(async (t) => {
  const head = commitFile(t.work, t.env, 'a.txt', 'one\n');
  const requests = manyBranches(1200);
  const raced = requests[1000].dst; // in the second or a later transaction
  let pushes = 0;
  t.ledger.beforePush = () => {
    if (++pushes === 2) t.ledger.moveRefs(t.id, [[raced, 'e'.repeat(40)]]);
  };
  const results = await pushRefs(t.deps, t.id, requests, plain);
  assert.equal(results.filter((r) => !r.ok), [{ dst: raced, ok: false, reason: 'fetch first' }]);
  const refs = t.ledger.refsOf(t.id);
  assert.is(refs.get(raced), 'e'.repeat(40));
  assert.is(refs.get(requests[0].dst), head);
  assert.is(refs.get(requests[1199].dst), head);
  assert.is(t.ledger.packs(t.id).length, 1);
}));

push('when the first transaction\'s refs all moved, the pack goes with the next one', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', 'one\n');
  const requests = manyBranches(1200);
  let pushes = 0;
  t.ledger.beforePush = () => {
    if (++pushes > 1) return;
    t.ledger.moveRefs(t.id, requests.slice(0, 700).map((r) => [r.dst, 'e'.repeat(40)]));
  };
  const results = await pushRefs(t.deps, t.id, requests, plain);
  const landed = results.filter((r) => r.ok).map((r) => r.dst);
  assert.ok(landed.length > 0 && landed.length < 1200);
  assert.is(t.ledger.packs(t.id).length, 1);
  const pushedWithPack = t.ledger.calls.filter((c) => c === 'push').length;
  assert.ok(pushedWithPack >= 3);
}));

push('at -v a push prints its storage cost: blobs, encoded size and end epoch as the store reports them', inRepository(async (t) => {
  for (let i = 0; i < 5; i++) commitFile(t.work, t.env, `f${i}.txt`, `content ${i} `.repeat(50 + i));
  const write = t.blobStore.write.bind(t.blobStore);
  t.blobStore.write = async (bytes: Uint8Array) => ({ ...(await write(bytes)), encodedSize: 66_034_000, endEpoch: 60 - t.blobStore.writes });
  const lines: string[] = [];
  await pushRefs({ ...t.deps, log: streamLog((text) => lines.push(text), 2) }, t.id, MAIN, plain);
  const chunks = t.ledger.packs(t.id)[0].chunks.length;
  assert.ok(chunks > 1);
  const storage = lines.find((line) => line.startsWith('Storage:'));
  assert.is(storage, `Storage: ${chunks} blob(s) of ${formatBytes(t.ledger.packs(t.id)[0].size)}, ${formatBytes(66_034_000 * chunks)} encoded on Walrus (what storage is paid for), stored until Walrus epoch ${60 - chunks}\n`);
}, 300));

push('keeps the refs it pushed (and deleted) for the next list, which then reads the repository object only', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', 'one\n');
  await pushRefs(t.deps, t.id, MAIN_AND_OTHER, plain);
  const head = commitFile(t.work, t.env, 'b.txt', 'two\n');
  await pushRefs(t.deps, t.id, [...MAIN, { src: null, dst: 'refs/heads/other', force: false }], plain);
  t.ledger.calls.length = 0;
  const listed = await readRemote(t.ledger, t.id, t.local);
  assert.equal(t.ledger.calls, ['getRepository']);
  assert.equal(listed.refs, new Map([['refs/heads/main', head]]));
  assert.equal(listed.refs, t.ledger.refsOf(t.id));
}));

push('keeps nothing when another writer pushed between its reads and its transaction: the next list reads the refs', inRepository(async (t) => {
  commitFile(t.work, t.env, 'a.txt', 'one\n');
  await pushRefs(t.deps, t.id, MAIN, plain);
  commitFile(t.work, t.env, 'b.txt', 'two\n');
  t.ledger.beforePush = () => {
    t.ledger.beforePush = null;
    t.ledger.moveRefs(t.id, [['refs/heads/other', 'e'.repeat(40)]]);
  };
  assert.equal(await pushRefs(t.deps, t.id, MAIN, plain), [{ dst: 'refs/heads/main', ok: true }]);
  t.ledger.calls.length = 0;
  const listed = await readRemote(t.ledger, t.id, t.local);
  assert.equal(t.ledger.calls, ['getRepository', 'listRefs']);
  assert.is(listed.refs.get('refs/heads/other'), 'e'.repeat(40));
  assert.equal(listed.refs, t.ledger.refsOf(t.id));
}));

push.run();
