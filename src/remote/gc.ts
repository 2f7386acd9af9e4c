import { WalrusGitError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger, PackEntry } from '../ports/ledger.ts';
import { fetchObjects } from './fetch.ts';
import type { LocalRepository } from './local-repository.ts';
import { uploadPack } from './push.ts';

export interface GcDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  local: LocalRepository;
  log: Log;
  /** A private repository's consolidated pack is encrypted and its key sealed like any pushed pack's. */
  keyService?: KeyService;
}

export interface GcResult {
  /** The consolidated pack and its index; `live_from` now points at it. */
  pack: PackEntry;
  packIndex: number;
  seq: number;
  /** Live packs before the gc (the consolidated one replaces them for new clones). */
  replaced: number;
}

/** Rounds a gc tries while pushes keep landing under it, before it gives up (nothing is lost either way). */
const MAX_ROUNDS = 3;

/** Pushes kept landing while a gc ran: the repository is unchanged apart from orphan blobs; retry later. */
export class GcRacedError extends WalrusGitError {
  constructor(repository: string, rounds: number) {
    super('GC_RACED', `gc of ${repository} gave up after ${rounds} rounds: a push landed during each; every push is kept, retry when pushes are quieter`, { repository, rounds });
  }
}

/**
 * `git walrus gc` (DESIGN.md §12): uploads one pack of everything the refs reach and appends it with `repack`, which
 * moves `live_from` to it, so a new clone reads that one pack. The local repository (a clone of the remote) is
 * brought up to date first, since the pack is built from its objects.
 *
 * Concurrent pushes are never lost: a push that lands before the repack starts the round again with its refs. A push
 * that lands between the last check and the repack keeps its own (live) pack; then one more round consolidates it,
 * so that `live_from` always names a consolidated pack, which fetch relies on (src/remote/fetch.ts). Returns null
 * when there is at most one live pack already.
 */
export async function collectGarbage(deps: GcDeps, repositoryId: string, progress: boolean): Promise<GcResult | null> {
  const { ledger, log } = deps;
  let replaced: number | null = null;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const info = await ledger.getRepository(repositoryId);
    const live = info.packCount - info.liveFrom;
    replaced ??= live;
    if (round === 1 && live <= 1) return null;
    const refs = await ledger.listRefs(repositoryId);
    const tips = [...new Set(refs.values())];
    await fetchObjects(deps, repositoryId, tips, progress, info);
    const pack = tips.length === 0 ? null : await uploadPack(deps, tips, [], progress, info.private ? repositoryId : null);
    await deps.blobStore.release?.();
    if (pack === null) return null;
    const now = await ledger.getRepository(repositoryId);
    if (now.seq !== info.seq) {
      log.debug(`gc round ${round}: a push landed (seq ${info.seq} → ${now.seq}); consolidating again with its refs`);
      continue;
    }
    const receipt = await ledger.repack(repositoryId, pack, info.packCount);
    if (receipt.seq === info.seq + 1) return { pack, packIndex: info.packCount, seq: receipt.seq, replaced };
    log.debug(`gc round ${round}: a push landed just before the repack (seq ${receipt.seq}); consolidating once more`);
  }
  throw new GcRacedError(repositoryId, MAX_ROUNDS);
}
