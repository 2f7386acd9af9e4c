import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { blobIdToInt } from '@mysten/walrus';
import { bytesToHex, hexToBytes, pushRecordOf } from '../../../src/remote/history/push-record.ts';
import { buildHistory, chunk, oid } from './fixture.ts';

// ---
const Hex = suite('hexToBytes');
Hex('round-trips with bytesToHex and refuses non-hex', () => {
  assert.is(bytesToHex(hexToBytes('00ff10ab')), '00ff10ab');
  assert.equal([...hexToBytes('0aFF')], [10, 255]);
  assert.throws(() => hexToBytes('abc'), /not hex/);
  assert.throws(() => hexToBytes('zz'), /not hex/);
});
Hex.run();

const BytesToHex = suite('bytesToHex');
BytesToHex('respects the view of a larger buffer', () => {
  assert.is(bytesToHex(new Uint8Array([1, 2, 3, 4]).subarray(1, 3)), '0203');
});
BytesToHex.run();

// ---
const PushRecordOf = suite('pushRecordOf');
PushRecordOf('rebuilds the record the contract hashed: fields, options and u256 chunks', () => {
  const { events, repository } = buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('x'), chunk('y')] },
    { updates: [{ name: 'refs/heads/main', old: oid(1), new: null, force: true }] },
  ]);
  const first = pushRecordOf(events[0]!);
  assert.is(first.repository, repository.id);
  assert.is(first.seq, 1n);
  assert.is(first.kind, 0);
  assert.equal(first.updates[0]!.old, null);
  assert.is(bytesToHex(first.updates[0]!.new!), oid(1));
  assert.equal(first.pack!.chunks, events[0]!.pack!.chunks.map((id) => blobIdToInt(id)));
  assert.is(first.pack!.size, 2n);
  assert.is(first.live_from, 0n);
  const second = pushRecordOf(events[1]!);
  assert.equal([second.updates[0]!.new, second.updates[0]!.forced, second.pack], [null, true, null]);
});
PushRecordOf.run();
