import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { Log } from '../core/log.ts';
import { mapOrdered } from '../core/ordered-parallel.ts';
import type { PackDecryptor } from '../core/pack-cipher.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger, PackEntry, RepositoryInfo } from '../ports/ledger.ts';
import { CorruptPackError, MissingObjectsError, PackMissingError } from './errors.ts';
import type { IncomingPack, LocalRepository } from '../ports/local-repository.ts';
import { formatBytes, rateOf } from './progress.ts';
import { PackKeys, prepareKeys } from './sealed-packs.ts';

export interface FetchDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  local: LocalRepository;
  log: Log;
  /** Opens the data keys of a private repository's packs (never used for a public one). */
  keyService?: KeyService;
}

/** Chunk downloads in flight at most: small chunks (incremental pushes) are latency-bound, so several go at once. */
export const DOWNLOAD_CONCURRENCY = 8;
/**
 * Bytes of chunks held at most: the one being applied plus those downloading or waiting. With 10 MiB chunks that is
 * one applied while the next downloads, which keeps index-pack busy and the helper's memory bounded.
 */
export const DOWNLOAD_BUDGET = 24 * 1024 * 1024;

/**
 * Makes the objects `wanted` present locally (docs/architecture.md, Fetch and clone): downloads the packs this
 * repository has not applied yet, verifies each against its on-chain sha256 and applies them in push order. The record
 * of applied packs makes a fetch with nothing new read no blob. `known` is repository state just read (by `list`),
 * saving a chain read. When a pack is gone and `live_from` has moved past it since that state was read (a `git walrus
 * gc` ran meanwhile and deleted what it replaced), the fetch reads the state again and fetches from the consolidated
 * pack, once.
 */
export async function fetchObjects(deps: FetchDeps, repositoryId: string, wanted: readonly string[], progress: boolean, known?: RepositoryInfo, checkLinks = false, prefetched?: PackPrefetch): Promise<FetchOutcome> {
  const info = known ?? (await deps.ledger.getRepository(repositoryId));
  try {
    return await fetchFrom(deps, repositoryId, info, wanted, progress, checkLinks, prefetched);
  } catch (error) {
    if (!(error instanceof PackMissingError)) throw error;
    // A `git walrus gc` consolidated the packs after this fetch read the state, and deleted the ones it replaced
    // (src/remote/reclaim.ts): the repository as it is now names the consolidated pack, which holds their objects.
    const now = await deps.ledger.getRepository(repositoryId);
    if (error.packIndex >= now.liveFrom) throw error;
    deps.log.debug(`pack ${error.packIndex} is gone and live_from moved to ${now.liveFrom} (a gc ran meanwhile): fetching from there`);
    return await fetchFrom(deps, repositoryId, now, wanted, progress, checkLinks);
  }
}

/** `fetchObjects` from the repository state `info`. */
async function fetchFrom(deps: FetchDeps, repositoryId: string, info: RepositoryInfo, wanted: readonly string[], progress: boolean, checkLinks: boolean, prefetched?: PackPrefetch): Promise<FetchOutcome> {
  const { local, log } = deps;
  const missing = async () => {
    const present = await local.presentObjects(wanted);
    return [...new Set(wanted)].filter((id) => !present.has(id));
  };
  // Connected when every pack this fetch applied was index-pack-checked for links (and it applied one at least).
  let applied = 0;
  const keeps: string[] = [];
  const apply = async (first: number, until?: number) => { applied += await applyPacks(deps, info, first, until, progress, checkLinks, keeps); };
  const outcome = async (): Promise<FetchOutcome> => {
    // git uses the lock of a clone that brought exactly one pack to skip walking that pack's objects; other kept packs
    // (and those a prefetch kept for a fetch that is no clone) are released at once.
    const lock = checkLinks && applied === 1 && keeps.length === 1 ? keeps[0] : null;
    await Promise.all(keeps.filter((keep) => keep !== lock).map((keep) => rm(keep, { force: true })));
    return { connected: checkLinks && applied > 0, lock };
  };
  try {
    if (prefetched !== undefined) {
      const ahead = await prefetched.result();
      keeps.push(...ahead.keeps);
      applied += ahead.applied;
    } else {
      const from = firstPackToApply(await local.readAppliedPacks(repositoryId), info.liveFrom);
      if (from < info.packCount) await apply(from, info.packCount);
    }
    if ((await missing()).length === 0) return await outcome();
    // The refs may be newer than the pack count read beside them (a push landed between the two reads): take the
    // packs pushed since.
    const record = await local.readAppliedPacks(repositoryId);
    await apply(firstPackToApply(record, info.liveFrom));
    if ((await missing()).length === 0) return await outcome();
    // The record says more than the object database holds (e.g. objects pruned since): apply every live pack again.
    if (firstPackToApply(record, info.liveFrom) > info.liveFrom) {
      log.debug(`objects missing after pack ${record}; re-applying packs from ${info.liveFrom}`);
      await apply(info.liveFrom);
    }
    const still = await missing();
    if (still.length > 0) throw new MissingObjectsError(repositoryId, still);
    return await outcome();
  } catch (error) {
    await Promise.all(keeps.map((keep) => rm(keep, { force: true })));
    throw error;
  }
}

