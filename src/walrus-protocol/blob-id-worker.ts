import { parentPort } from 'node:worker_threads';
import { buildEncoder, encodeBlobId } from './blob-encoders.ts';
import { messageOf } from '../core/errors.ts';

/** Worker thread of blob-id.ts: computes Walrus blob ids with the Rust encoder (WebAssembly) off the main thread. */
export interface BlobIdRequest {
  id: number;
  /** Absent: only build the encoder for `numShards` (a warm-up), answered with an empty id. */
  bytes?: Uint8Array;
  numShards: number;
}

/** `ms`: the time the encoder took (what a benchmark breaks a push down by). */
export type BlobIdReply = { id: number; blobId: string; ms: number } | { id: number; error: string };

parentPort!.on('message', (request: BlobIdRequest) => {
  let reply: BlobIdReply;
  const start = performance.now();
  try {
    if (request.bytes === undefined) buildEncoder(request.numShards);
    const blobId = request.bytes === undefined ? '' : encodeBlobId(request.bytes, request.numShards);
    reply = { id: request.id, blobId, ms: performance.now() - start };
  } catch (error) {
    reply = { id: request.id, error: messageOf(error) };
  }
  parentPort!.postMessage(reply);
});
