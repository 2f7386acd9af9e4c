/** Composes `git walrus devnet`: checks the address to bind against this machine's interfaces, then serves. */
import { networkInterfaces } from 'node:os';
import type { DevnetServeOptions, ServedDevnet } from '../cli/app.ts';
import { checkAdvertisedAddress, checkBindAddress } from '../devnet/bind-address.ts';
import { startDevnetServer } from '../devnet/server.ts';

export async function serveDevnet(options: DevnetServeOptions): Promise<ServedDevnet> {
  const interfaces = networkInterfaces();
  const host = checkBindAddress(options.host, interfaces);
  const storageNodeAddresses = options.storageNodeAddresses.map((address) => checkAdvertisedAddress(address, interfaces));
  const server = await startDevnetServer({ dir: options.dir, port: options.port, host, keyServersDown: options.keyServersDown, storageNodes: options.storageNodes, storageNodesDown: options.storageNodesDown, storageNodeAddresses });
  return {
    url: server.url,
    suiRpcUrl: server.suiRpcUrl,
    walrusUrl: server.walrusUrl,
    faucetUrl: server.faucetUrl,
    keyServerObjectIds: server.keyServers.objectIds,
    storageNodeAddresses: server.storageNodes?.addresses ?? [],
    storageNodeListeners: server.storageNodes?.listening ?? [],
    packageId: server.packageId,
    registryId: server.registryId,
    close: () => server.close(),
  };
}
