import { InternalError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger, RepositoryLocator } from '../ports/ledger.ts';
import type { HelperBackend } from '../protocol/session.ts';
import { fetchObjects } from './fetch.ts';
import { listRemote } from './list.ts';
import type { LocalRepository } from './local-repository.ts';
import { applyOption, endPushBatch } from './options.ts';
import type { HelperOptions } from './options.ts';
import { pushRefs } from './push.ts';

export interface HelperDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  /** Null when git runs the helper outside a repository (`git ls-remote walrus://…`). */
  local: LocalRepository | null;
  log: Log;
  /** The repository the URL names. */
  locator: RepositoryLocator;
  /** Shared with the Log, whose level follows `option verbosity`. */
  options: HelperOptions;
}

/** The remote helper's use-cases behind the protocol session: list, fetch and push against the ports. */
export function createHelperBackend(deps: HelperDeps): HelperBackend {
  const { ledger, blobStore, log, options } = deps;
  let repositoryId: Promise<string> | null = null;
  // An id URL needs no lookup (so a no-op fetch stays one chain read); owner/name is resolved once per session.
  const repository = () => (repositoryId ??= 'id' in deps.locator ? Promise.resolve(deps.locator.id) : ledger.resolve(deps.locator));
  const local = () => {
    if (deps.local === null) throw new InternalError('git asked for objects outside a repository');
    return deps.local;
  };
  const progress = () => options.progress && log.verbosity >= 1;
  return {
    option: (name, value) => applyOption(options, name, value),
    list: async () => listRemote(ledger, await repository(), options.reportObjectFormat),
    fetch: async (requests) => {
      await fetchObjects({ ledger, blobStore, local: local(), log }, await repository(), requests.map((r) => r.id), progress());
    },
    push: async (requests) => {
      try {
        return await pushRefs({ ledger, blobStore, local: local(), log }, await repository(), requests, {
          atomic: options.atomic,
          dryRun: options.dryRun,
          progress: progress(),
          leases: options.leases,
        });
      } finally {
        endPushBatch(options);
      }
    },
  };
}
