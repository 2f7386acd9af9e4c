/** Composes `git walrus devnet`: checks the address to bind against this machine's interfaces, then serves. */
import { networkInterfaces } from 'node:os';
import type { DevnetServeOptions, ServedDevnet } from '../cli/app.ts';
import { checkBindAddress } from '../devnet/bind-address.ts';
import { startDevnetServer } from '../devnet/server.ts';

export async function serveDevnet(options: DevnetServeOptions): Promise<ServedDevnet> {
  const host = checkBindAddress(options.host, networkInterfaces());
  const server = await startDevnetServer({ dir: options.dir, port: options.port, host, keyServersDown: options.keyServersDown, storageNodes: options.storageNodes, storageNodesDown: options.storageNodesDown });
  return {
    url: server.url,
    suiRpcUrl: server.suiRpcUrl,
    walrusUrl: server.walrusUrl,
    faucetUrl: server.faucetUrl,
    keyServerObjectIds: server.keyServers.objectIds,
    storageNodeAddresses: server.storageNodes?.addresses ?? [],
    packageId: server.packageId,
    registryId: server.registryId,
    close: () => server.close(),
  };
}
