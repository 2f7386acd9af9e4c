/**
 * Checks packs against what Walrus serves: every chunk must be readable and hash to its recorded blob id (computed
 * locally, so an untrusted aggregator cannot substitute bytes), and the whole pack must have the recorded size and
 * sha256. Each finding names the push, the pack, the blob and what differs.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes } from '../../core/bytes.ts';
import { isEncryptedPackStart } from '../../core/pack-cipher.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { PackEntry, PushEvent } from '../../ports/ledger.ts';
import type { Finding } from './finding.ts';
import { bytesToHex } from './push-record.ts';

/** The Walrus blob id of `bytes` for the network's shard count (src/walrus-protocol/blob-id.ts, injected by the caller). */
export type BlobIdOf = (bytes: Uint8Array) => string | Promise<string>;

/** Which pack, and the push that stored it (null when no event announces it). */
export interface PackPlace {
  index: number;
  seq: number | null;
}

export interface PackCheck {
  /** The pack's bytes when `keepBytes` was asked and every chunk could be read; null otherwise. */
  bytes: Uint8Array | null;
  findings: Finding[];
}

export function packLabel(place: PackPlace): string {
  return place.seq === null ? `pack #${place.index}` : `push ${place.seq}, pack #${place.index}`;
}

/**
 * Reads one pack chunk by chunk and checks it. Transient Walrus faults (retryable errors) are thrown, not findings.
 * A pack with a sealed key (a private repository's) must also be stored encrypted: anyone can see it is not plaintext.
 */
export async function checkPack(
  store: BlobStore,
  blobIdOf: BlobIdOf,
  pack: PackEntry,
  place: PackPlace,
  options: { keepBytes?: boolean; signal?: AbortSignal } = {},
): Promise<PackCheck> {
  const label = packLabel(place);
  const findings: Finding[] = [];
  const hash = sha256.create();
  const kept: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  for (const [i, blobId] of pack.chunks.entries()) {
    const chunk = pack.chunks.length > 1 ? ` (chunk ${i + 1} of ${pack.chunks.length})` : '';
    let bytes: Uint8Array;
    try {
      bytes = await store.read(blobId, { signal: options.signal, contentChecked: true });
    } catch (error) {
      if (!isPermanentStoreError(error)) throw error;
      complete = false;
      findings.push({ code: 'BLOB_UNAVAILABLE', seq: place.seq, blobId, message: `${label}, blob ${blobId}${chunk}: ${(error as Error).message}` });
      continue;
    }
    const servedId = await blobIdOf(bytes);
    if (servedId !== blobId) {
      findings.push({
        code: 'BLOB_ID_MISMATCH',
        seq: place.seq,
        blobId,
        message: `${label}, blob ${blobId}${chunk}: the ${bytes.length} bytes Walrus serves have blob id ${servedId}`,
      });
    }
    if (i === 0 && pack.sealedKey !== undefined && !isEncryptedPackStart(bytes)) {
      findings.push({
        code: 'PACK_NOT_ENCRYPTED',
        seq: place.seq,
        blobId,
        message: `${label}, blob ${blobId}: the pack of a private repository is not stored encrypted (its bytes do not start with the encrypted-pack header)`,
      });
    }
    hash.update(bytes);
    size += bytes.length;
    if (options.keepBytes) kept.push(bytes);
  }
  if (!complete) return { bytes: null, findings };
  if (size !== pack.size) {
    findings.push({ code: 'PACK_SIZE_MISMATCH', seq: place.seq, message: `${label}: Walrus serves ${size} bytes, the chain records ${pack.size}` });
  }
  const digest = bytesToHex(hash.digest());
  if (digest !== pack.sha256) {
    findings.push({ code: 'PACK_SHA256_MISMATCH', seq: place.seq, message: `${label}: the bytes Walrus serves have sha256 ${digest}, the chain records ${pack.sha256}` });
  }
  return { bytes: options.keepBytes ? concatBytes(kept) : null, findings };
}

/** Pack index → the event of the push that stored it. */
export function packPlaces(events: readonly PushEvent[]): Map<number, number> {
  const places = new Map<number, number>();
  for (const event of events) if (event.packIndex !== null) places.set(event.packIndex, event.seq);
  return places;
}

/**
 * A store error that proves something about the blob (absent, expired, blocked) rather than a transient fault.
 * Matched on the error's shape, not its class: the store is an adapter this layer does not import.
 */
function isPermanentStoreError(error: unknown): boolean {
  const e = error as { code?: unknown; retryable?: unknown } | null;
  return typeof e?.code === 'string' && e.retryable === false && e.code.startsWith('BLOB_');
}
