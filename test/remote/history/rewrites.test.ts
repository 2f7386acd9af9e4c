import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findRewrites } from '../../../src/remote/history/rewrites.ts';
import { ALICE, BOB, buildHistory, chunk, oid } from './fixture.ts';

const FindRewrites = suite('findRewrites');

FindRewrites('lists forced updates and deletions with who, when and the transaction; plain updates are not rewrites', () => {
  const { events } = buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }, { name: 'refs/heads/wip', old: null, new: oid(1), force: false }], chunks: [chunk('a')] },
    { updates: [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: false }], chunks: [chunk('b')] },
    { sender: BOB, timestampMs: 1_700_000_000_000, updates: [{ name: 'refs/heads/main', old: oid(2), new: oid(3), force: true }], chunks: [chunk('c')] },
    { updates: [{ name: 'refs/heads/wip', old: oid(1), new: null, force: false }] },
  ]);
  assert.equal(findRewrites(events), [
    { seq: 3, kind: 'forced', ref: 'refs/heads/main', old: oid(2), new: oid(3), sender: BOB, timestampMs: 1_700_000_000_000, txDigest: events[2]!.txDigest },
    { seq: 4, kind: 'deleted', ref: 'refs/heads/wip', old: oid(1), new: null, sender: ALICE, timestampMs: events[3]!.timestampMs, txDigest: events[3]!.txDigest },
  ]);
});

FindRewrites('is empty for a history of fast-forwards', () => {
  const { events } = buildHistory([{ updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('a')] }]);
  assert.equal(findRewrites(events), []);
});

FindRewrites.run();