export interface FetchOutcome {
  /**
   * Every object the applied packs link to is present: each pack was indexed with its links checked. git then skips
   * its own connectivity walk of a clone (the helper answers `connectivity-ok`).
   */
  connected: boolean;
  /** A pack kept (`.keep`) until git has updated its refs: git removes the file (the helper's `lock` answer). */
  lock: string | null;
}

/**
 * Packs applied ahead of git's `fetch` command. A clone's `list` of many refs, and git's own work on the listing,
 * take a while, during which the packs the listing's repository object names can already download and go through
 * `index-pack`: started as soon as `list` has read that object, they overlap both. Each pack is checked for links
 * and kept (`.keep`) as a clone's are, since `option check-connectivity` comes only after `list`; an ordinary fetch
 * simply releases the keep. If git never asks (`ls-remote` in a repository), `cancel` stops the downloads and
 * releases what was kept: a pack already applied stays, recorded, as any fetch's would, and the next fetch skips it.
 */
export interface PackPrefetch {
  /** The packs applied, with their keep files, which pass to the fetch that takes them (or the error it reports). */
  result(): Promise<{ applied: number; keeps: string[] }>;
  /** Stops what is under way and releases every keep (for a prefetch no fetch took). */
  cancel(): Promise<void>;
}

export function prefetchPacks(deps: FetchDeps, info: RepositoryInfo, progress: boolean): PackPrefetch {
  const controller = new AbortController();
  const keeps: string[] = [];
  const release = () => Promise.all(keeps.splice(0).map((keep) => rm(keep, { force: true })));
  const applied = (async () => {
    const from = firstPackToApply(await deps.local.readAppliedPacks(info.id), info.liveFrom);
    return from < info.packCount ? await applyPacks(deps, info, from, info.packCount, progress, true, keeps, controller.signal) : 0;
  })();
  applied.catch(() => {}); // the fetch that takes the prefetch reports a failure
  return {
    result: async () => {
      try {
        return { applied: await applied, keeps: keeps.splice(0) };
      } catch (error) {
        await release();
        throw error;
      }
    },
    cancel: async () => {
      controller.abort();
      await applied.catch(() => {});
      await release();
    },
  };
}

/**
 * The first pack a repository that has applied `applied` packs needs. `live_from` names the consolidated pack of the
 * last `git walrus gc` (src/remote/gc.ts), which holds only objects of the packs before it: a clone that applied all
 * of those skips it, one that applied fewer reads it instead of the history before it.
 */
export function firstPackToApply(applied: number, liveFrom: number): number {
  if (liveFrom > 0 && applied === liveFrom) return liveFrom + 1;
  return Math.max(applied, liveFrom);
}

/** Above this many packs to apply, a fetch suggests `git walrus gc`. */
export const GC_HINT_PACKS = 50;

/**
 * Applies packs `from`… in push order, each streamed into `index-pack` in quarantine and moved in only once its
 * sha256 matched the chain (and, for a private repository, every frame decrypted and authenticated on the way:
 * src/core/pack-cipher.ts); returns how many. `info` is the repository as read with the pack count, whose membership
 * a private repository's key check uses. `until`: the pack count to stop at (`info`'s, which spares reading the
 * repository again); absent, the packs up to the count on chain now (those pushed since `info` was read included).
 */
