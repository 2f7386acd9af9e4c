import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError, WalrusGitError } from '../core/errors.ts';
import { MAX_EPOCHS_AHEAD } from '../core/blob-lifetime.ts';
import { DEFAULT_TIMEOUT_MS } from '../core/service-unreachable.ts';
import { NETWORK_NAMES } from '../core/network-names.ts';
import { DEVNET_GENESIS_COMMITTEE, DEVNET_SEAL } from '../core/devnet-protocol.ts';
import type { SealConfig } from '../core/devnet-protocol.ts';
import type { NetworkName } from '../core/network-names.ts';
import { discoverDevnet } from './devnet-discovery.ts';
import { readConfigFile } from './home.ts';
import type { Env, NetworkSettings, WalrusConfigFile } from './home.ts';

/**
 * Networks by name. Switching networks is configuration, never a code path: every field the adapters need is here.
 * The name comes from GIT_WALRUS_NETWORK, then `git config walrus.network`, then `$GIT_WALRUS_HOME/config.json`
 * ("network"), else `local`. Each setting is read the same way: environment, git config, the config file's
 * `networks.<name>` section, then the built-in default below.
 */

export type SuiEndpoint = { kind: 'embedded' } | { kind: 'grpc' | 'jsonrpc'; url: string };
export type WalrusEndpoint =
  | { kind: 'embedded' }
  | { kind: 'http'; publisherUrl?: string; aggregatorUrl: string; storageNodeUrl?: string; numShards: number }
  | { kind: 'sdk'; uploadRelayUrl?: string; numShards: number; devnetCommittee?: { systemObjectId: string; stakingObjectId: string } };

export interface NetworkConfig {
  name: NetworkName;
  sui: SuiEndpoint;
  walrus: WalrusEndpoint;
  packageId?: string;
  registryId?: string;
  /** The compute market's shared Market object (GIT_WALRUS_MARKET_ID / walrus.marketId / config "marketId"). */
  marketId?: string;
  faucetUrl?: string;
  /** The network's Seal key servers and threshold, for private repositories; absent where none are configured. */
  seal?: SealConfig;
  /** Storage epochs per pack blob (GIT_WALRUS_EPOCHS / walrus.epochs / config "epochs"; default the maximum, 53). */
  storageEpochs: number;
  /**
   * Store packs as deletable blobs (GIT_WALRUS_DELETABLE_PACKS / walrus.deletablePacks / config "deletablePacks";
   * default false: permanent, so no one can take a pushed pack down before its end epoch).
   */
  deletablePacks: boolean;
  /**
   * Compute blob ids in the user's warm encoder, a daemon that outlives one helper (GIT_WALRUS_WARM_ENCODER /
   * walrus.warmEncoder / config "warmEncoder"; default false). Not a network setting: one daemon serves them all.
   */
  warmEncoder: boolean;
  /** The Walrus System object, through which Blob objects are extended and deleted (absent: not known here). */
  walrusSystemObjectId?: string;
  /** The embedded network's state directory (`local` only): `$GIT_WALRUS_HOME/local`. */
  stateDir?: string;
  /**
   * How long a Sui node, a Walrus aggregator or storage node, or a devnet server has to answer one request before it
   * is tried again and, after a few tries, reported unreachable (GIT_WALRUS_TIMEOUT / walrus.timeout, in seconds;
   * default 30). A publisher storing a blob gets ten times as long, at least 5 minutes.
   */
  timeoutMs: number;
  /** Certified reads (checkpoint-certified state), where the network has a trust anchor; absent: not available. */
  certified?: CertifiedSettings;
}

/**
 * What certified reads need: the committee to start from (hex BLS keys, stakes), the RPCs whose answers are each
 * verified (the network's own first), and whether clone and fetch must refuse what they cannot prove.
 */
export interface CertifiedSettings {
  anchor: { epoch: number | string; members: { publicKey: string; stake: number | string }[] };
  /** gRPC URLs besides the network's own node (none for the embedded network). */
  extraRpcs: string[];
  require: boolean;
}

/**
 * Seal key servers (their on-chain `KeyServer` object ids, each counted `weight` times, with the API key its operator
 * may require: header `apiKeyName`, secret value `apiKey`, as the SDK's server configs name them) and how many open
 * a key.
 */

