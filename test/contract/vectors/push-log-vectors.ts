/**
 * The golden push-log vectors (contracts/tests/push_log_vectors.json): records as JSON, their BCS bytes and the log
 * head each one chains to (`prev` → `next`). The same file drives test/contract/push-log.test.ts and the generated
 * Move tests (scripts/gen-move-tests.ts). Pure: takes the parsed JSON.
 */
import { fromHex } from '@mysten/bcs';
import type { PushRecordValue } from '../../../src/contract/bcs.ts';
import type { PackJson } from './scenarios.ts';

/** A `push_log::PushRecord` as the vectors write it: hex byte strings, addresses with 0x, u256 chunks in decimal. */
export interface PushRecordJson {
  repository: string;
  seq: number;
  kind: number;
  sender: string;
  timestamp_ms: number;
  updates: { name: string; old: string | null; new: string | null; forced: boolean }[];
  pack: PackJson | null;
  live_from: number;
}

export interface PushLogVector {
  name: string;
  /** The log head before the record (hex). */
  prev: string;
  record: PushRecordJson;
  /** BCS of the record (hex). */
  bcs: string;
  /** blake2b-256(prev ‖ bcs) (hex). */
  next: string;
}

export interface PushLogVectors {
  vectors: PushLogVector[];
}

/** The record as the contract's BCS layout takes it (src/contract/bcs.ts). */
export function pushRecordOfJson(record: PushRecordJson): PushRecordValue {
  const bytesOrNull = (hex: string | null) => (hex === null ? null : fromHex(hex));
  return {
    repository: record.repository,
    seq: BigInt(record.seq),
    kind: record.kind,
    sender: record.sender,
    timestamp_ms: BigInt(record.timestamp_ms),
    updates: record.updates.map((u) => ({ name: u.name, old: bytesOrNull(u.old), new: bytesOrNull(u.new), forced: u.forced })),
    pack: record.pack && {
      chunks: record.pack.chunks.map(BigInt),
      size: BigInt(record.pack.size),
      sha256: fromHex(record.pack.sha256),
      sealed_key: record.pack.sealed_key === undefined ? null : fromHex(record.pack.sealed_key),
    },
    live_from: BigInt(record.live_from),
  };
}
