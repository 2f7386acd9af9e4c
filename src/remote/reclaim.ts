import type { Log } from '../core/log.ts';
import type { BlobObjects } from '../ports/blob-objects.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger } from '../ports/ledger.ts';
import { artifactBlobIds } from './artifacts.ts';

export interface ReclaimResult {
  /** Blob objects deleted (their storage resources went back to the signer). */
  deleted: number;
  /** Encoded storage those objects held. */
  bytes: number;
  /** Replaced blobs stored permanent: no one can delete them; they stay until their end epoch. */
  permanent: number;
  /** Replaced blobs held only by others' Blob objects (another pusher's, the publisher's). */
  notOwned: number;
  digest: string | null;
}

/** Blob objects deleted per transaction (two inputs and one transfer argument each). */
const DELETIONS_PER_TRANSACTION = 400;

/**
 * After a gc (docs/architecture.md, Storage lifecycle): deletes the signer's deletable Blob objects of packs below
 * `live_from`, which no fetch reads any more (a clone applies packs from `live_from` on, src/remote/fetch.ts), to
 * reclaim their storage. A blob that is also a chunk of a live pack is never touched; permanent blobs and others' Blob
 * objects cannot be deleted and are only counted. Run it only after the repack has committed.
 */
export async function reclaimReplacedPacks(deps: { ledger: Ledger; blobStore: BlobStore; blobObjects: BlobObjects; log: Log }, repositoryId: string): Promise<ReclaimResult> {
  const { ledger, blobStore, blobObjects, log } = deps;
  const info = await ledger.getRepository(repositoryId);
  const result: ReclaimResult = { deleted: 0, bytes: 0, permanent: 0, notOwned: 0, digest: null };
  if (info.liveFrom === 0) return result;
  const packs = await ledger.listPacks(repositoryId, 0, info.packCount);
  const live = new Set(packs.slice(info.liveFrom).flatMap((pack) => pack.chunks));
  const replaced = [...new Set(packs.slice(0, info.liveFrom).flatMap((pack) => pack.chunks))].filter((blobId) => !live.has(blobId));
  if (replaced.length === 0) return result;
  return deleteOwnedBlobs({ blobStore, blobObjects, log }, replaced, 'replaced packs');
}

/**
 * Retention's reclaim of one superseded artifact (src/gitops/reconcile/retention.ts chooses which): deletes the
 * signer's deletable Blob objects of its blobs (the one blob, or its index and chunks). A permanent blob cannot be
 * deleted: it is counted and left to lapse at its end epoch, as nothing extends an artifact. An artifact already gone
 * (deleted before, or expired) has nothing left to reclaim.
 */
export async function reclaimArtifact(deps: { blobStore: BlobStore; blobObjects: BlobObjects; log: Log }, blobId: string): Promise<ReclaimResult> {
  let blobIds: string[];
  try {
    blobIds = await artifactBlobIds(deps.blobStore, blobId);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'BLOB_NOT_FOUND') return { deleted: 0, bytes: 0, permanent: 0, notOwned: 0, digest: null };
    throw error;
  }
  return deleteOwnedBlobs(deps, blobIds, `artifact ${blobId}`);
}

/** Deletes the signer's unexpired deletable Blob objects of `blobIds`; counts those it cannot delete. */
async function deleteOwnedBlobs(deps: { blobStore: BlobStore; blobObjects: BlobObjects; log: Log }, blobIds: readonly string[], what: string): Promise<ReclaimResult> {
  const { blobStore, blobObjects, log } = deps;
  const result: ReclaimResult = { deleted: 0, bytes: 0, permanent: 0, notOwned: 0, digest: null };
  const owned = await blobObjects.owned(blobIds);
  // An expired Blob object cannot be deleted (its storage is already free): left out, as `walrus delete` does.
  const epoch = (await blobStore.lifetimes?.([]))?.epoch;
  const doomed: { objectId: string; storageSize: number }[] = [];
  for (const blobId of blobIds) {
    const mine = (owned.get(blobId) ?? []).filter((o) => epoch === undefined || o.endEpoch > epoch);
    const deletable = mine.filter((o) => o.deletable);
    doomed.push(...deletable);
    if (mine.length === 0) result.notOwned += 1;
    else if (deletable.length < mine.length) result.permanent += 1;
  }
  for (let start = 0; start < doomed.length; start += DELETIONS_PER_TRANSACTION) {
    const batch = doomed.slice(start, start + DELETIONS_PER_TRANSACTION);
    ({ digest: result.digest } = await blobObjects.delete(batch.map((o) => o.objectId)));
    result.deleted += batch.length;
    result.bytes += batch.reduce((sum, o) => sum + o.storageSize, 0);
    log.debug(`deleted ${batch.length} Blob object(s) of ${what} (transaction ${result.digest})`);
  }
  return result;
}
