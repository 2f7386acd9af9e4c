import { parentPort } from 'node:worker_threads';
import { BlobEncoder } from '@mysten/walrus-wasm';
import { blobIdFromBytes } from '../core/blob-id-codec.ts';
import { messageOf } from '../core/errors.ts';

/**
 * Worker thread of blob-id.ts: computes Walrus blob ids with the Rust encoder (WebAssembly) off the main thread.
 * An encoder per shard count is kept, since building one precomputes tables for that count.
 */
export interface BlobIdRequest {
  id: number;
  /** Absent: only build the encoder for `numShards` (a warm-up), answered with an empty id. */
  bytes?: Uint8Array;
  numShards: number;
}

/** `ms`: the time the encoder took (what a benchmark breaks a push down by). */
export type BlobIdReply = { id: number; blobId: string; ms: number } | { id: number; error: string };

const encoders = new Map<number, BlobEncoder>();

function encoderFor(numShards: number): BlobEncoder {
  let encoder = encoders.get(numShards);
  if (encoder === undefined) {
    encoder = new BlobEncoder(numShards);
    encoders.set(numShards, encoder);
  }
  return encoder;
}

parentPort!.on('message', (request: BlobIdRequest) => {
  let reply: BlobIdReply;
  const start = performance.now();
  try {
    const encoder = encoderFor(request.numShards);
    if (request.bytes === undefined) {
      reply = { id: request.id, blobId: '', ms: performance.now() - start };
    } else {
      // compute_metadata returns [blobId bytes, {Digest}, unencoded length, encoding type].
      const [idBytes] = encoder.compute_metadata(request.bytes) as [number[] | Uint8Array];
      reply = { id: request.id, blobId: blobIdFromBytes(Uint8Array.from(idBytes)), ms: performance.now() - start };
    }
  } catch (error) {
    reply = { id: request.id, error: messageOf(error) };
  }
  parentPort!.postMessage(reply);
});
