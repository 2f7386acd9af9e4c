import { resolve } from 'node:path';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import { UsageError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { loadSigner } from '../config/keys.ts';
import { walrusHome } from '../config/home.ts';
import { requireContract, resolveNetwork } from '../config/networks.ts';
import type { NetworkConfig } from '../config/networks.ts';
import { openLocalNetwork } from '../devnet/local-network.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger } from '../ports/ledger.ts';
import { SuiLedger } from '../sui/ledger.ts';
import { computeBlobId } from '../walrus/blob-id.ts';
import { HttpBlobStore } from '../walrus/http-blob-store.ts';
import { readWalrusGitConfig } from './git-config.ts';
import { countingPorts, faultOf, faultyPorts, forwardingLedger, LEDGER_WRITES, newStats, reportStats } from './instrumented.ts';

/**
 * The composition root: the only code that reads the environment and picks the network and adapters. Everything
 * else receives ports. GIT_WALRUS_HOME, GIT_WALRUS_NETWORK and GIT_WALRUS_KEY work as described in README; with
 * no configuration the embedded `local` network is used.
 */
export interface OpenedNetwork {
  name: string;
  ledger: Ledger;
  blobStore: BlobStore;
  /** The Walrus blob id of `bytes` on this network (its shard count), computed locally: `git walrus verify`. */
  blobIdOf(bytes: Uint8Array): Promise<string>;
  close(): Promise<void>;
}

export interface OpenOptions {
  env: NodeJS.ProcessEnv;
  log: Log;
  /** Overrides GIT_WALRUS_NETWORK and config (the --network flag). */
  network?: string;
  /** Who is asking, for GIT_WALRUS_STATS lines (`helper`, `cli`). */
  role: string;
}

/** Below this balance (MIST) the embedded network's faucet tops the signer up before a transaction. */
const LOCAL_MIN_GAS = 1_000_000_000n;

export async function openNetwork(options: OpenOptions): Promise<OpenedNetwork> {
  const env = options.network ? { ...options.env, GIT_WALRUS_NETWORK: options.network } : options.env;
  const home = resolve(walrusHome(env));
  const gitConfig = await readWalrusGitConfig(env);
  const config = await resolveNetwork({ env, gitConfig, home });
  const { signer, address } = await loadSigner({ env, home });
  const { client, blobStore, close, fund, contract, numShards } = await openAdapters(config, options.log);
  const { packageId, registryId } = contract ?? requireContract(config);
  let ledger: Ledger = new SuiLedger({ client, signer, packageId, registryId, log: options.log });
  let store: BlobStore = blobStore;
  if (fund) {
    // The embedded network's faucet pays for the first transaction; reads never need gas, so they never wait.
    let funded: Promise<void> | null = null;
    const base = ledger;
    ledger = forwardingLedger(base, (name) => ((LEDGER_WRITES as readonly string[]).includes(name) ? (funded ??= fund(address)) : undefined));
  }
  const fault = faultOf(env.GIT_WALRUS_FAULT);
  if (fault) ({ ledger, blobStore: store } = faultyPorts(ledger, store, fault));
  const statsFile = env.GIT_WALRUS_STATS;
  const stats = newStats();
  if (statsFile) ({ ledger, blobStore: store } = countingPorts(ledger, store, stats));
  return {
    name: config.name,
    ledger,
    blobStore: store,
    blobIdOf: (bytes) => computeBlobId(bytes, numShards),
    close: async () => {
      if (statsFile) reportStats(statsFile, options.role, stats);
      await close();
    },
  };
}

interface Adapters {
  client: ClientWithCoreApi;
  blobStore: BlobStore;
  close(): Promise<void>;
  /** Tops up gas where a faucet is part of the network (embedded only). */
  fund: ((address: string) => Promise<void>) | null;
  contract?: { packageId: string; registryId: string };
  numShards: number;
}

async function openAdapters(config: NetworkConfig, log: Log): Promise<Adapters> {
  if (config.sui.kind === 'embedded') {
    const local = await openLocalNetwork(config.stateDir!);
    const client = local.client;
    return {
      client,
      blobStore: new HttpBlobStore({ publisherUrl: local.walrusUrl, aggregatorUrl: local.walrusUrl, numShards: local.numShards, fetch: local.walrusFetch, epochs: config.storageEpochs, log }),
      close: () => local.close(),
      fund: async (address) => {
        const { balance } = await client.core.getBalance({ owner: address });
        if (BigInt(balance.balance) < LOCAL_MIN_GAS) await local.faucet(address);
      },
      contract: { packageId: local.packageId, registryId: local.registryId },
      numShards: local.numShards,
    };
  }
  if (config.walrus.kind !== 'http') {
    throw new UsageError(`network ${config.name} writes blobs through the Walrus SDK, which this helper does not wire yet; set GIT_WALRUS_PUBLISHER_URL to a publisher`);
  }
  const client: ClientWithCoreApi = config.sui.kind === 'jsonrpc'
    ? new SuiJsonRpcClient({ url: config.sui.url, network: config.name })
    : new SuiGrpcClient({ baseUrl: config.sui.url, network: config.name });
  const { publisherUrl, aggregatorUrl, numShards } = config.walrus;
  return { client, blobStore: new HttpBlobStore({ publisherUrl, aggregatorUrl, numShards, epochs: config.storageEpochs, log }), close: async () => {}, fund: null, numShards };
}
