import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLog } from '../../../src/core/log.ts';
import { PackObjectReader } from '../../../src/git/pack-reader.ts';
import { requiredTargets, verifyRepository, type VerifyDeps } from '../../../src/remote/history/verify-repository.ts';
import type { Ledger } from '../../../src/ports/ledger.ts';
import { formatVerifyJson, formatVerifyText } from '../../../src/remote/history/format-verify.ts';
import { plainStyle } from '../../../src/remote/history/format-log.ts';
import { BOB, buildHistory, fakeBlobId, historyLedger, mapBlobStore, type History, type PushSpec } from './fixture.ts';
import { ScratchRepo } from './scratch-repo.ts';

// A real git history pushed through the contract model: fast-forwards, a topic branch, a forced update, a deletion
// and a tag, with thin packs as the helper makes them.
const repo = new ScratchRepo();
const lines = Array.from({ length: 500 }, (_, i) => `line ${i}: some text that deltas compress well`);
const c1 = repo.commit('first', { 'a.txt': lines.join('\n') });
lines[10] = 'changed in c2';
const c2 = repo.commit('second', { 'a.txt': lines.join('\n') });
repo.git(['checkout', '-q', '-b', 'topic', c1]);
const t1 = repo.commit('topic work', { 'b.txt': 'topic\n' });
repo.git(['checkout', '-q', 'main']);
repo.git(['reset', '-q', '--hard', c1]);
lines[20] = 'rewritten in c3';
const c3 = repo.commit('rewrite of second', { 'a.txt': lines.join('\n') });

const specs = (): PushSpec[] => [
  { updates: [{ name: 'refs/heads/main', old: null, new: c1, force: false }], chunks: [repo.pack([c1])] },
  { updates: [{ name: 'refs/heads/main', old: c1, new: c2, force: false }], chunks: [repo.pack([c2, `^${c1}`], { thin: true })] },
  { updates: [{ name: 'refs/heads/topic', old: null, new: t1, force: false }], chunks: [repo.pack([t1, `^${c2}`], { thin: true })] },
  { sender: BOB, updates: [{ name: 'refs/heads/main', old: c2, new: c3, force: true }], chunks: [repo.pack([c3, `^${c2}`, `^${t1}`], { thin: true })] },
  { updates: [{ name: 'refs/heads/topic', old: t1, new: null, force: false }] },
  { updates: [{ name: 'refs/tags/v1', old: null, new: c3, force: false }] },
];

function deps(history: History): VerifyDeps {
  return {
    ledger: historyLedger(history),
    blobStore: mapBlobStore(history.blobs),
    blobIdOf: fakeBlobId,
    openPackObjects: () => PackObjectReader.open(),
    log: silentLog,
  };
}

const VerifyRepository = suite('verifyRepository');

VerifyRepository('an untouched repository passes every check, deep included, and its rewrites are listed', async () => {
  const history = buildHistory(specs());
  const report = await verifyRepository(deps(history), history.repository.id, { deep: true });
  assert.equal(report.findings, []);
  assert.is(report.pushes, 6);
  assert.is(report.packsChecked, 4);
  assert.is(report.bytesChecked, history.packs.reduce((sum, pack) => sum + pack.size, 0));
  assert.is(report.recomputedLogHead, history.repository.logHead);
  assert.is(report.commitsChecked, 4, 'c1, c2, t1, c3: every commit a ref ever pointed to');
  assert.equal(report.rewrites?.map((r) => [r.seq, r.kind, r.ref, r.sender]), [
    [4, 'forced', 'refs/heads/main', BOB],
    [5, 'deleted', 'refs/heads/topic', history.events[4]!.sender],
  ]);
  const text = formatVerifyText(report, plainStyle);
  assert.ok(text.endsWith('verified: every check holds\n'));
  assert.ok(text.includes(`ok      push log: 6 push events replay to the on-chain log_head ${history.repository.logHead}\n`));
  assert.ok(text.includes(`        push 4  `) && text.includes(`  forced  refs/heads/main  ${c2.slice(0, 12)} → ${c3.slice(0, 12)}  by ${BOB}  tx `));
  assert.is(JSON.parse(formatVerifyJson(report)).ok, true);
});

