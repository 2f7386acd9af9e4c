import { blake2b } from '@noble/hashes/blake2.js';
import { bcs } from '@mysten/sui/bcs';
import { concatBytes } from '../core/bytes.ts';

/**
 * Sui's digests: Blake2b-256 over the type's name and `::`, then its BCS (sui-types `default_hash` of a
 * `BcsSignable`). The names are the Rust type names: `CheckpointSummary`, `CheckpointContents`,
 * `TransactionData`, `TransactionEffects`, `TransactionEvents`, `Object`.
 */
export function hashTyped(name: string, data: Uint8Array): Uint8Array {
  let prefix = prefixes.get(name);
  if (prefix === undefined) prefixes.set(name, (prefix = new TextEncoder().encode(`${name}::`)));
  const hash = blake2b.create({ dkLen: 32 });
  hash.update(prefix);
  hash.update(data);
  return hash.digest();
}

const prefixes = new Map<string, Uint8Array>();

/** Intent `CheckpointSummary` (2), version V0 (0), app Sui (0): the first three bytes validators sign. */
const CHECKPOINT_INTENT = new Uint8Array([2, 0, 0]);

/** What validators sign for a checkpoint: the intent, the summary's BCS, then the epoch as a BCS u64. */
export function checkpointSigningMessage(summaryBcs: Uint8Array, epoch: bigint | string): Uint8Array {
  return concatBytes([CHECKPOINT_INTENT, summaryBcs, bcs.u64().serialize(epoch).toBytes()]);
}
