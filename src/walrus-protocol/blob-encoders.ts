import { BlobEncoder } from '@mysten/walrus-wasm';
import { blobIdFromBytes } from '../core/blob-id-codec.ts';

/**
 * The Rust encoder (WebAssembly) behind every local blob id, in whichever thread or process computes them: one
 * encoder per shard count is kept, since building one precomputes tables for that count.
 */
const encoders = new Map<number, BlobEncoder>();

function encoderFor(numShards: number): BlobEncoder {
  let encoder = encoders.get(numShards);
  if (encoder === undefined) {
    encoder = new BlobEncoder(numShards);
    encoders.set(numShards, encoder);
  }
  return encoder;
}

/** Builds the encoder for `numShards` now, so that the first id does not pay for it. */
export function buildEncoder(numShards: number): void {
  encoderFor(numShards);
}

/** The blob id of `bytes` on a network of `numShards` shards, as Walrus computes it. */
export function encodeBlobId(bytes: Uint8Array, numShards: number): string {
  // compute_metadata returns [blobId bytes, {Digest}, unencoded length, encoding type].
  const [idBytes] = encoderFor(numShards).compute_metadata(bytes) as [number[] | Uint8Array];
  return blobIdFromBytes(Uint8Array.from(idBytes));
}

/** The shard counts whose encoders are built. */
export function builtEncoders(): number[] {
  return [...encoders.keys()].sort((a, b) => a - b);
}