/** The Walrus System objects (the Walrus SDK's `TESTNET_WALRUS_PACKAGE_CONFIG` and `MAINNET_WALRUS_PACKAGE_CONFIG`). */
export const WALRUS_SYSTEM_OBJECTS = {
  testnet: '0x6c2547cbbc38025cf3adac45f63cb0a8d12ecf777cdc75a4971612bf97fdf6af',
  mainnet: '0x2134d52768ea07e8c43570ef975eb3e4c27a39fa6396bef985b5abc58d03ddd2',
} as const;

/** Walrus mainnet and testnet both run 1000 shards. */
export const PUBLIC_WALRUS_SHARDS = 1000;
export const MAX_STORAGE_EPOCHS = MAX_EPOCHS_AHEAD;

/** Public endpoints (Mysten Labs). Mainnet has no public publisher: writes go through the SDK and upload relay. */
export const PUBLIC_NETWORKS = {
  testnet: {
    suiUrl: 'https://fullnode.testnet.sui.io:443',
    publisherUrl: 'https://publisher.walrus-testnet.walrus.space',
    aggregatorUrl: 'https://aggregator.walrus-testnet.walrus.space',
    uploadRelayUrl: 'https://upload-relay.testnet.walrus.space',
    faucetUrl: 'https://faucet.testnet.sui.io',
  },
  mainnet: {
    suiUrl: 'https://fullnode.mainnet.sui.io:443',
    aggregatorUrl: 'https://aggregator.walrus-mainnet.walrus.space',
    uploadRelayUrl: 'https://upload-relay.mainnet.walrus.space',
  },
} as const;

/**
 * Our Move package per public network. Empty until the package is published there; users can set the ids
 * themselves meanwhile (GIT_WALRUS_PACKAGE_ID / GIT_WALRUS_REGISTRY_ID).
 */
export const PUBLISHED_PACKAGES: Record<'testnet' | 'mainnet', { packageId?: string; registryId?: string }> = {
  testnet: {},
  mainnet: {},
};

export class PackageNotPublishedError extends WalrusGitError {
  constructor(network: NetworkName) {
    super(
      'PACKAGE_NOT_PUBLISHED',
      `the git-walrus Move package is not yet published on ${network}; publish contracts/ there and set ` +
        'GIT_WALRUS_PACKAGE_ID and GIT_WALRUS_REGISTRY_ID (or `git config walrus.packageId` / `walrus.registryId`, ' +
        `or "networks": {"${network}": {"packageId", "registryId"}} in $GIT_WALRUS_HOME/config.json)`,
      { network },
    );
  }
}

export interface ResolveNetworkInput {
  env: Env;
  gitConfig: (key: string) => string | undefined;
  home: string;
  /** For the devnet discovery call. */
  fetch?: typeof fetch;
}

/** Setting sources, strongest first; `name` is the camelCase key of git config `walrus.<name>` and the file. */
function settingReader(input: ResolveNetworkInput, file: WalrusConfigFile, network: NetworkName) {
  return (name: keyof NetworkSettings, envName: string): string | undefined =>
    input.env[envName] || input.gitConfig(`walrus.${name}`) || file.networks?.[network]?.[name] || undefined;
}

export function networkName(input: Pick<ResolveNetworkInput, 'env' | 'gitConfig'>, file: WalrusConfigFile): NetworkName {
  const chosen = input.env.GIT_WALRUS_NETWORK || input.gitConfig('walrus.network') || file.network || 'local';
  if (!(NETWORK_NAMES as readonly string[]).includes(chosen)) {
    throw new UsageError(`unknown network '${chosen}': expected one of ${NETWORK_NAMES.join(', ')} (GIT_WALRUS_NETWORK, git config walrus.network, or "network" in config.json)`, { network: chosen });
  }
  return chosen as NetworkName;
}

