/**
 * What a helper session loads once its first answer is out (helper-process.ts): the network's adapters, the helper's
 * use-cases and the local repository, all one lazy import, so that the build puts them in one chunk
 * (scripts/already-loaded.ts) and whatever they load lazily finds them loaded.
 */
import { resolve } from 'node:path';
import { UsageError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import type { RepositoryLocator } from '../ports/ledger.ts';
import type { HelperBackend } from '../ports/helper-backend.ts';
import { NativeGitRepository } from '../git/native-repository.ts';
import type { GitConfigSnapshot } from '../git/config-snapshot.ts';
import { createHelperBackend } from '../remote/helper.ts';
import type { HelperOptions } from '../remote/options.ts';
import { accessHistoryOf } from './access-history.ts';
import { openNetwork } from './context.ts';
import { mark } from './marks.ts';

export type OpenedBackend = HelperBackend & { close(): Promise<void> };

/** Opens the network (once `gitConfig`, the git config's `walrus` section, is read) and the backend on it: all a `list` needs. */
export async function openBackend(locator: RepositoryLocator, gitConfig: Promise<GitConfigSnapshot>, options: HelperOptions, log: Log): Promise<OpenedBackend> {
  mark('modules');
  const network = await openNetwork({ env: process.env, log, role: 'helper', gitConfig });
  mark('network');
  const gitDir = process.env.GIT_DIR;
  const local = gitDir ? network.timed(new NativeGitRepository(resolve(gitDir), process.env), 'local', ['receivePack', 'packObjects']) : null;
  const certified = network.requireCertified ? network.certified : undefined;
  if (network.requireCertified && !certified) throw new UsageError(`walrus.requireCertified is set, but network ${network.name} cannot serve certified reads (its node has no gRPC API)`);
  // A network without a market (MarketNotPublishedError) has no leases to tell of: the push says nothing.
  const leasesOf = async (repositoryId: string) => (await network.market()).leasesOfRepository(repositoryId);
  const accessHistory = accessHistoryOf(network);
  const backend = createHelperBackend({ ledger: network.ledger, blobStore: network.blobStore, keyService: network.keyService, local, log, locator, options, leasesOf, accessHistory, ...(certified ? { certified } : {}) });
  return {
    ...backend,
    close: async () => {
      try {
        await backend.close();
      } finally {
        await network.close();
      }
    },
  };
}
