import { WalrusGitError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger, PackEntry } from '../ports/ledger.ts';
import { fetchObjects } from './fetch.ts';
import type { LocalRepository } from '../ports/local-repository.ts';
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
 * `git walrus gc` (docs/architecture.md, Storage lifecycle): uploads one pack of everything the refs reach and appends
 * it with `repack_at`, which moves `live_from` to it, so a new clone reads that one pack. The local repository (a clone
 * of the remote) is brought up to date first, since the pack is built from its objects.
 *
 * Concurrent pushes are never lost, and the repository stays clonable at every moment: `repack_at` is a
 * compare-and-swap on the seq the pack was built from, so a push that lands at any time before the repack transaction
 * makes it abort, changing nothing; the round then starts again with the push's refs. `live_from` thus only ever
 * names a pack consolidated from the state it replaced, which fetch relies on (src/remote/fetch.ts), even when gc is
 * stopped between rounds. Returns null when there is at most one live pack already.
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
    const pack = tips.length === 0 ? null : await uploadPack(deps, tips, [], progress, info.private ? info : null);
    await deps.blobStore.release?.();
    if (pack === null) return null;
    try {
      const receipt = await ledger.repackAt(repositoryId, pack, info.seq);
      return { pack, packIndex: info.packCount, seq: receipt.seq, replaced };
    } catch (error) {
      if (!isStaleRepack(error)) throw error;
      log.debug(`gc round ${round}: a push landed after seq ${info.seq}; the repack changed nothing, consolidating again with its refs`);
    }
  }
  throw new GcRacedError(repositoryId, MAX_ROUNDS);
}

/** The repack lost its compare-and-swap (`EStaleRepack`): the repository moved on since the pack was built. */
function isStaleRepack(error: unknown): boolean {
  return error instanceof WalrusGitError && error.data.abortName === 'EStaleRepack';
}
