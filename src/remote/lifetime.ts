import { WalrusGitError } from '../core/errors.ts';
import { lifetimeVerdict, packEnd, type LifetimeVerdict } from '../core/blob-lifetime.ts';
import type { Log } from '../core/log.ts';
import type { BlobObjects, OwnedBlob } from '../ports/blob-objects.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger, RepositoryInfo } from '../ports/ledger.ts';

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

/**
 * The live packs' lifetimes as Walrus confirms them; null when the blob store cannot ask. `repository`: the caller's
 * read of the repository (done or under way), which spares reading it again.
 */
export async function liveLifetimes(ledger: Ledger, blobStore: BlobStore, repositoryId: string, warnWithin: number, repository?: RepositoryInfo | Promise<RepositoryInfo>): Promise<LiveLifetimes | null> {
  if (!blobStore.lifetimes) return null;
  const info = await (repository ?? ledger.getRepository(repositoryId));
  const packs = await ledger.listPacks(repositoryId, info.liveFrom, info.packCount);
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
  /** Blob objects extended on Walrus (by the signer, who owns them). */
  extended: number;
  /** Chunks already stored long enough. */
  kept: number;
  /** Chunks stored again under the signer's key (`restore`: no Blob object of theirs could be extended). */
  restored: number;
  /** Chunks that only another address can extend (the pusher's or the publisher's Blob objects), when not restored. */
  notOwned: { index: number; blobId: string }[];
  /** The extension's transaction. */
  digest: string | null;
  /** The earliest end of the live packs afterwards (null: not known, or some cannot be extended by this key). */
  endEpoch: number | null;
}

/** Blob objects extended per transaction: two inputs each, well inside Sui's 2,048 inputs and 1,024 commands. */
const EXTENSIONS_PER_TRANSACTION = 400;

/** Extending needs the current epoch, which this network's Walrus does not report here. */
export class LifetimesUnknownError extends WalrusGitError {
  constructor() {
    super('LIFETIMES_UNKNOWN', 'this network\'s Walrus reports no blob lifetimes here (a publisher\'s network without a storage node to ask), so how far to extend is unknown; write through the Walrus SDK (set GIT_WALRUS_UPLOAD_RELAY_URL), or use --restore to store every live pack again for the given epochs');
  }
}

/** Live packs whose Blob objects belong to someone else: only their owner can extend them. */
export class NotBlobOwnerError extends WalrusGitError {
  constructor(repository: string, owner: string, notOwned: { index: number; blobId: string }[]) {
    const packs = [...new Set(notOwned.map((c) => `#${c.index}`))].join(', ');
    super(
      'NOT_BLOB_OWNER',
      `${notOwned.length} blob(s) of live pack(s) ${packs} are held by Walrus Blob objects that ${owner} does not own (the pusher's, or the publisher's): ` +
        'only their owner can extend them. Ask the pusher to run \'git walrus extend\', or store them again under your key with \'git walrus extend --restore\' ' +
        '(reads the packs and pays the write fee once more; the blobs then live as long as your copy)',
      { repository, owner, notOwned },
    );
  }
}

/**
 * `git walrus extend`: keeps every live pack stored until at least `epochs` epochs from now. A Walrus blob lives as
 * long as its longest-lived Blob object, and only a Blob object's owner can extend it (`system::extend_blob`, paid
 * in WAL): the signer's own Blob objects are extended in place, on chain, without moving a byte. A chunk held only by
 * someone else's Blob object is reported (NotBlobOwnerError, after the rest is extended), or with `restore` stored
 * again under the signer's key, which anyone may do and pay for. Packs already gone are reported, never skipped.
 */
export async function extendLivePacks(
  deps: { ledger: Ledger; blobStore: BlobStore; blobObjects?: BlobObjects; log: Log },
  repositoryId: string,
  epochs: number,
  options: { restore?: boolean } = {},
): Promise<ExtendResult> {
  const { ledger, blobStore, blobObjects, log } = deps;
  const info = await ledger.getRepository(repositoryId);
  const packs = await ledger.listPacks(repositoryId, info.liveFrom, info.packCount);
  const chunks = packs.flatMap((pack, offset) => pack.chunks.map((blobId) => ({ index: info.liveFrom + offset, blobId })));
  const answer = await blobStore.lifetimes?.(chunks.map((c) => c.blobId)) ?? null;
  if (answer === null && !options.restore) throw new LifetimesUnknownError();
  const owned = blobObjects === undefined ? new Map<string, OwnedBlob[]>() : await blobObjects.owned(chunks.map((c) => c.blobId));
  const result: ExtendResult = { epoch: answer?.epoch ?? 0, extended: 0, kept: 0, restored: 0, notOwned: [], digest: null, endEpoch: null };
  const target = (answer?.epoch ?? 0) + epochs;
  const ends: number[] = [];
  const extensions = new Map<string, { objectId: string; epochs: number; endEpoch: number }>();
  const toRestore: { index: number; blobId: string }[] = [];
  for (const chunk of chunks) {
    const end = answer?.endEpochs.get(chunk.blobId);
    if (end === null) throw new PackExpiredError(repositoryId, chunk.index, chunk.blobId);
    // The signer's longest-lived Blob object of this blob that is still stored.
    const mine = (owned.get(chunk.blobId) ?? []).filter((o) => answer === null || o.endEpoch > answer.epoch).sort((a, b) => b.endEpoch - a.endEpoch)[0];
    const known = Math.max(end ?? 0, mine?.endEpoch ?? 0);
    if (answer !== null && known >= target) {
      result.kept += 1;
      ends.push(known);
    } else if (answer !== null && mine !== undefined) {
      if (!extensions.has(mine.objectId)) extensions.set(mine.objectId, { objectId: mine.objectId, epochs: target - mine.endEpoch, endEpoch: target });
      ends.push(target);
    } else if (options.restore) {
      toRestore.push(chunk);
    } else {
      result.notOwned.push(chunk);
    }
  }
  const batches = [...extensions.values()];
  for (let start = 0; start < batches.length; start += EXTENSIONS_PER_TRANSACTION) {
    const batch = batches.slice(start, start + EXTENSIONS_PER_TRANSACTION);
    ({ digest: result.digest } = await blobObjects!.extend(batch));
    result.extended += batch.length;
    log.debug(`extended ${batch.length} Blob object(s) to epoch ${target} (transaction ${result.digest})`);
  }
  for (const chunk of toRestore) {
    const bytes = await blobStore.read(chunk.blobId).catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'BLOB_NOT_FOUND') throw new PackExpiredError(repositoryId, chunk.index, chunk.blobId);
      throw error;
    });
    const stored = await blobStore.write(bytes, { epochs });
    log.debug(`stored ${chunk.blobId} of pack #${chunk.index} again${stored.endEpoch === undefined ? '' : ` until epoch ${stored.endEpoch}`}`);
    if (stored.endEpoch !== undefined) ends.push(stored.endEpoch);
    result.restored += 1;
  }
  if (toRestore.length > 0) await blobStore.release?.();
  result.endEpoch = ends.length === 0 || result.notOwned.length > 0 ? null : Math.min(...ends);
  return result;
}
