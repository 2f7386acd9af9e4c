import { InternalError, messageOf } from '../core/errors.ts';
import { formatOfHashLength } from '../core/object-id.ts';
import type { Log } from '../core/log.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { AccessHistory } from '../ports/access-history.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger, RepositoryInfo, RepositoryLocator } from '../ports/ledger.ts';
import type { HelperBackend } from '../ports/helper-backend.ts';
import type { CertifiedReads } from '../ports/certified.ts';
import type { PackPrefetch } from './fetch.ts';
import { listingOf } from './list.ts';
import type { LocalRepository } from '../ports/local-repository.ts';
import type { LeaseInfo } from '../ports/market.ts';
import { applyOption, endPushBatch } from './options.ts';
import type { HelperOptions } from './options.ts';
import { readRemote } from './remote-state.ts';
import type { RemoteSnapshot } from './remote-state.ts';

/**
 * The fetch and push use-cases (~35 KB of code) load when a session first needs them, not at its start: a `list` that
 * nothing follows (ls-remote, a fetch that finds nothing new) never loads them.
 */
const fetchUseCase = () => import('./fetch.ts');

export interface HelperDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  /** Seal, for private repositories (loaded on first use: a public repository never touches it). */
  keyService?: KeyService;
  /** Null when git runs the helper outside a repository (`git ls-remote walrus://…`). */
  local: LocalRepository | null;
  log: Log;
  /** The repository the URL names. */
  locator: RepositoryLocator;
  /** Shared with the Log, whose level follows `option verbosity`. */
  options: HelperOptions;
  /** Given (walrus.requireCertified): a clone or fetch takes only heads proved against the validators' certificates. */
  certified?: () => Promise<CertifiedReads>;
  /** The repository's leases on the compute market (a push tells which deploy it); absent where there is none. */
  leasesOf?: (repositoryId: string) => Promise<LeaseInfo[]>;
  /** Lets a private repository's pushes share a Seal identity while nobody lost access (src/remote/pack-identity.ts). */
  accessHistory?: AccessHistory;
}

/**
 * The remote helper's use-cases behind the protocol session: list, fetch and push against the ports. `close` ends
 * what the session started and git did not ask for (a pack prefetch after a `list` with no `fetch`).
 */
export function createHelperBackend(deps: HelperDeps): HelperBackend & { close(): Promise<void> } {
  const { ledger, blobStore, keyService, log, options } = deps;
  let repositoryId: Promise<string> | null = null;
  // An id URL needs no lookup (so a no-op fetch stays one chain read); owner/name is resolved once per session.
  const repository = () => (repositoryId ??= 'id' in deps.locator ? Promise.resolve(deps.locator.id) : ledger.resolve(deps.locator));
  const local = () => {
    if (deps.local === null) throw new InternalError('git asked for objects outside a repository');
    return deps.local;
  };
  const progress = () => options.progress && log.verbosity >= 1;
  // The state `list` read serves the fetch or push batch that follows it (git lists right before), so a session
  // reads the chain once; a batch that acts consumes it, and the contract's compare-and-swap catches any race.
  let listed: RemoteSnapshot | null = null;
  const take = () => {
    const snapshot = listed;
    listed = null;
    return snapshot;
  };
  // The packs a clone's `list` found, downloading and indexing while the refs are read and git works on the listing
  // (fetch.ts). It exists before the listing goes out, so the fetch git then asks for takes it.
  let prefetch: PackPrefetch | null = null;
  const takePrefetch = () => {
    const taken = prefetch;
    prefetch = null;
    return taken;
  };
  const startPrefetch = async (info: RepositoryInfo) => {
    if (deps.local === null || prefetch !== null) return;
    const { prefetchPacks } = await fetchUseCase();
    prefetch = prefetchPacks({ ledger, blobStore, keyService, local: deps.local, log }, info, progress());
  };
  // What fetches killed earlier left in quarantine goes while this session works: whether or not git then asks for a
  // fetch (a killed fetch may have applied its pack, so git finds nothing missing). It starts once the listing is
  // out: the git process that finds the object directory would delay the listing.
  let leftovers: Promise<void> | null = null;
  let leftoversWanted = false;
  const removeLeftovers = () => (leftovers ??= deps.local!.removeAbandonedFetches().catch((error: unknown) => log.debug(`leftovers of killed fetches stay: ${messageOf(error)}`)));
  return {
    option: (name, value) => applyOption(options, name, value),
    list: async (forPush) => {
      // A push plans with the signer's address: its key loads while the chain is read (a missing key is reported by
      // the push, which awaits the same promise). The blob-id encoder (a thread, its WebAssembly compiled, its
      // tables built: 0.1-0.4 s) is set up meanwhile too, in its own thread, so that the pack's id does not wait for it.
      if (forPush) {
        ledger.signerAddress().catch(() => {});
        blobStore.prepareWrites?.();
      }
      const id = await repository();
      // Only into a repository with no refs (a clone): its fetch wants every pack. Elsewhere git may want none (the
      // pusher's own repository has them all), and a prefetch would download what is not needed. A repository that
      // kept a listing of this remote has fetched from it, so only one that never listed it asks git whether it has
      // a ref. And only where the repository already has the remote's object format: git sets a clone's format from
      // the listing, after it.
      const into = !forPush ? deps.local : null;
      listed = await readRemote(ledger, id, deps.local, async (info, kept) => {
        if (into === null || kept !== null) return;
        const format = await into.formatWhileEmpty().catch(() => null);
        if (format !== null && format === formatOfHashLength(info.hashLength)) await startPrefetch(info);
      });
      if (!forPush && deps.certified) {
        const { certifyHeads } = await import('./certified-heads.ts');
        await certifyHeads(await deps.certified(), id, listed, ledger.listPushes(id), (line) => log.warn(line));
      }
      if (!forPush && deps.local !== null) {
        leftoversWanted = true;
        setImmediate(removeLeftovers);
      }
      return listingOf(listed, options.reportObjectFormat);
    },
    fetch: async (requests) => {
      const { fetchObjects } = await fetchUseCase();
      return fetchObjects({ ledger, blobStore, keyService, local: local(), log }, await repository(), requests.map((r) => r.id), progress(), take()?.info, options.checkConnectivity, takePrefetch() ?? undefined);
    },
    push: async (requests) => {
      try {
        const { pushRefs } = await import('./push.ts');
        return await pushRefs({ ledger, blobStore, keyService, local: local(), log, ...(deps.leasesOf ? { leasesOf: deps.leasesOf } : {}), ...(deps.accessHistory ? { accessHistory: deps.accessHistory } : {}) }, await repository(), requests, {
          atomic: options.atomic,
          dryRun: options.dryRun,
          progress: progress(),
          leases: options.leases,
        }, take() ?? undefined);
      } finally {
        endPushBatch(options);
      }
    },
    close: async () => {
      await takePrefetch()?.cancel();
      if (leftoversWanted) await removeLeftovers();
    },
  };
}
