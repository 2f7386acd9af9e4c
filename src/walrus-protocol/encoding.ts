/**
 * Facts of Walrus' RS2 encoding that depend only on the shard count (walrus-core; mirrored by @mysten/walrus
 * `utils`): the largest blob a network can hold, and the encoded size a blob occupies (what storage is paid for).
 * Pure: no I/O.
 */

const DIGEST_LENGTH = 32;
const BLOB_ID_LENGTH = 32;
/** RS2 symbols are 16-bit aligned and at most 2^16 - 1 bytes. */
const MAX_SYMBOL_SIZE = 2 ** 16 - 1;

/** Source symbols per sliver: a primary sliver (a row of the blob's matrix) holds `secondary`, a secondary one (a column) `primary`. */
export function sourceSymbols(numShards: number): { primary: number; secondary: number } {
  const maxFaulty = Math.floor((numShards - 1) / 3);
  return { primary: numShards - 2 * maxFaulty, secondary: numShards - maxFaulty };
}

/** Bytes per symbol of a blob of `size` bytes. */
export function symbolSize(size: number, numShards: number): number {
  const { primary, secondary } = sourceSymbols(numShards);
  const raw = Math.floor((Math.max(size, 1) - 1) / (primary * secondary)) + 1;
  return raw % 2 === 1 ? raw + 1 : raw;
}

/** Bytes the network stores for a blob of `size` bytes (slivers of all shards plus per-shard metadata). */
export function encodedBlobLength(size: number, numShards: number): number {
  const { primary, secondary } = sourceSymbols(numShards);
  const slivers = (primary + secondary) * symbolSize(size, numShards) * numShards;
  return numShards * (numShards * DIGEST_LENGTH * 2 + BLOB_ID_LENGTH) + slivers;
}

/** The largest unencoded blob a network of `numShards` shards can encode. */
export function maxBlobSizeForShards(numShards: number): number {
  const { primary, secondary } = sourceSymbols(numShards);
  // The symbol size must stay even (RS2 alignment), so the largest usable symbol is MAX_SYMBOL_SIZE - 1.
  return primary * secondary * (MAX_SYMBOL_SIZE - 1);
}


/**
 * The shard that holds sliver pair `pairIndex` of a blob: pairs are rotated by the blob id's bytes read as a
 * big-endian number modulo the shard count (walrus-core `SliverPairIndex::to_shard_index`), so every blob spreads
 * its first pairs over other shards.
 */
export function shardOfSliverPair(pairIndex: number, blobIdBytes: Uint8Array, numShards: number): number {
  return (pairIndex + rotationOffset(blobIdBytes, numShards)) % numShards;
}

export function sliverPairOfShard(shardIndex: number, blobIdBytes: Uint8Array, numShards: number): number {
  return (numShards + shardIndex - rotationOffset(blobIdBytes, numShards)) % numShards;
}

function rotationOffset(bytes: Uint8Array, modulus: number): number {
  return bytes.reduce((offset, byte) => (offset * 256 + byte) % modulus, 0);
}