export async function resolveNetwork(input: ResolveNetworkInput): Promise<NetworkConfig> {
  const file = readConfigFile(input.home);
  const name = networkName(input, file);
  const setting = settingReader(input, file, name);
  const storageEpochs = epochsSetting(input.env.GIT_WALRUS_EPOCHS || input.gitConfig('walrus.epochs') || file.epochs);
  const deletablePacks = booleanSetting('deletable packs', 'GIT_WALRUS_DELETABLE_PACKS, git config walrus.deletablePacks, or "deletablePacks" in config.json',
    input.env.GIT_WALRUS_DELETABLE_PACKS || input.gitConfig('walrus.deletablePacks') || file.deletablePacks);
  const warmEncoder = booleanSetting('warm encoder', 'GIT_WALRUS_WARM_ENCODER, git config walrus.warmEncoder, or "warmEncoder" in config.json',
    input.env.GIT_WALRUS_WARM_ENCODER || input.gitConfig('walrus.warmEncoder') || file.warmEncoder);

  const timeoutMs = timeoutSetting(input.env.GIT_WALRUS_TIMEOUT || input.gitConfig('walrus.timeout'));
  const apiKeys = setting('sealApiKeys', 'GIT_WALRUS_SEAL_API_KEYS');
  const require = booleanSetting('require certified', 'GIT_WALRUS_REQUIRE_CERTIFIED, git config walrus.requireCertified, or "requireCertified" in the network\'s section of config.json',
    setting('requireCertified', 'GIT_WALRUS_REQUIRE_CERTIFIED'));
  const extraRpcs = (setting('certifiedRpcs', 'GIT_WALRUS_CERTIFIED_RPCS') ?? '').split(',').map((url) => url.trim()).filter((url) => url !== '');
  if (name === 'local') {
    return {
      name, sui: { kind: 'embedded' }, walrus: { kind: 'embedded' }, storageEpochs, deletablePacks, warmEncoder, timeoutMs, stateDir: join(input.home, 'local'), seal: withSealApiKeys(DEVNET_SEAL, apiKeys),
      certified: { anchor: DEVNET_GENESIS_COMMITTEE, extraRpcs: [], require },
    };
  }

  if (name === 'devnet') {
    const url = input.env.GIT_WALRUS_DEVNET_URL || input.gitConfig('walrus.devnetUrl') || file.devnetUrl;
    if (url === undefined) {
      throw new UsageError('network devnet needs the URL that `git walrus devnet` prints: set GIT_WALRUS_DEVNET_URL or `git config walrus.devnetUrl <url>`');
    }
    const info = await discoverDevnet(url, input.fetch, timeoutMs);
    const direct = booleanSetting('direct writes', 'GIT_WALRUS_DIRECT, git config walrus.direct, or "direct" in the network\'s section of config.json', setting('direct', 'GIT_WALRUS_DIRECT'));
    if (direct && (info.walrusStakingObjectId === undefined || info.walrusSystemObjectId === undefined)) {
      throw new UsageError(`walrus.direct needs storage nodes, and the devnet at ${url} runs none: start it with \`git walrus devnet --storage-nodes N\`, or unset GIT_WALRUS_DIRECT`, { url });
    }
    return {
      name,
      // gRPC, the production client's protocol, wherever the server speaks it; JSON-RPC for servers that predate it.
      sui: info.suiGrpcUrl ? { kind: 'grpc', url: info.suiGrpcUrl } : { kind: 'jsonrpc', url: info.suiRpcUrl },
      // Direct: the Walrus SDK encodes and stores slivers on the devnet's storage nodes itself, paying in WAL.
      walrus: direct
        ? { kind: 'sdk', numShards: info.numShards, devnetCommittee: { systemObjectId: info.walrusSystemObjectId!, stakingObjectId: info.walrusStakingObjectId! } }
        : { kind: 'http', publisherUrl: info.walrusUrl, aggregatorUrl: info.walrusUrl, storageNodeUrl: info.walrusUrl, numShards: info.numShards },
      packageId: info.packageId,
      registryId: info.registryId,
      ...(info.marketId ? { marketId: info.marketId } : {}),
      faucetUrl: info.faucetUrl,
      storageEpochs,
      deletablePacks,
      warmEncoder,
      timeoutMs,
      ...(info.walrusSystemObjectId ? { walrusSystemObjectId: info.walrusSystemObjectId } : {}),
      ...(info.seal === undefined ? {} : { seal: withSealApiKeys(info.seal, apiKeys) }),
      // Certification needs the gRPC ledger calls: a JSON-RPC-only server cannot serve a checkpoint's signers.
      ...(info.suiGrpcUrl ? { certified: { anchor: DEVNET_GENESIS_COMMITTEE, extraRpcs, require } } : {}),
    };
  }

  const defaults: { suiUrl: string; aggregatorUrl: string; uploadRelayUrl: string; publisherUrl?: string; faucetUrl?: string } = PUBLIC_NETWORKS[name];
  const publisherUrl = setting('publisherUrl', 'GIT_WALRUS_PUBLISHER_URL');
  const uploadRelayUrl = setting('uploadRelayUrl', 'GIT_WALRUS_UPLOAD_RELAY_URL');
  const aggregatorUrl = setting('aggregatorUrl', 'GIT_WALRUS_AGGREGATOR_URL') ?? defaults.aggregatorUrl;
  // A publisher, when there is one (own or public), is the simplest writer; otherwise the SDK pays with the user's key.
  const walrus: WalrusEndpoint =
    publisherUrl !== undefined || (uploadRelayUrl === undefined && defaults.publisherUrl !== undefined)
      ? { kind: 'http', publisherUrl: publisherUrl ?? defaults.publisherUrl, aggregatorUrl, numShards: PUBLIC_WALRUS_SHARDS }
      : { kind: 'sdk', uploadRelayUrl: uploadRelayUrl ?? defaults.uploadRelayUrl, numShards: PUBLIC_WALRUS_SHARDS };
  const { seal } = sealSetting(setting('sealKeyServers', 'GIT_WALRUS_SEAL_KEY_SERVERS'), setting('sealThreshold', 'GIT_WALRUS_SEAL_THRESHOLD'));
  return {
    name,
    sui: { kind: 'grpc', url: setting('suiUrl', 'GIT_WALRUS_SUI_URL') ?? defaults.suiUrl },
    walrus,
    packageId: setting('packageId', 'GIT_WALRUS_PACKAGE_ID') ?? PUBLISHED_PACKAGES[name].packageId,
    registryId: setting('registryId', 'GIT_WALRUS_REGISTRY_ID') ?? PUBLISHED_PACKAGES[name].registryId,
    marketId: setting('marketId', 'GIT_WALRUS_MARKET_ID'),
    faucetUrl: setting('faucetUrl', 'GIT_WALRUS_FAUCET_URL') ?? defaults.faucetUrl,
    storageEpochs,
    deletablePacks,
    warmEncoder,
    timeoutMs,
    walrusSystemObjectId: WALRUS_SYSTEM_OBJECTS[name],
    ...(seal === undefined ? {} : { seal: withSealApiKeys(seal, apiKeys) }),
    ...anchorSetting(setting('certifiedAnchor', 'GIT_WALRUS_CERTIFIED_ANCHOR'), extraRpcs, require),
  };
}

