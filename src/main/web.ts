/**
 * Composes `git walrus web`: the active network's ports, the event directory, an object cache under
 * GIT_WALRUS_HOME (one bare repository per repository, filled by `git fetch` through the remote helper), and the
 * HTTP server of src/web.
 */
import { join, resolve } from 'node:path';
import type { WebRun, WebRunOptions } from '../cli/app.ts';
import { gatewayJson } from '../cli/gateway-client.ts';
import { walrusHome } from '../config/home.ts';
import { isLoopbackHost } from '../core/loopback.ts';
import type { Log } from '../core/log.ts';
import { GitObjectCache } from '../git/object-cache.ts';
import type { StatusView } from '../ports/gateway-api.ts';
import { PackObjectReader } from '../git/pack-reader.ts';
import { artifactSha256 } from '../remote/artifacts.ts';
import { startWebServer } from '../web/server.ts';
import { openNetwork } from './context.ts';

export async function startWeb(options: WebRunOptions, env: NodeJS.ProcessEnv, log: Log): Promise<WebRun> {
  const network = await openNetwork({ env, log, network: options.network, role: 'web' });
  try {
    // The helper that fills the cache reads the same network as this process.
    const fetchEnv = options.network ? { ...env, GIT_WALRUS_NETWORK: options.network } : env;
    const objectCache = new GitObjectCache({ dir: join(resolve(walrusHome(env)), 'web-cache', network.name), env: fetchEnv });
    const server = await startWebServer({
      ledger: network.ledger,
      blobStore: network.blobStore,
      blobIdOf: network.blobIdOf,
      keyService: network.keyService,
      openPackObjects: () => PackObjectReader.open(),
      directory: await network.directory(),
      objectCache,
      market: network.market,
      artifactSha256: (blobId) => artifactSha256({ blobStore: network.blobStore, archive: network.archive }, blobId),
      viewer: () => network.ledger.signerAddress().catch(() => null),
      leaseStatus: (target, signal) => gatewayJson<StatusView>(target, `/v1/leases/${target.lease}/status`, (message) => network.signPersonalMessage(message), signal),
      networkName: network.name,
      ...(network.certified ? { certified: network.certified } : {}),
      log,
    }, { privateContents: options.allowPrivate, exposed: !isLoopbackHost(options.host) }, { host: options.host, port: options.port });
    return {
      url: server.url,
      ledger: network.ledger,
      close: async () => {
        await server.close();
        await network.close();
      },
    };
  } catch (error) {
    await network.close();
    throw error;
  }
}
