import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import type { CliArgs } from './app.ts';
import { untilInterrupted } from './until-interrupted.ts';

interface DevnetArgs extends CliArgs {
  port: number;
  dir: string;
  keyServersDown: number[];
  storageNodes: number;
  storageNodesDown: number[];
  storageNodeAddress: string[];
  host: string;
}

/**
 * `git walrus devnet [--port N] [--dir D] [--host IP]`: serves the local network (Sui JSON-RPC, faucet, Walrus API)
 * on 127.0.0.1 (or `--host`: another loopback address or one of a local interface, e.g. a test network's bridge)
 * over a state directory until SIGINT or SIGTERM. Point clients at it with GIT_WALRUS_NETWORK=devnet and
 * GIT_WALRUS_DEVNET_URL=<the printed URL>.
 */
export const devnetCommand: CommandModule<CliArgs, DevnetArgs> = {
  command: 'devnet',
  describe: 'run the local Sui + Walrus network on 127.0.0.1 (or --host)',
  builder: (y) =>
    y
      .example('$0 devnet --port 9000 --dir ~/devnet', 'serve the local network on 127.0.0.1:9000')
      .example('$0 devnet --key-servers-down 3', 'run with Seal key server 3 down')
      .option('port', { type: 'number', default: 0, describe: 'TCP port (0 = any free port)' })
      .option('dir', { type: 'string', default: '.devnet', describe: 'state directory (shared with other devnet processes)' })
      .example('$0 devnet --storage-nodes 11 --storage-nodes-down 0', 'run 11 Walrus storage nodes (the SDK\'s direct mode), the first one down')
      .option('storage-nodes', { type: 'number', default: 0, describe: 'Walrus storage nodes to emulate, each on its own port: 0 (none: the publisher and aggregator only) or at least 11' })
      .option('storage-nodes-down', { type: 'number', array: true, default: [], describe: 'storage nodes (0-based) to run as down' })
      .example('$0 devnet --storage-nodes 11 --storage-node-address 127.0.0.1:9101 … 127.0.0.1:9111', 'register the nodes at the addresses of proxies in front of them')
      .option('storage-node-address', { type: 'string', array: true, default: [], describe: 'host:port each storage node registers on chain, one per node in order (a proxy or load balancer in front of it: loopback or a local interface); default: its own port' })
      .option('key-servers-down', { type: 'number', array: true, default: [], describe: 'Seal key servers (1-3) to run as down, to try a private clone with too few of them' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to bind: loopback or an address of a local interface' }) as never,
  handler: async (argv) => {
    if (!argv.app.serveDevnet) throw new UsageError('this build of git walrus has no devnet');
    // Loaded by the composition root only here: the chain engine verifies signatures (all of @mysten/sui's
    // cryptography), which no other command needs.
    const server = await argv.app.serveDevnet({ dir: resolve(argv.dir), port: argv.port, host: argv.host ?? '127.0.0.1', keyServersDown: argv.keyServersDown, storageNodes: argv.storageNodes, storageNodesDown: argv.storageNodesDown, storageNodeAddresses: argv.storageNodeAddress });
    argv.app.stdout(
      `devnet: ${server.url}\nsui rpc: ${server.suiRpcUrl}\nwalrus: ${server.walrusUrl}\nfaucet: ${server.faucetUrl}\n` +
        `seal key servers: ${server.keyServerObjectIds.map((id, i) => `${server.url}/seal/${i + 1} (${id})`).join(', ')}\n` +
        (server.storageNodeAddresses.length ? `walrus storage nodes: ${server.storageNodeAddresses.join(', ')}\n` : '') +
        (server.storageNodeListeners.join() !== server.storageNodeAddresses.join() ? `walrus storage nodes listen on: ${server.storageNodeListeners.join(', ')}\n` : '') +
        `package: ${server.packageId}\nregistry: ${server.registryId}\n` +
        `use it with: GIT_WALRUS_NETWORK=devnet GIT_WALRUS_DEVNET_URL=${server.url}\n`,
    );
    const signal = await untilInterrupted();
    await server.close();
    argv.app.log.info(`devnet stopped (${signal})`);
  },
};
