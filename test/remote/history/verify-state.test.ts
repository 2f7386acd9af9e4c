import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { replayRefs, verifyPackTable, verifyRefs } from '../../../src/remote/history/verify-state.ts';
import { buildHistory, chunk, oid } from './fixture.ts';

const history = () =>
  buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('one')] },
    { updates: [{ name: 'refs/heads/topic', old: null, new: oid(2), force: false }] },
    { updates: [{ name: 'refs/heads/main', old: oid(1), new: oid(3), force: false }, { name: 'refs/heads/topic', old: oid(2), new: null, force: false }], chunks: [chunk('two')] },
  ]);

// ---
const ReplayRefs = suite('replayRefs');
ReplayRefs('applies updates and deletions in order', () => {
  assert.equal([...replayRefs(history().events)], [['refs/heads/main', oid(3)]]);
});
ReplayRefs.run();

// ---
const VerifyRefs = suite('verifyRefs');
VerifyRefs('agrees with the chain’s refs', () => {
  const { events, refs } = history();
  assert.equal(verifyRefs(events, refs), []);
});
VerifyRefs('names a ref that differs, a ref the events never made, and one they left deleted', () => {
  const { events } = history();
  const chain = new Map([['refs/heads/main', oid(7)], ['refs/heads/ghost', oid(8)], ['refs/heads/topic', oid(2)]]);
  assert.equal(verifyRefs(events, chain), [
    { code: 'STATE_REF_MISMATCH', seq: null, message: `repository: ref refs/heads/ghost is ${oid(8)} on chain, but the push events leave it at absent` },
    { code: 'STATE_REF_MISMATCH', seq: 3, message: `push 3: ref refs/heads/main is ${oid(7)} on chain, but the push events leave it at ${oid(3)}` },
    { code: 'STATE_REF_MISMATCH', seq: 3, message: `push 3: ref refs/heads/topic is ${oid(2)} on chain, but the push events leave it at absent` },
  ]);
});
VerifyRefs.run();

// ---
const VerifyPackTable = suite('verifyPackTable');
VerifyPackTable('agrees with the chain’s pack table', () => {
  const { events, packs } = history();
  assert.equal(verifyPackTable(events, packs, 0), []);
  assert.equal(verifyPackTable(events, packs.slice(1), 1), [], 'packs before live_from are not checked');
});
VerifyPackTable('names a pack that differs from its event, and a pack no event announces', () => {
  const { events, packs } = history();
  const altered = [{ ...packs[0]!, size: 99 }, packs[1]!, { chunks: ['x'.repeat(43)], size: 1, sha256: '00'.repeat(32) }];
  const findings = verifyPackTable(events, altered, 0);
  assert.equal(findings.map((f) => [f.code, f.seq]), [['STATE_PACK_MISMATCH', 1], ['STATE_PACK_MISMATCH', null]]);
  assert.match(findings[0]!.message, /^push 1: pack #0 on chain \(99 bytes, sha256 [0-9a-f]{64}, blobs \S+\) differs from the event's \(3 bytes, /);
  assert.match(findings[1]!.message, /^repository: pack #2 \(1 bytes, .*\) is on chain, but no push event announces it$/);
});
VerifyPackTable('names a pack the event announces but the chain lacks', () => {
  const { events, packs } = history();
  assert.equal(verifyPackTable(events, packs.slice(0, 1), 0), [
    { code: 'STATE_PACK_MISMATCH', seq: 3, message: 'push 3: pack #1 is announced by the event but absent from the chain\'s pack table' },
  ]);
});
VerifyPackTable.run();
