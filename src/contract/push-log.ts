/**
 * The push log (docs/architecture.md, The push log): `log_head' = blake2b-256(log_head ‖ bcs(PushRecord))`, starting
 * from 32 zero bytes. The bytes hashed are exactly the 32 bytes of the previous head followed by the BCS encoding of
 * the record (layout in src/contract/bcs.ts, mirrored by walrus_git::push_log in Move); nothing else, no length prefix.
 */
import { blake2b } from '@noble/hashes/blake2.js';
import { PushRecord } from './bcs.ts';
import type { PushRecordValue } from './bcs.ts';

export const LOG_HEAD_LENGTH = 32;

/** The log head of a repository with no pushes. */
export const GENESIS_LOG_HEAD: Uint8Array = new Uint8Array(LOG_HEAD_LENGTH);

/** Record kinds (`PushRecord.kind`). */
export const RecordKind = { push: 0, repack: 1 } as const;

/** BCS of a push record: the bytes the log hash covers after the previous head. */
export function encodePushRecord(record: PushRecordValue): Uint8Array {
  return PushRecord.serialize(record).toBytes();
}

/** The log head after appending `record` to a log whose head is `prev`. */
export function nextLogHead(prev: Uint8Array, record: PushRecordValue): Uint8Array {
  if (prev.length !== LOG_HEAD_LENGTH) throw new TypeError(`log head must be ${LOG_HEAD_LENGTH} bytes, got ${prev.length}`);
  const encoded = encodePushRecord(record);
  const data = new Uint8Array(prev.length + encoded.length);
  data.set(prev, 0);
  data.set(encoded, prev.length);
  return blake2b(data, { dkLen: LOG_HEAD_LENGTH });
}
