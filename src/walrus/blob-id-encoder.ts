import { BlobEncoder } from '@mysten/walrus-wasm';
import { blobIdFromBytes } from './encoding.ts';

/**
 * The Walrus blob id of `bytes` with the Rust encoder (WebAssembly), on the calling thread: the worker of
 * blob-id.ts, or the main thread for small-shard networks. An encoder per shard count is kept, since building one
 * precomputes tables for that count.
 */
const encoders = new Map<number, BlobEncoder>();

export function encodeBlobId(bytes: Uint8Array, numShards: number): string {
  let encoder = encoders.get(numShards);
  if (encoder === undefined) {
    encoder = new BlobEncoder(numShards);
    encoders.set(numShards, encoder);
  }
  // compute_metadata returns [blobId bytes, {Digest}, unencoded length, encoding type].
  const [idBytes] = encoder.compute_metadata(bytes) as [number[] | Uint8Array];
  return blobIdFromBytes(Uint8Array.from(idBytes));
}