VerifyRepository('without deep, no object store is needed and no history is reported', async () => {
  const history = buildHistory(specs());
  const report = await verifyRepository({ ...deps(history), openPackObjects: undefined }, history.repository.id);
  assert.equal(report.findings, []);
  assert.is(report.commitsChecked, undefined);
  assert.not.ok(formatVerifyText(report, plainStyle).includes('history'));
});

VerifyRepository('an expired pack blob fails the pack check and, deep, the commits only it held', async () => {
  const history = buildHistory(specs());
  const lost = history.packs[1]!.chunks[0]!;
  history.blobs.delete(lost);
  const report = await verifyRepository(deps(history), history.repository.id, { deep: true });
  assert.equal(report.findings.map((f) => [f.code, f.seq]), [['BLOB_UNAVAILABLE', 2], ['COMMIT_MISSING', 2]]);
  assert.is(report.findings[1]!.message, `push 2: refs/heads/main was set to ${c2}, which is in none of the live packs`);
  const text = formatVerifyText(report, plainStyle);
  assert.ok(text.includes(`FAILED  packs: 1 problem\n        push 2, pack #1, blob ${lost}: Walrus blob ${lost} is not available`));
  assert.ok(text.includes('FAILED  history: 1 problem\n'));
  assert.ok(text.endsWith('FAILED: 2 problems found\n'));
});