/**
 * Testnet and mainnet have no anchor built in: certified reads start from a committee the user pins from a source
 * they trust (a JSON file `{epoch, members: [{publicKey: <96-byte hex>, stake}]}`), and are unavailable without one.
 */
function anchorSetting(path: string | undefined, extraRpcs: string[], require: boolean): { certified?: CertifiedSettings } {
  if (path === undefined) {
    if (require) throw new UsageError('walrus.requireCertified needs a trust anchor on this network: set GIT_WALRUS_CERTIFIED_ANCHOR or git config walrus.certifiedAnchor to a committee file');
    return {};
  }
  let anchor: CertifiedSettings['anchor'];
  try {
    anchor = JSON.parse(readFileSync(path, 'utf8')) as CertifiedSettings['anchor'];
  } catch (error) {
    throw new UsageError(`cannot read the certified-reads anchor ${path}: ${(error as Error).message}`, { path });
  }
  if (!Array.isArray(anchor?.members) || anchor.members.some((m) => !/^[0-9a-f]{192}$/.test(String(m.publicKey)) || !/^\d+$/.test(String(m.stake))) || !/^\d+$/.test(String(anchor.epoch))) {
    throw new UsageError(`the certified-reads anchor ${path} must be {"epoch": <n>, "members": [{"publicKey": <96-byte hex>, "stake": <n>}, …]}`, { path });
  }
  return { certified: { anchor, extraRpcs, require } };
}

const SEAL_API_KEYS_HELP = 'GIT_WALRUS_SEAL_API_KEYS="<key server object id>=<header name>:<api key>,…" (or git config walrus.sealApiKeys, ' +
  'or "sealApiKeys" in the network\'s section of config.json)';
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * `seal` with the API keys of `setting` (`<object id>=<header name>:<value>`, comma-separated) on the key servers they
 * name. An API key is a secret: no error message quotes it.
 */
