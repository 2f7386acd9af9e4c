import { createHash } from 'node:crypto';
import type { Log } from '../core/log.ts';
import { mapOrdered } from '../core/ordered-parallel.ts';
import type { PackDecryptor } from '../core/pack-cipher.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger, PackEntry, RepositoryInfo } from '../ports/ledger.ts';
import { CorruptPackError, MissingObjectsError } from './errors.ts';
import type { IncomingPack, LocalRepository } from './local-repository.ts';
import { formatBytes, rateOf } from './progress.ts';
import { PackKeys } from './sealed-packs.ts';

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
 * Makes the objects `wanted` present locally (DESIGN.md §4): downloads the packs this repository has not applied yet,
 * verifies each against its on-chain sha256 and applies them in push order. The record of applied packs makes a
 * fetch with nothing new read no blob. `known` is repository state just read (by `list`), saving a chain read.
 */
export async function fetchObjects(deps: FetchDeps, repositoryId: string, wanted: readonly string[], progress: boolean, known?: RepositoryInfo): Promise<void> {
  const { ledger, local, log } = deps;
  const info = known ?? (await ledger.getRepository(repositoryId));
  const from = Math.max(await local.readAppliedPacks(repositoryId), info.liveFrom);
  const missing = async () => {
    const present = await local.presentObjects(wanted);
    return [...new Set(wanted)].filter((id) => !present.has(id));
  };
  if (from < info.packCount) await applyPacks(deps, info, from, progress);
  if ((await missing()).length === 0) return;
  // The refs may be newer than the pack count read beside them (a push landed between the two reads): take the
  // packs pushed since.
  const applied = await local.readAppliedPacks(repositoryId);
  await applyPacks(deps, info, Math.max(applied, info.liveFrom), progress);
  if ((await missing()).length === 0) return;
  // The record says more than the object database holds (e.g. objects pruned since): apply every live pack again.
  if (applied > info.liveFrom) {
    log.debug(`objects missing after pack ${applied}; re-applying packs from ${info.liveFrom}`);
    await applyPacks(deps, info, info.liveFrom, progress);
  }
  const still = await missing();
  if (still.length > 0) throw new MissingObjectsError(repositoryId, still);
}

/**
 * Applies packs `from`… in push order, each streamed into `index-pack` in quarantine and moved in only once its
 * sha256 matched the chain (and, for a private repository, every frame decrypted and authenticated on the way:
 * src/core/pack-cipher.ts). `info` is the repository as read with the pack count, whose membership a private
 * repository's key check uses.
 */
async function applyPacks(deps: FetchDeps, info: RepositoryInfo, from: number, progress: boolean): Promise<void> {
  const { ledger, blobStore, local, log } = deps;
  const repositoryId = info.id;
  const packs = await ledger.listPacks(repositoryId, from);
  if (packs.length === 0) return;
  // Before any download: a user who may not read is told so, and the first keys are in hand.
  const keys = await PackKeys.of(deps, info, packs, from);
  let decryptor = keys === null ? null : await keys.decryptor(0);
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
    await staged!.apply();
    await local.writeAppliedPacks(repositoryId, from + index + 1);
  };
  try {
    const download = async (c: (typeof chunks)[number]) => ({ chunk: await blobStore.read(c.blobId), index: c.pack });
    for await (const { chunk, index } of mapOrdered(chunks, DOWNLOAD_CONCURRENCY, download, { weigh: (c) => c.size, max: DOWNLOAD_BUDGET })) {
      if (index !== pack) {
        if (pack >= 0) {
          await finish(pack, packs[pack]);
          if (keys !== null) decryptor = await keys.decryptor(index);
        }
        pack = index;
        staged = await local.receivePack(progress && log.verbosity >= 2);
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
  } catch (error) {
    await staged?.discard().catch(() => {});
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