VerifyRepository('a pusher that uploaded an incomplete pack is caught by the deep check', async () => {
  const pushes = specs();
  pushes[0] = { updates: pushes[0]!.updates }; // main → c1 recorded, but c1 was never uploaded
  const history = buildHistory(pushes);
  const report = await verifyRepository(deps(history), history.repository.id, { deep: true });
  const codes = report.findings.map((f) => [f.code, f.seq]);
  assert.equal(codes.slice(0, 1), [['PACK_UNREADABLE', 2]], 'pack 2 is thin against c1');
  assert.match(report.findings[0]!.message, /^push 2, pack #0: the pack cannot be read: \d+ of \d+ objects cannot be resolved \(a delta base is in no earlier pack\)$/);
  assert.ok(report.findings.some((f) => f.code === 'COMMIT_MISSING' && f.seq === 1));
  const incomplete = report.findings.find((f) => f.code === 'HISTORY_INCOMPLETE');
  assert.match(incomplete?.message ?? '', new RegExp(`^push \\d: refs/heads/\\w+ was set to [0-9a-f]{40}, whose history is incomplete: object ${c1} \\(referenced by [0-9a-f]{40}\\) is in none of the live packs$`));
});

VerifyRepository('a tampered event fails the log check and names the push', async () => {
  const history = buildHistory(specs());
  history.events[3]!.sender = history.events[0]!.sender;
  const report = await verifyRepository(deps(history), history.repository.id);
  assert.equal(report.findings.map((f) => [f.code, f.seq]), [['LOG_RECORD_MISMATCH', 4], ['LOG_HEAD_MISMATCH', null]]);
});

VerifyRepository('deep verification of a SHA-256 repository is refused with a reason', async () => {
  const history = buildHistory(specs());
  history.repository.hashLength = 32;
  try {
    await verifyRepository(deps(history), history.repository.id, { deep: true });
    assert.unreachable();
  } catch (error) {
    assert.is((error as { code: string }).code, 'USAGE');
    assert.match((error as Error).message, /SHA-1 repositories only/);
  }
});

VerifyRepository('after a repack, commits overwritten before it are no longer required; later pushes thin against it are read', async () => {
  const pushes = specs().slice(0, 4);
  pushes.push({ repack: { liveFrom: 4 }, updates: [], chunks: [repo.pack([c3, t1])] });
  pushes.push({ updates: [{ name: 'refs/heads/topic', old: t1, new: null, force: false }] });
  const history = buildHistory(pushes);
  assert.is(history.repository.liveFrom, 4);
  const report = await verifyRepository(deps(history), history.repository.id, { deep: true });
  assert.equal(report.findings, []);
  assert.is(report.packsChecked, 1, 'only the consolidated pack is live');
  assert.is(report.commitsChecked, 2, 'c3 and t1, what the refs held at the repack; c1 and c2 were dropped by it');
  assert.equal(report.rewrites?.map((r) => r.seq), [4, 6], 'rewrites before the repack are still listed');
});

/** The chain as `states` left it, one push later at each read of the repository after the first. */
function landingLedger(states: History[]): Ledger {
  let reads = 0;
  const ledgers = states.map(historyLedger);
  const now = () => ledgers[Math.min(reads, ledgers.length - 1)]!;
  return {
    ...now(),
    getRepository: async (id) => {
      const answer = await now().getRepository(id);
      reads += 1;
      return answer;
    },
    listRefs: (id) => now().listRefs(id),
    listPacks: (id, from, until) => now().listPacks(id, from, until),
    listPushes: (id) => now().listPushes(id),
  };
}

const seventh: PushSpec = { updates: [{ name: 'refs/tags/v2', old: null, new: c2, force: false }], chunks: [repo.pack([t1])] };

VerifyRepository('a push that lands while the chain state is read fails nothing: the state is read again at one seq', async () => {
  const before = buildHistory(specs());
  const after = buildHistory([...specs(), seventh]);
  assert.equal(after.events.slice(0, 6), before.events, 'the same six pushes, then a seventh');
  const report = await verifyRepository({ ...deps(after), ledger: landingLedger([before, after]) }, before.repository.id, { deep: true });
  assert.equal(report.findings, []);
  assert.is(report.seq, 7);
  assert.is(report.pushes, 7);
});

VerifyRepository('pinned to where the run was asked for, the report covers those pushes and no later one', async () => {
  const before = buildHistory(specs());
  const after = buildHistory([...specs(), seventh]);
  const report = await verifyRepository({ ...deps(after), ledger: landingLedger([before, after]) }, before.repository.id, { deep: true, at: before.repository });
  assert.equal(report.findings, []);
  assert.is(report.seq, 6);
  assert.is(report.logHead, before.repository.logHead);
  assert.is(report.pushes, 6);
  assert.equal(report.rewrites?.map((r) => r.seq), [4, 5]);
});

VerifyRepository('when a push lands during every read of the chain state, verify gives up saying so, and judges nothing', async () => {
  const states = [buildHistory(specs())];
  for (let n = 1; n <= 6; n += 1) states.push(buildHistory([...specs(), ...Array.from({ length: n }, (_, i) => ({ updates: [{ name: `refs/tags/t${i}`, old: null, new: c1, force: false }] }))]));
  try {
    await verifyRepository({ ...deps(states.at(-1)!), ledger: landingLedger(states) }, states[0]!.repository.id);
    assert.unreachable();
  } catch (error) {
    assert.is((error as { code: string }).code, 'VERIFY_RACED');
    assert.match((error as Error).message, /a push landed during each; nothing is wrong with the repository/);
  }
});

VerifyRepository.run();

// ---
const RequiredTargets = suite('requiredTargets');

RequiredTargets('every ref target, first setter wins; a repack keeps only what the refs then held', () => {
  const { events } = buildHistory([
    ...specs().slice(0, 4),
    { repack: { liveFrom: 4 }, updates: [], chunks: [repo.pack([c3, t1])] },
    { updates: [{ name: 'refs/heads/topic', old: t1, new: c1, force: true }] },
  ]);
  assert.equal([...requiredTargets(events.slice(0, 4))], [
    [c1, { seq: 1, ref: 'refs/heads/main' }],
    [c2, { seq: 2, ref: 'refs/heads/main' }],
    [t1, { seq: 3, ref: 'refs/heads/topic' }],
    [c3, { seq: 4, ref: 'refs/heads/main' }],
  ]);
  assert.equal([...requiredTargets(events)], [
    [c3, { seq: 4, ref: 'refs/heads/main' }],
    [t1, { seq: 3, ref: 'refs/heads/topic' }],
    [c1, { seq: 6, ref: 'refs/heads/topic' }],
  ]);
});

// uvu runs a file's suites in order: the last one removes the scratch repository every suite above shares.
RequiredTargets.after(() => repo.remove());
RequiredTargets.run();