export function withSealApiKeys(seal: SealConfig, setting: string | undefined): SealConfig {
  if (setting === undefined) return seal;
  const keys = new Map<string, { apiKeyName: string; apiKey: string }>();
  for (const [n, entry] of setting.split(',').entries()) {
    const equals = entry.indexOf('=');
    const colon = entry.indexOf(':', equals + 1);
    const id = entry.slice(0, Math.max(equals, 0)).trim();
    const name = equals < 0 || colon < 0 ? '' : entry.slice(equals + 1, colon).trim();
    const value = colon < 0 ? '' : entry.slice(colon + 1).trim();
    if (!/^0x[0-9a-fA-F]{1,64}$/.test(id) || !HEADER_NAME.test(name) || value === '' || /[\0-\x1f\x7f]/.test(value)) {
      throw new UsageError(`invalid Seal API key entry ${n + 1}${/^0x[0-9a-fA-F]{1,64}$/.test(id) ? ` (key server ${id})` : ''}: expected <key server object id>=<header name>:<api key>; set ${SEAL_API_KEYS_HELP}`, { entry: n + 1 });
    }
    const objectId = `0x${id.slice(2).toLowerCase().padStart(64, '0')}`;
    if (!seal.keyServers.some((server) => server.objectId === objectId)) {
      throw new UsageError(`a Seal API key is set for ${objectId}, which is not one of this network's key servers (${seal.keyServers.map((server) => server.objectId).join(', ')}); set ${SEAL_API_KEYS_HELP}`, { objectId });
    }
    if (keys.has(objectId)) throw new UsageError(`two Seal API keys are set for key server ${objectId}; set ${SEAL_API_KEYS_HELP}`, { objectId });
    keys.set(objectId, { apiKeyName: name, apiKey: value });
  }
  return { ...seal, keyServers: seal.keyServers.map((server) => ({ ...server, ...keys.get(server.objectId) })) };
}

const SEAL_SETTINGS_HELP = 'GIT_WALRUS_SEAL_KEY_SERVERS="<key server object id>[:<weight>],…" and GIT_WALRUS_SEAL_THRESHOLD=<n> ' +
  '(or git config walrus.sealKeyServers / walrus.sealThreshold, or "sealKeyServers" and "sealThreshold" in the network\'s section of config.json)';

/** `{ seal }` from the key-server list and threshold settings, or nothing when no key servers are configured. */
export function sealSetting(servers: string | undefined, threshold: string | number | undefined): { seal?: SealConfig } {
  if (servers === undefined) return {};
  const keyServers = servers.split(',').map((entry) => {
    const [id, weight = '1', ...rest] = entry.trim().split(':');
    if (!/^0x[0-9a-fA-F]{1,64}$/.test(id ?? '') || !/^[1-9][0-9]*$/.test(weight) || rest.length > 0) {
      throw new UsageError(`invalid Seal key server '${entry.trim()}': expected <object id>[:<weight>]; set ${SEAL_SETTINGS_HELP}`, { entry });
    }
    return { objectId: `0x${id!.slice(2).toLowerCase().padStart(64, '0')}`, weight: Number(weight) };
  });
  const total = keyServers.reduce((sum, server) => sum + server.weight, 0);
  const n = Number(threshold);
  if (threshold === undefined || !Number.isInteger(n) || n < 1 || n > total) {
    throw new UsageError(`the Seal threshold must be an integer from 1 to ${total} (the key servers' total weight), got '${threshold ?? ''}'; set ${SEAL_SETTINGS_HELP}`, { threshold });
  }
  if (new Set(keyServers.map((server) => server.objectId)).size !== keyServers.length) {
    throw new UsageError(`a Seal key server is listed twice; give it a weight instead (<object id>:<weight>)`, { servers });
  }
  return { seal: { keyServers, threshold: n } };
}

/** The contract ids, or a PackageNotPublishedError that says how to set them. */
export function requireContract(config: NetworkConfig): { packageId: string; registryId: string } {
  if (config.packageId === undefined || config.registryId === undefined) throw new PackageNotPublishedError(config.name);
  return { packageId: config.packageId, registryId: config.registryId };
}

function epochsSetting(value: string | number | undefined): number {
  if (value === undefined) return MAX_STORAGE_EPOCHS;
  const epochs = Number(value);
  if (!Number.isInteger(epochs) || epochs < 1 || epochs > MAX_STORAGE_EPOCHS) {
    throw new UsageError(`storage epochs must be an integer from 1 to ${MAX_STORAGE_EPOCHS}, got '${value}' (GIT_WALRUS_EPOCHS, git config walrus.epochs, or "epochs" in config.json)`, { epochs: value });
  }
  return epochs;
}

function timeoutSetting(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`GIT_WALRUS_TIMEOUT must be a number of seconds greater than 0, got '${value}' (or git config walrus.timeout)`, { timeout: value });
  }
  return Math.round(seconds * 1000);
}

function booleanSetting(what: string, where: string, value: string | boolean | undefined): boolean {
  if (value === undefined || typeof value === 'boolean') return value ?? false;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new UsageError(`${what} must be true or false, got '${value}' (${where})`, { value });
}
