import { parentPort } from 'node:worker_threads';
import { encodeBlobId } from './blob-id-encoder.ts';

/** Worker thread of blob-id.ts: computes Walrus blob ids off the main thread. */
export interface BlobIdRequest {
  id: number;
  bytes: Uint8Array;
  numShards: number;
}

export type BlobIdReply = { id: number; blobId: string } | { id: number; error: string };

parentPort!.on('message', (request: BlobIdRequest) => {
  let reply: BlobIdReply;
  try {
    reply = { id: request.id, blobId: encodeBlobId(request.bytes, request.numShards) };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
