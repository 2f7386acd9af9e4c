/**
 * Rebuilds the contract's `PushRecord` from a `Pushed` event as the ledger reports it (hex ids, blob-id strings),
 * so the push log can be replayed with the contract model's own encoding (src/contract/push-log.ts).
 */
import type { PushRecordValue } from '../../contract/bcs.ts';
import type { PackEntry, PushEvent } from '../../ports/ledger.ts';
import { blobIdToU256 } from '../../core/blob-id-codec.ts';

export function pushRecordOf(event: PushEvent): PushRecordValue {
  return {
    repository: event.repository,
    seq: BigInt(event.seq),
    kind: event.kind,
    sender: event.sender,
    timestamp_ms: BigInt(event.timestampMs),
    updates: event.updates.map((update) => ({
      name: update.name,
      old: update.old === null ? null : hexToBytes(update.old),
      new: update.new === null ? null : hexToBytes(update.new),
      forced: update.force,
    })),
    pack: event.pack === null ? null : packEntryRecord(event.pack),
    live_from: BigInt(event.liveFrom),
  };
}

function packEntryRecord(pack: PackEntry): NonNullable<PushRecordValue['pack']> {
  return { chunks: pack.chunks.map(blobIdToU256), size: BigInt(pack.size), sha256: hexToBytes(pack.sha256), sealed_key: pack.sealedKey === undefined ? null : hexToBytes(pack.sealedKey) };
}

export function hexToBytes(hex: string): Uint8Array {
  if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new TypeError(`not hex: ${hex}`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}
