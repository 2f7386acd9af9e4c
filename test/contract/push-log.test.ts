import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fromHex, toHex } from '@mysten/bcs';
import { blake2b } from '@noble/hashes/blake2.js';
import { GENESIS_LOG_HEAD, encodePushRecord, nextLogHead } from '../../src/contract/push-log.ts';
import { pushRecordOfJson, type PushLogVectors, type PushRecordJson } from './vectors/push-log-vectors.ts';

const golden: PushLogVectors = JSON.parse(readFileSync(new URL('../../contracts/tests/push_log_vectors.json', import.meta.url), 'utf8'));

// An encoder written from the BCS spec alone (ULEB128 lengths, little-endian integers, 0/1 option tags), to check
// the golden bytes independently of @mysten/bcs.
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}
const le = (v: bigint, bytes: number) => Array.from({ length: bytes }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
const hex = (s: string) => [...fromHex(s.replace(/^0x/, ''))];
const bytesVec = (s: string) => [...uleb(s.length / 2), ...hex(s)];
const str = (s: string) => [...uleb(Buffer.byteLength(s)), ...Buffer.from(s)];
function byHand(r: PushRecordJson): Uint8Array {
  const out = [...hex(r.repository), ...le(BigInt(r.seq), 8), r.kind, ...hex(r.sender), ...le(BigInt(r.timestamp_ms), 8), ...uleb(r.updates.length)];
  for (const u of r.updates) {
    out.push(...str(u.name));
    out.push(...(u.old === null ? [0] : [1, ...bytesVec(u.old)]));
    out.push(...(u.new === null ? [0] : [1, ...bytesVec(u.new)]));
    out.push(u.forced ? 1 : 0);
  }
  if (r.pack === null) out.push(0);
  else {
    out.push(1, ...uleb(r.pack.chunks.length));
    for (const c of r.pack.chunks) out.push(...le(BigInt(c), 32));
    out.push(...le(BigInt(r.pack.size), 8), ...bytesVec(r.pack.sha256));
    out.push(...(r.pack.sealed_key === undefined ? [0] : [1, ...bytesVec(r.pack.sealed_key)]));
  }
  out.push(...le(BigInt(r.live_from), 8));
  return Uint8Array.from(out);
}

const encode = suite('encodePushRecord');

encode('matches the golden bytes, which match a hand-written BCS encoding', () => {
  assert.ok(golden.vectors.length >= 5);
  assert.ok(golden.vectors.some((v) => v.record.pack?.sealed_key !== undefined), 'a private repository\'s pack');
  for (const v of golden.vectors) {
    assert.is(toHex(byHand(v.record)), v.bcs, v.name);
    assert.is(toHex(encodePushRecord(pushRecordOfJson(v.record))), v.bcs, v.name);
  }
});

encode.run();

const next = suite('nextLogHead');

next('starts from 32 zero bytes and chains blake2b-256(prev ‖ bcs(record))', () => {
  assert.is(toHex(GENESIS_LOG_HEAD), '00'.repeat(32));
  let head = GENESIS_LOG_HEAD;
  for (const v of golden.vectors) {
    assert.is(toHex(head), v.prev, v.name);
    const independent = blake2b(Uint8Array.from([...fromHex(v.prev), ...fromHex(v.bcs)]), { dkLen: 32 });
    assert.is(toHex(independent), v.next, v.name);
    head = nextLogHead(head, pushRecordOfJson(v.record));
    assert.is(toHex(head), v.next, v.name);
  }
});

next('refuses a previous head that is not 32 bytes', () => {
  assert.throws(() => nextLogHead(new Uint8Array(31), pushRecordOfJson(golden.vectors[0]!.record)), /32 bytes/);
});

next.run();
