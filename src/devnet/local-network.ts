import { join } from 'node:path';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import { ChainEngine } from './chain/engine.ts';
import { DevnetCoreClient } from './chain/core-client.ts';
import { createWalrusService, serviceFetch } from './walrus/service.ts';
import { engineWalrusChain } from './walrus/chain-blobs.ts';
import { WALRUS_SYSTEM_OBJECT_ID } from './chain/fixed-ids.ts';
import { openKeyServers, type DevnetKeyServers } from './seal/key-servers.ts';

/**
 * The embedded `local` network: the chain engine behind an in-process `CoreClient`, and the Walrus service and the
 * Seal key servers behind in-process `fetch`es, over one state directory (`<dir>/chain`, `<dir>/walrus`,
 * `<dir>/seal`) that any number of git processes and `git walrus devnet` servers may share at once. No server, no
 * socket.
 */
export interface LocalNetwork {
  /** The in-process Sui client (`client.core` is the devnet's CoreClient). */
  client: ClientWithCoreApi;
  /**
   * A `fetch` that serves `suiGrpcUrl` in-process: the chain's gRPC-web API exactly as `git walrus devnet` serves it
   * (give both to `SuiGrpcClient`; the certified reads use its ledger service).
   */
  suiGrpcFetch: typeof fetch;
  suiGrpcUrl: string;
  /** A `fetch` that serves `walrusUrl` in-process (publisher and aggregator API). */
  walrusFetch: typeof fetch;
  /** Base URL to give the HTTP blob store together with `walrusFetch`; it is never resolved on a network. */
  walrusUrl: string;
  numShards: number;
  /** A `fetch` that serves the Seal key servers' URLs in-process (give it to `SealClient`). */
  keyServerFetch: typeof fetch;
  /** The key servers themselves (tests take some down). */
  keyServers: DevnetKeyServers;
  packageId: string;
  registryId: string;
  /** The compute market's shared Market object. */
  marketId: string;
  /** Sends the faucet's amount of SUI to `address` (a real faucet transaction on the devnet chain). */
  faucet(address: string): Promise<void>;
  /** Sends the faucet's amount of WAL, which Walrus storage is paid in. */
  faucetWal(address: string): Promise<void>;
  /** The Walrus System object on the devnet chain (Blob objects are extended and deleted through it). */
  walrusSystemObjectId: string;
  close(): Promise<void>;
}

/** The in-process Walrus is addressed by a name that no resolver knows, so nothing can leak to a real network. */
export const LOCAL_WALRUS_URL = 'http://walrus.local.invalid';
export const LOCAL_SUI_GRPC_URL = 'http://sui.local.invalid';

export interface LocalNetworkOptions {
  /** Seal key servers (1-based) to mark down from now on (absent: as the state directory says, see setKeyServersDown). */
  keyServersDown?: Iterable<number>;
}

export async function openLocalNetwork(dir: string, options: LocalNetworkOptions = {}): Promise<LocalNetwork> {
  const engine = await ChainEngine.open(join(dir, 'chain'));
  const walrus = createWalrusService(join(dir, 'walrus'), { chain: engineWalrusChain(engine) });
  await engine.attachWalrus(await walrus.epochClock());
  const keyServers = await openKeyServers(dir, engine, { down: options.keyServersDown });
  return {
    client: new DevnetCoreClient(engine),
    suiGrpcFetch: grpcFetch(engine),
    suiGrpcUrl: LOCAL_SUI_GRPC_URL,
    walrusFetch: serviceFetch(walrus, LOCAL_WALRUS_URL),
    walrusUrl: LOCAL_WALRUS_URL,
    numShards: walrus.numShards,
    keyServerFetch: keyServers.fetch,
    keyServers,
    packageId: engine.genesis.packageId,
    registryId: engine.genesis.registryId,
    marketId: engine.genesis.marketId!,
    faucet: async (address) => {
      await engine.faucet(address);
    },
    faucetWal: async (address) => {
      await engine.faucetWal(address);
    },
    walrusSystemObjectId: WALRUS_SYSTEM_OBJECT_ID,
    close: async () => {},
  };
}

/**
 * The gRPC-web front's handler behind a `fetch`, loaded at the first call: only certified reads take this path, and
 * a helper that never makes one never loads the gRPC services.
 */
function grpcFetch(engine: ChainEngine): typeof fetch {
  let handler: Promise<(request: Request) => Promise<Response>> | undefined;
  return async (input, init) => (await (handler ??= import('./chain/grpc-web.ts').then((m) => m.grpcWebHandler(engine))))(new Request(input, init));
}
