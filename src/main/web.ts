/**
 * Composes `git walrus web`: the active network's ports, the event directory, an object cache under
 * GIT_WALRUS_HOME (one bare repository per repository, filled by `git fetch` through the remote helper), and the
 * HTTP server of src/web.
 */
import { join, resolve } from 'node:path';
import type { WebRun, WebRunOptions } from '../cli/app.ts';
import { gatewayGet, gatewayJson, ndjson, type Signer } from '../cli/gateway-client.ts';
import { walrusHome } from '../config/home.ts';
import { isLoopbackHost } from '../core/loopback.ts';
import type { Log } from '../core/log.ts';
import { GitObjectCache } from '../git/object-cache.ts';
import type { EventView, LogRecord, ReleaseView, StatusView } from '../ports/gateway-api.ts';
import { PackObjectReader } from '../git/pack-reader.ts';
import { artifactSha256 } from '../remote/artifacts.ts';
import type { LeaseGateway } from '../web/app.ts';
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
      leaseGateway: leaseGateway((message) => network.signPersonalMessage(message)),
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

/** The gateway's paths through the CLI's client, signed by `sign`. */
function leaseGateway(sign: Signer): LeaseGateway {
  const path = (lease: string, what: string) => `/v1/leases/${lease}/${what}`;
  return {
    status: (target, signal) => gatewayJson<StatusView>(target, path(target.lease, 'status'), sign, signal),
    releases: async (target, signal) => (await gatewayJson<{ releases: ReleaseView[] }>(target, path(target.lease, 'releases'), sign, signal)).releases,
    events: async (target, signal) => (await gatewayJson<{ events: EventView[] }>(target, path(target.lease, 'events'), sign, signal)).events,
    logs: async (target, tail, signal) => {
      const records: LogRecord[] = [];
      for await (const record of ndjson<LogRecord>(await gatewayGet(target, `${path(target.lease, 'logs')}?tail=${tail}`, sign, signal))) records.push(record);
      return records;
    },
  };
}
