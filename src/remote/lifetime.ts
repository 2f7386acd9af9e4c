import { WalrusGitError } from '../core/errors.ts';
import { lifetimeVerdict, packEnd, type LifetimeVerdict } from '../core/blob-lifetime.ts';
import type { Log } from '../core/log.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger } from '../ports/ledger.ts';

export interface LivePackLifetime {
  index: number;
  endEpoch: number | null | undefined;
  /** The chunk that ends first. */
  blobId: string;
  verdict: LifetimeVerdict;
}

export interface LiveLifetimes {
  epoch: number;
  packs: LivePackLifetime[];
}

/** The live packs' lifetimes as Walrus confirms them; null when the blob store cannot ask. */
export async function liveLifetimes(ledger: Ledger, blobStore: BlobStore, repositoryId: string, warnWithin: number): Promise<LiveLifetimes | null> {
  if (!blobStore.lifetimes) return null;
  const info = await ledger.getRepository(repositoryId);
  const packs = await ledger.listPacks(repositoryId, info.liveFrom);
  const answer = await blobStore.lifetimes(packs.flatMap((p) => p.chunks));
  if (answer === null) return null;
  return {
    epoch: answer.epoch,
    packs: packs.map((pack, offset) => {
      const end = packEnd(pack.chunks, answer.endEpochs);
      return { index: info.liveFrom + offset, ...end, verdict: lifetimeVerdict(end.endEpoch, answer.epoch, warnWithin) };
    }),
  };
}

/** The warnings `log` and `verify` print for live packs that expire soon (expired ones are verify's findings). */
export function expiryWarnings(lifetimes: LiveLifetimes, remote: string): string[] {
  return lifetimes.packs
    .filter((p) => p.verdict === 'expiring')
    .map((p) => `live pack #${p.index} expires at Walrus epoch ${p.endEpoch} (now ${lifetimes.epoch}: ${p.endEpoch! - lifetimes.epoch} epoch(s) left, blob ${p.blobId}); renew it with 'git walrus extend ${remote}'`);
}

/** A live pack cannot be renewed: a chunk is already gone from Walrus. */
export class PackExpiredError extends WalrusGitError {
  constructor(repository: string, index: number, blobId: string) {
    super('PACK_EXPIRED', `live pack #${index} of ${repository} has expired (blob ${blobId} is gone from Walrus) and cannot be renewed; push its objects again (a 'git walrus gc' from a complete clone does)`, { repository, index, blobId });
  }
}

export interface ExtendResult {
  epoch: number;
  /** Chunks stored again for longer. */
  renewed: number;
  /** Chunks already stored long enough. */
  kept: number;
  /** The earliest end of the live packs afterwards. */
  endEpoch: number | null;
}

/**
 * `git walrus extend`: keeps every live pack stored until at least `epochs` epochs from now. A blob is content
 * addressed, so storing the same bytes again for longer extends it; anyone may do that (and pays for it), no write
 * access to the repository is needed. Packs that are already gone are reported, not silently skipped.
 */
export async function extendLivePacks(deps: { ledger: Ledger; blobStore: BlobStore; log: Log }, repositoryId: string, epochs: number): Promise<ExtendResult> {
  const { ledger, blobStore, log } = deps;
  const info = await ledger.getRepository(repositoryId);
  const packs = await ledger.listPacks(repositoryId, info.liveFrom);
  const answer = await blobStore.lifetimes?.(packs.flatMap((p) => p.chunks)) ?? null;
  const result: ExtendResult = { epoch: answer?.epoch ?? 0, renewed: 0, kept: 0, endEpoch: null };
  const ends: number[] = [];
  for (const [offset, pack] of packs.entries()) {
    for (const blobId of pack.chunks) {
      const end = answer?.endEpochs.get(blobId);
      if (end === null) throw new PackExpiredError(repositoryId, info.liveFrom + offset, blobId);
      if (answer !== null && end !== undefined && end >= answer.epoch + epochs) {
        result.kept += 1;
        ends.push(end);
        continue;
      }
      const bytes = await blobStore.read(blobId).catch((error: unknown) => {
        if ((error as { code?: unknown }).code === 'BLOB_NOT_FOUND') throw new PackExpiredError(repositoryId, info.liveFrom + offset, blobId);
        throw error;
      });
      const stored = await blobStore.write(bytes, { epochs });
      log.debug(`renewed ${blobId} of pack #${info.liveFrom + offset}${stored.endEpoch === undefined ? '' : ` until epoch ${stored.endEpoch}`}`);
      if (stored.endEpoch !== undefined) ends.push(stored.endEpoch);
      result.renewed += 1;
    }
  }
  await blobStore.release?.();
  result.endEpoch = ends.length === 0 ? null : Math.min(...ends);
  return result;
}
