import { computeBlobId } from '../walrus-protocol/blob-id.ts';
import { BlobIdMismatchError } from './errors.ts';

/**
 * Runs `upload` while the blob id of `bytes` is computed locally (overlapping the two), and accepts the answer only
 * if the store reports that same id: a faulty service or a wrong shard count must never get a blob id recorded.
 */
export async function uploadWithLocalId<T extends { blobId: string }>(bytes: Uint8Array, numShards: number, upload: () => Promise<T>): Promise<T> {
  const localId = computeBlobId(bytes, numShards);
  localId.catch(() => {}); // awaited below; an upload failure must not leave it unhandled
  const stored = await upload();
  const expected = await localId;
  if (stored.blobId !== expected) throw new BlobIdMismatchError(expected, stored.blobId, numShards);
  return stored;
}