async function applyPacks(deps: FetchDeps, info: RepositoryInfo, from: number, until: number | undefined, progress: boolean, checkLinks: boolean, keeps: string[], signal?: AbortSignal): Promise<number> {
  const { ledger, blobStore, local, log } = deps;
  const repositoryId = info.id;
  prepareKeys(deps, info);
  const packs = await ledger.listPacks(repositoryId, from, until);
  if (packs.length === 0) return 0;
  if (packs.length > GC_HINT_PACKS) log.info(`hint: applying ${packs.length} packs, one per push; 'git walrus gc <remote>' consolidates them into one for the next clone`);
  // Before any download: a user who may not read is told so. The first keys are asked for now and awaited before
  // the first pack is staged, so the key servers answer while its chunks download.
  const keys = await PackKeys.of(deps, info, packs, from);
  let decryptor: PackDecryptor | null = null;
  const chunks = packs.flatMap((pack, p) => pack.chunks.map((blobId) => ({ pack: p, blobId, size: chunkSizeBound(pack) })));
  const total = packs.reduce((sum, pack) => sum + pack.size, 0);
  const started = Date.now();
  let received = 0;
  let pack = -1;
  let staged: IncomingPack | null = null;
  let hash = createHash('sha256');
  const write = async (chunk: Uint8Array, into: PackDecryptor | null) => {
    if (into === null) return staged!.write(chunk);
    for (const frame of into.update(chunk)) await staged!.write(frame);
  };
  const finish = async (index: number, entry: PackEntry) => {
    if (decryptor !== null) await staged!.write(decryptor.end());
    const actual = hash.digest('hex');
    if (actual !== entry.sha256.toLowerCase()) {
      await staged!.discard();
      throw new CorruptPackError(repositoryId, from + index, entry.sha256, actual);
    }
    // Git indexes the pack on its own core meanwhile.
    keys?.decryptAhead(index + 1);
    const keep = await staged!.apply();
    if (keep !== null) keeps.push(keep);
    await local.writeAppliedPacks(repositoryId, from + index + 1);
  };
  const receive = () => local.receivePack(progress && log.verbosity >= 2, checkLinks);
  // The first index-pack starts while the first chunk downloads; each later one once the pack before it is applied
  // (its thin deltas may name bases there).
  let first: Promise<IncomingPack> | null = receive();
  first.catch(() => {}); // awaited with the first chunk
  try {
    const download = async (c: (typeof chunks)[number]) => {
      try {
        return { chunk: await blobStore.read(c.blobId, { signal, contentChecked: true }), index: c.pack };
      } catch (error) {
        throw (error as { code?: unknown }).code === 'BLOB_NOT_FOUND' ? new PackMissingError(repositoryId, from + c.pack, c.blobId, error as Error) : error;
      }
    };
    for await (const { chunk, index } of mapOrdered(chunks, DOWNLOAD_CONCURRENCY, download, { weigh: (c) => c.size, max: DOWNLOAD_BUDGET })) {
      signal?.throwIfAborted();
      if (index !== pack) {
        if (pack >= 0) await finish(pack, packs[pack]);
        if (keys !== null) decryptor = await keys.decryptor(index);
        pack = index;
        staged = await (first ?? receive());
        first = null;
        hash = createHash('sha256');
      }
      hash.update(chunk);
      await write(chunk, decryptor);
      received += chunk.byteLength;
      if (progress) log.progress(`Receiving packs: ${percent(received, total)} (${pack + 1}/${packs.length}), ${formatBytes(received)} | ${rateOf(received, started)}`);
    }
    await finish(pack, packs[pack]);
    staged = null;
    if (progress) log.progress(`Receiving packs: 100% (${packs.length}/${packs.length}), ${formatBytes(received)} | ${rateOf(received, started)}, done.`, true);
    return packs.length;
  } catch (error) {
    const open = staged ?? (await first?.catch(() => null));
    await open?.discard().catch(() => {});
    throw error;
  }
}

/**
 * The most any chunk of `pack` can hold. Chunk sizes are not on chain, but all chunks of a pack but the last are the
 * same size c, so (n - 1) * c < size: c < size / (n - 1).
 */
export function chunkSizeBound(pack: PackEntry): number {
  const n = pack.chunks.length;
  return n <= 1 ? pack.size : Math.ceil(pack.size / (n - 1));
}

function percent(done: number, total: number): string {
  return `${String(total === 0 ? 100 : Math.floor((done * 100) / total)).padStart(3)}%`;
}
