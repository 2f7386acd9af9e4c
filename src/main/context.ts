import { join } from 'node:path';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import type { Signer } from '@mysten/sui/cryptography';
import { InternalError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { requireContract } from '../config/networks.ts';
import { withFileLock } from '../fs/atomic.ts';
import type { CertifiedSettings, NetworkConfig } from '../config/networks.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { TreeArchive } from '../ports/tree-archive.ts';
import type { BlobObjects } from '../ports/blob-objects.ts';
import { WAL_FAUCET_PATH } from '../core/devnet-protocol.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { MarketLedger } from '../ports/market.ts';
import type { RepositoryDirectory } from '../ports/directory.ts';
import type { CertifiedReads } from '../ports/certified.ts';
import { SuiLedger } from '../sui/ledger.ts';
import { computeBlobId, useWarmEncoder } from '../walrus-protocol/blob-id.ts';
import { HttpBlobStore } from '../walrus/http-blob-store.ts';
import { activeNetwork } from './active-network.ts';
import type { ActiveNetworkOptions } from './active-network.ts';
import { lazyKeyService } from './key-service.ts';
import { countingPorts, faultOf, faultyPorts, forwardingLedger, LEDGER_WRITES, newStats, reportStats, timed } from './instrumented.ts';
import type { LedgerMethod } from './instrumented.ts';
import { ServiceUnreachableError } from '../core/service-unreachable.ts';

/**
 * The composition root: the only code that reads the environment and picks the network and adapters. Everything
 * else receives ports. GIT_WALRUS_HOME, GIT_WALRUS_NETWORK and GIT_WALRUS_KEY work as described in README; with
 * no configuration the embedded `local` network is used.
 */
export interface OpenedNetwork {
  name: string;
  /** The walrus_git package on this network (whose `Pushed` events the GitOps controller follows). */
  packageId: string;
  ledger: Ledger;
  blobStore: BlobStore;
  /** How an app artifact's tree is archived (the deterministic tarball), for every use of artifacts. */
  archive: TreeArchive;
  /** Seal, for private repositories; absent where the network has no key servers (loaded on first use). */
  keyService?: KeyService;
  /** The Walrus blob id of `bytes` on this network (its shard count), computed locally: `git walrus verify`. */
  blobIdOf(bytes: Uint8Array): Promise<string>;
  /** The user's Walrus Blob objects (extend, delete), where the network's Walrus System object is known. */
  blobObjects?: () => Promise<BlobObjects>;
  /** The compute market of this network; throws MarketNotPublishedError where no Market is known. */
  market(): Promise<MarketLedger>;
  /**
   * Reads verified against the validators' certificates, from every configured RPC; absent where the network has no
   * trust anchor (or its node no gRPC API). Loaded on first use.
   */
  certified?: () => Promise<CertifiedReads>;
  /** Clone and fetch refuse heads they cannot prove certified (walrus.requireCertified). */
  requireCertified: boolean;
  /** Every repository and access change, from the package's events (`git walrus web`). */
  directory(): Promise<RepositoryDirectory>;
  /** The key's Sui personal-message signature over `message` (a request to a provider's gateway). */
  signPersonalMessage(message: Uint8Array): Promise<{ address: string; signature: string }>;
  /** `target` with its methods timed into this process's GIT_WALRUS_STATS line (itself when no stats are kept). */
  timed<T extends object>(target: T, name: string, nested?: readonly string[]): T;
  close(): Promise<void>;
}

export interface OpenOptions extends ActiveNetworkOptions {
  log: Log;
  /** Who is asking, for GIT_WALRUS_STATS lines (`helper`, `cli`). */
  role: string;
}

/** Below this balance (MIST) the embedded network's faucet tops the signer up before a transaction. */
const LOCAL_MIN_GAS = 1_000_000_000n;
/** How long a transaction waits for the signer's other transactions (in other git processes) before giving up. */
const SIGNER_LOCK_TIMEOUT_MS = 120_000;

export async function openNetwork(options: OpenOptions): Promise<OpenedNetwork> {
  const { env, home, config, loadKey } = await activeNetwork(options);
  if (config.warmEncoder) useWarmEncoder((await import('./warm-encoder.ts')).warmEncoderOf(home));
  // A push asks for the key's address (its writer check) before any upload, so a missing or unreadable key fails it
  // then; @mysten/sui's keypairs and cryptography, down to zklogin's poseidon constants, load when a transaction is
  // signed.
  let signer: Promise<Signer> | null = null;
  const loadSigner = () => (signer ??= loadKey().then(async ({ material }) => (await import('../config/keys.ts')).keypairOf(material)));
  const signerAddress = async () => (await loadKey()).address;
  const { client, blobStore, close, faucet, walFaucet, walrusSystemObjectId, contract, numShards, keyServerFetch, grpc } = await openAdapters(config, options.log, loadSigner, signerAddress);
  const { packageId, registryId } = contract ?? requireContract(config);
  // One transaction at a time per signer address, across every process sharing this home: they spend the same gas.
  const exclusive = <T>(signerAddress: string, submit: () => Promise<T>) => withFileLock(join(home, 'locks', `${signerAddress}.lock`), submit, SIGNER_LOCK_TIMEOUT_MS);
  const base = new SuiLedger({ client, signer: loadSigner, signerAddress, packageId, registryId, log: options.log, exclusive });
  let ledger: Ledger = describingLedger(base);
  let store: BlobStore = blobStore;
  // On the local networks a faucet pays for transactions; reads never need gas, so they never wait for it.
  let funded: Promise<void> | null = null;
  const fund = faucet
    ? () => (funded ??= (async () => {
      const address = await base.signerAddress();
      const { balance } = await client.core.getBalance({ owner: address });
      if (BigInt(balance.balance) < LOCAL_MIN_GAS) await faucet(address);
    })())
    : undefined;
  if (fund) {
    const funding = forwardingLedger(ledger, (name) => ((LEDGER_WRITES as readonly string[]).includes(name) ? fund() : undefined));
    // A session about to write (a push) checks the balance then, beside its pack and upload, not before its
    // transaction; a failure is reported by the write, which awaits the same promise.
    ledger = { ...funding, prepareWrites: () => { fund().catch(() => {}); funding.prepareWrites?.(); } };
  }
  const marketId = contract?.marketId ?? config.marketId;
  const market = async (): Promise<MarketLedger> => {
    const { SuiMarket } = await import('../sui/market.ts');
    const { MarketNotPublishedError } = await import('../sui/market-errors.ts');
    if (marketId === undefined) throw new MarketNotPublishedError(config.name);
    return new SuiMarket({ client, ledger: base, packageId, marketId, ...(fund ? { beforeWrite: fund } : {}) });
  };
  // Loaded on first use: only `extend` and `gc` touch Blob objects.
  let blobObjects: Promise<BlobObjects> | null = null;
  const openBlobObjects = walrusSystemObjectId === undefined ? undefined : () => (blobObjects ??= import('../walrus/blob-objects.ts').then(({ SuiBlobObjects }) => new SuiBlobObjects({
    client, signer: loadSigner, systemObjectId: walrusSystemObjectId, exclusive, ...(fund ? { beforeWrite: fund } : {}), ...(walFaucet ? { walFaucet } : {}),
  })));
  const fault = faultOf(env.GIT_WALRUS_FAULT);
  if (fault) ({ ledger, blobStore: store } = faultyPorts(ledger, store, fault));
  const statsFile = env.GIT_WALRUS_STATS;
  const stats = newStats();
  if (statsFile) ({ ledger, blobStore: store } = countingPorts(ledger, store, stats));
  const keyService = config.seal && lazyKeyService({
    seal: config.seal,
    client,
    packageId,
    loadSigner,
    fetch: keyServerFetch,
    onRequest: statsFile ? (keys) => { stats.keyServerRequests++; stats.keyServerKeys += keys; } : undefined,
    onDecrypt: statsFile ? () => { stats.sealedKeysDecrypted++; } : undefined,
    log: options.log,
  });
  return {
    name: config.name,
    packageId,
    ledger,
    blobStore: store,
    archive: lazyTarballArchive,
    keyService,
    blobIdOf: (bytes) => computeBlobId(bytes, numShards),
    ...(openBlobObjects ? { blobObjects: openBlobObjects } : {}),
    market,
    ...(config.certified && grpc ? { certified: certifiedReads(config.name, config.certified, grpc, join(home, 'certified', config.name)) } : {}),
    requireCertified: config.certified?.require ?? false,
    directory: async () => new (await import('../sui/directory.ts')).SuiDirectory({ client, packageId }),
    signPersonalMessage: async (message) => {
      const { signature } = await (await loadSigner()).signPersonalMessage(message);
      return { address: await signerAddress(), signature };
    },
    timed: (target, name, nested) => (statsFile ? timed(target, stats, name, nested) : target),
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
  /** Sends gas to an address, where the network is ours and comes with a faucet (`local`, `devnet`). */
  faucet: ((address: string) => Promise<void>) | null;
  /** Sends WAL to an address, where the network's faucet gives it (`local`, `devnet`). */
  walFaucet?: (address: string) => Promise<void>;
  /** The network's Walrus System object, for the user's Blob objects. */
  walrusSystemObjectId?: string;
  contract?: { packageId: string; registryId: string; marketId?: string };
  numShards: number;
  /** How Seal key-server requests travel, where not over the network (the embedded network serves them in process). */
  keyServerFetch?: typeof fetch;
  /** The network's own gRPC endpoint (absent: its node speaks JSON-RPC only). */
  grpc?: { url: string; fetch?: typeof fetch };
}

/** Certified reads over the network's node and the extra RPCs configured, with the committees cached in `cacheDir`. */
function certifiedReads(network: string, settings: CertifiedSettings, own: { url: string; fetch?: typeof fetch }, cacheDir: string): () => Promise<CertifiedReads> {
  let reads: Promise<CertifiedReads> | null = null;
  return () => (reads ??= (async () => {
    const [{ SuiGrpcClient }, { CertifiedSuiReads }, { CommitteeChain }, { committeeFromHex }] = await Promise.all([
      import('@mysten/sui/grpc'), import('../sui/certified-reads.ts'), import('../sui/committee-chain.ts'), import('../sui/anchors.ts'),
    ]);
    const rpc = (url: string, fetchFn?: typeof fetch) => ({ name: url, ledger: new SuiGrpcClient({ baseUrl: url, network, ...(fetchFn ? { fetch: fetchFn } : {}) }).ledgerService });
    const rpcs = [rpc(own.url, own.fetch), ...settings.extraRpcs.map((url) => rpc(url))];
    return new CertifiedSuiReads(rpcs, new CommitteeChain(committeeFromHex(settings.anchor), cacheDir));
  })());
}

async function openAdapters(config: NetworkConfig, log: Log, loadSigner: () => Promise<Signer>, signerAddress: () => Promise<string>): Promise<Adapters> {
  // Blob objects go to the user, who can then extend them (and delete them, when stored deletable).
  const permanent = !config.deletablePacks;
  // Adapters load on demand: a helper talking to a remote network never loads the embedded chain engine.
  if (config.sui.kind === 'embedded') {
    const { openLocalNetwork } = await import('../devnet/local-network.ts');
    const local = await openLocalNetwork(config.stateDir!);
    const client = local.client;
    return {
      client,
      blobStore: new HttpBlobStore({
        publisherUrl: local.walrusUrl, aggregatorUrl: local.walrusUrl, storageNodeUrl: local.walrusUrl, numShards: local.numShards, fetch: local.walrusFetch, epochs: config.storageEpochs,
        permanent, sendObjectTo: signerAddress, log,
      }),
      close: () => local.close(),
      faucet: (address) => local.faucet(address),
      walFaucet: (address) => local.faucetWal(address),
      walrusSystemObjectId: local.walrusSystemObjectId,
      contract: { packageId: local.packageId, registryId: local.registryId, marketId: local.marketId },
      numShards: local.numShards,
      keyServerFetch: local.keyServerFetch,
      grpc: { url: local.suiGrpcUrl, fetch: local.suiGrpcFetch },
    };
  }
  if (config.walrus.kind === 'embedded') throw new InternalError(`network ${config.name}: an embedded Walrus needs the embedded chain`);
  const { suiDeadlineFetch, withDeadlines } = await import('../sui/deadlines.ts');
  const deadlines = suiDeadlineFetch({ url: config.sui.url, timeoutMs: config.timeoutMs, help: unreachableHelp(config, 'the node\'s URL', 'GIT_WALRUS_SUI_URL, git config walrus.suiUrl') });
  const grpc = config.sui.kind === 'grpc' ? { url: config.sui.url, fetch: deadlines.fetch } : undefined;
  const client: ClientWithCoreApi = withDeadlines(config.sui.kind === 'jsonrpc'
    ? await jsonRpcClient(config.sui.url, config.name, deadlines.fetch)
    : new (await import('@mysten/sui/grpc')).SuiGrpcClient({ baseUrl: config.sui.url, network: config.name, fetch: deadlines.fetch }), deadlines);
  if (config.walrus.kind === 'sdk') {
    // No publisher (mainnet): the SDK encodes and stores with the user's key, through the upload relay when set.
    // Building it makes no call: the first one happens at the first read or write.
    // The store pays for storage with the key, which it loads at its first write (reads never need it).
    const { SdkBlobStore } = await import('../walrus/sdk-blob-store.ts');
    const { uploadRelayUrl, numShards, devnetCommittee } = config.walrus;
    const common = { suiClient: client, signer: loadSigner, numShards, epochs: config.storageEpochs, deletable: config.deletablePacks, log };
    let blobStore: InstanceType<typeof SdkBlobStore>;
    if (config.name === 'devnet' && devnetCommittee) blobStore = SdkBlobStore.forDevnet({ ...common, committee: devnetCommittee });
    else if (config.name === 'testnet' || config.name === 'mainnet') blobStore = SdkBlobStore.forNetwork({ ...common, network: config.name, uploadRelayUrl });
    else throw new InternalError(`network ${config.name} cannot write through the Walrus SDK`);
    const faucetUrl = config.name === 'devnet' ? config.faucetUrl : undefined;
    return {
      client,
      blobStore,
      close: async () => {},
      faucet: faucetUrl
        ? async (recipient) => { await (await import('@mysten/sui/faucet')).requestSuiFromFaucetV2({ host: faucetUrl, recipient }); }
        : null,
      ...(faucetUrl ? { walFaucet: (recipient: string) => requestDevnetWal(faucetUrl, recipient) } : {}),
      walrusSystemObjectId: config.walrusSystemObjectId,
      numShards,
      grpc,
    };
  }
  const { publisherUrl, aggregatorUrl, storageNodeUrl, numShards } = config.walrus;
  const faucetUrl = config.name === 'devnet' ? config.faucetUrl : undefined;
  return {
    client,
    blobStore: new HttpBlobStore({
      publisherUrl, aggregatorUrl, storageNodeUrl, numShards, epochs: config.storageEpochs, permanent, sendObjectTo: signerAddress, log,
      answerTimeoutMs: config.timeoutMs, timeoutMs: Math.max(PUBLISHER_TIMEOUT_MS, 10 * config.timeoutMs),
      unreachableHelp: (service) => unreachableHelp(config, `the ${service}'s URL`, WALRUS_URL_SETTINGS[service]),
    }),
    close: async () => {},
    faucet: faucetUrl
      ? async (recipient) => { await (await import('@mysten/sui/faucet')).requestSuiFromFaucetV2({ host: faucetUrl, recipient }); }
      : null,
    ...(faucetUrl ? { walFaucet: (recipient: string) => requestDevnetWal(faucetUrl, recipient) } : {}),
    walrusSystemObjectId: config.walrusSystemObjectId,
    numShards,
    grpc,
  };
}

/** What the ledger's reads were doing, for the error that says a node did not answer them. */
const LEDGER_READING: Partial<Record<LedgerMethod, string>> = {
  resolve: 'reading the repository', getRepository: 'reading the repository', listRefs: 'reading the repository', listPacks: 'reading the repository',
  listPushes: 'reading the push log', listPushesAfter: 'reading the push log', latestPushCursor: 'reading the push log',
};

/** The ledger, whose reads that find a node unreachable say what they were reading (writes say it themselves). */
function describingLedger(ledger: Ledger): Ledger {
  return forwardingLedger(ledger, () => undefined, (name, error) => {
    const reading = LEDGER_READING[name];
    return reading && error instanceof ServiceUnreachableError ? error.during(reading) : error;
  });
}

/** A publisher stores a blob on every storage node before it answers: at least 5 minutes, whatever the deadline. */
const PUBLISHER_TIMEOUT_MS = 300_000;

const WALRUS_URL_SETTINGS = {
  'Walrus aggregator': 'GIT_WALRUS_AGGREGATOR_URL, git config walrus.aggregatorUrl',
  'Walrus publisher': 'GIT_WALRUS_PUBLISHER_URL, git config walrus.publisherUrl',
  'Walrus storage node': 'GIT_WALRUS_AGGREGATOR_URL, git config walrus.aggregatorUrl',
} as const;

/** What to check when a service of `config` does not answer: the devnet server, or the setting that names its URL. */
function unreachableHelp(config: NetworkConfig, what: string, settings: string): string {
  const more = 'GIT_WALRUS_TIMEOUT=<seconds> allows it more time';
  if (config.name === 'devnet') return `is \`git walrus devnet\` still running (GIT_WALRUS_DEVNET_URL)? ${more}`;
  return `check ${what} (${settings}, or the network's section of config.json) and that this machine reaches it; ${more}`;
}

/** A JSON-RPC client (devnet servers that predate gRPC) whose requests go through `fetchFn`. */
async function jsonRpcClient(url: string, network: string, fetchFn: typeof fetch): Promise<ClientWithCoreApi> {
  const { JsonRpcHTTPTransport, SuiJsonRpcClient } = await import('@mysten/sui/jsonRpc');
  return new SuiJsonRpcClient({ transport: new JsonRpcHTTPTransport({ url, fetch: fetchFn }), network });
}

/** WAL from a `git walrus devnet` faucet (POST /v2/wal, the body of the Sui faucet's /v2/gas). */
async function requestDevnetWal(faucetUrl: string, recipient: string): Promise<void> {
  const response = await fetch(new URL(WAL_FAUCET_PATH, faucetUrl), {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient } }),
  });
  if (!response.ok) throw new InternalError(`the devnet faucet at ${faucetUrl} gave no WAL: HTTP ${response.status} ${await response.text().catch(() => '')}`);
}

/**
 * The deterministic tarball, loaded on first use: most processes that open a network (every git remote helper) never
 * touch an artifact, so they do not pay for loading the archive code at start-up.
 */
const loadTarball = () => import('../fs/tarball.ts').then((module) => module.tarballArchive);
const lazyTarballArchive: TreeArchive = {
  pack: async (root, sink) => (await loadTarball()).pack(root, sink),
  unpack: async (source, dir, expectedSha256, label) => (await loadTarball()).unpack(source, dir, expectedSha256, label),
  sha256: async (source) => (await loadTarball()).sha256(source),
};
