import type { WarmEncoderControl } from '../ports/warm-encoder.ts';
import type { CertifiedReads } from '../ports/certified.ts';
import { WalrusGitError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import type { BlobObjects } from '../ports/blob-objects.ts';
import type { TreeArchive } from '../ports/tree-archive.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { KeyService } from '../ports/key-service.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { MarketLedger } from '../ports/market.ts';
import type { PackObjects } from '../remote/history/verify-repository.ts';
import type { PackCommits } from '../remote/history/show-push.ts';
import type { CreateClone } from '../ports/local-repository.ts';
import type { GitWorkspace } from '../ports/git-workspace.ts';

/**
 * What `git walrus` commands get from the composition root (src/main/cli-process.ts): the active network's ports, the
 * git repository around the working directory, and the output streams. Commands never read the environment.
 */
export interface CliApp {
  /** Opens the active network; `network` (the --network flag) overrides GIT_WALRUS_NETWORK and config. */
  open(options?: { network?: string }): Promise<CliServices>;
  /**
   * The signing key's address and the active network's name, without opening the network (`git walrus whoami`): no
   * chain or storage client, and the embedded network's state untouched.
   */
  identity?(options?: { network?: string }): Promise<{ address: string; networkName: string }>;
  /** The git repository around the working directory. */
  workspace: GitWorkspace;
  /** Command results (the last line of `init` is the remote URL, for scripts). */
  stdout(text: string): void;
  /** Whether stdout is a terminal that may get colour (a TTY, and NO_COLOR unset). */
  stdoutColor: boolean;
  /** Messages and progress (stderr). */
  log: Log;
  /** Raw stderr, for the final `fatal:` line. */
  stderr(text: string): void;
  /** The PATH a local rebuild finds node and npm on (`git walrus artifact rebuild`). */
  toolPath?: string;
  /** What a local rebuild passes on to npm beside PATH: a registry proxy's CA and the proxy settings (`toolEnvironment`). */
  toolEnv?: Record<string, string>;
  /** git walrus's own directory (GIT_WALRUS_HOME), absolute: where `git walrus attest` keeps what it built. */
  homeDir?: string;
  /** Creates a git repository in a new or empty directory (`git walrus checkout`). */
  createClone?: CreateClone;
  /** Composes the GitOps controller (`git walrus controller`). */
  startController?(options: ControllerRunOptions): Promise<ControllerRun>;
  /** Serves the local network (`git walrus devnet`). */
  serveDevnet?(options: DevnetServeOptions): Promise<ServedDevnet>;
  /** Composes and starts the web front end (`git walrus web`). */
  startWeb?(options: WebRunOptions): Promise<WebRun>;
  /** `git walrus gateway`: the provider's gateway (HTTP API for its leases' tenants). */
  startGateway?(options: GatewayRunOptions): Promise<GatewayRun>;
  /** The user's warm encoder (`git walrus daemon`). */
  warmEncoder?: WarmEncoderControl;
  /** This package's version (`git walrus --version`). */
  version?: string;
}

export interface DevnetServeOptions {
  /** State directory, absolute. */
  dir: string;
  port: number;
  /** Address to bind, as given: the composition root checks it is loopback or a local interface's. */
  host: string;
  keyServersDown: number[];
  storageNodes: number;
  storageNodesDown: number[];
  /** `host:port` each storage node registers, as given (empty: their own ports); checked like `host`. */
  storageNodeAddresses: string[];
}

/** A running `git walrus devnet` server: the addresses it prints. */
export interface ServedDevnet {
  url: string;
  suiRpcUrl: string;
  walrusUrl: string;
  faucetUrl: string;
  keyServerObjectIds: readonly string[];
  /** `host:port` of each emulated Walrus storage node as the committee names it (empty without `--storage-nodes`). */
  storageNodeAddresses: readonly string[];
  /** `host:port` each node listens on (the same as `storageNodeAddresses` unless those were advertised otherwise). */
  storageNodeListeners: readonly string[];
  packageId: string;
  registryId: string;
  close(): Promise<void>;
}

export interface WebRunOptions {
  network?: string;
  host: string;
  /** 0: a free port. */
  port: number;
  /** Off the loopback address: show private repositories the key may read only when this is set. */
  allowPrivate: boolean;
}

export interface WebRun {
  /** The base URL it serves, ending in `/`. */
  url: string;
  /** The ledger it reads (to resolve a `<remote|url>` argument to the repository's page). */
  ledger: Ledger;
  close(): Promise<void>;
}

export interface GatewayRunOptions {
  providerId: string;
  kubeconfig?: string;
  network?: string;
  host: string;
  port: number;
}

export interface GatewayRun {
  url: string;
  close(): Promise<void>;
}

export interface ControllerRunOptions {
  kubeconfig?: string;
  namespace?: string;
  controllerNamespace?: string;
  network?: string;
  leaderElection: boolean;
  providerKeySecret?: string;
  pollMs: number;
  /**
   * A JSON file holding the provider's offer (quota, limits, replica cap, images, build env, ingress, egress): with or
   * without provider mode, it bounds apps' manifests, gives every build its env and exposes apps through Ingresses.
   */
  offerFile?: string;
  /** Provider mode: serve the leases of this provider (the key holds its ProviderCap). */
  provider?: ProviderModeOptions;
  /** Serve `/healthz`, `/readyz` and `/metrics` here; none: not served. */
  operations?: OperationsOptions;
}

export interface OperationsOptions {
  host: string;
  port: number;
  /** Keys waiting this long with no pass started or finished fails `/healthz`. */
  wedgedAfterMs: number;
}

export interface ProviderModeOptions {
  providerId: string;
  /** A JSON file holding the WalrusApp spec every lease's app starts from (replicas, port, build, run, health…). */
  appSpecFile?: string;
  intervalMs: number;
  claimEveryMs: number;
  /** Serve the leases that name the provider (the default; off: an attester only). */
  serve: boolean;
  /** Attester mode: rebuild and attest other providers' leases that require reproduction; null: off. */
  attest: { image?: string } | null;
}

export interface ControllerRun {
  /** Resolves when stopped or, with leader election, when leadership is lost. */
  run(): Promise<void>;
  stop(): Promise<void>;
}

export interface CliServices {
  ledger: Ledger;
  blobStore: BlobStore;
  /** How an app artifact's tree is archived (`artifact`, `deployments --verify`). */
  archive: TreeArchive;
  /** The Walrus blob id of `bytes` on the active network, computed locally (`git walrus verify`). */
  blobIdOf(bytes: Uint8Array): Promise<string>;
  /** The user's Walrus Blob objects (`extend`, and deleting what a `gc` replaced); absent where the network's Walrus System object is unknown. */
  blobObjects?: () => Promise<BlobObjects>;
  /** Seal, for a private repository's packs (`show`, `verify --deep`); absent where the network has no key servers. */
  keyService?: KeyService;
  /** A scratch object store that packs are read into (`show`, `verify --deep`); closed by the caller. */
  openPackObjects(): Promise<PackObjects & PackCommits>;
  /** The active network's name (`local`, `devnet`, `testnet`, `mainnet`). */
  networkName: string;
  /** Reads proved against the validators' certificates; absent where the network has no trust anchor. */
  certified?: () => Promise<CertifiedReads>;
  /** The network's compute market (throws where none is known); absent in apps that offer none. */
  market?(): Promise<MarketLedger>;
  /** The key's Sui personal-message signature (requests to a provider's gateway); absent in apps that sign none. */
  signPersonalMessage?(message: Uint8Array): Promise<{ address: string; signature: string }>;
  close(): Promise<void>;
}

/** The yargs arguments every command handler receives: `app` is injected by a middleware. */
export interface CliArgs {
  app: CliApp;
}

/**
 * An expected way to stop (the message is already the whole story): exit with `exitCode`, no stack trace.
 * What to do: nothing beyond the message: it is the whole story (e.g. the problems `verify` listed).
 */
export class ExitError extends WalrusGitError {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super('EXIT', message, { exitCode });
    this.exitCode = exitCode;
  }
}
