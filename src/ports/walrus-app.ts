/**
 * The `WalrusApp` resource as the cluster port carries it (docs/architecture.md, The GitOps controller): its names
 * and field manager, its spec as a provider writes it and its status as the controller reports it. Pure types and
 * constants; the defaults, the CRD schema and everything that reads a spec live in src/gitops/api/.
 */

export const GROUP = 'gitops.walrus-git.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'WalrusApp';
export const PLURAL = 'walrusapps';
export const SINGULAR = 'walrusapp';
export const SHORT_NAMES = ['wapp'] as const;

/** The field manager of every server-side apply and status patch the controller makes. */
export const FIELD_MANAGER = 'walrus-gitops';

/** An environment variable, as in a pod spec (`valueFrom` passed through as written). */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

/** An `envFrom` source (configMapRef / secretRef), passed through as written. */
export type EnvFromSource = Record<string, unknown>;

export interface ResourceRequirements {
  limits?: Record<string, string>;
  requests?: Record<string, string>;
}

export interface BuildSpec {
  /** Shell command run in the checked-out tree (`sh -c`). */
  command?: string;
  /** Image of the untrusted build container. */
  image?: string;
  /** Seconds before the build Job is stopped (`activeDeadlineSeconds`). */
  timeout?: number;
  /** Limits of the build container (cpu, memory, ephemeral-storage). */
  resources?: ResourceRequirements;
}

export interface RunSpec {
  /** Shell command run in the unpacked artifact (`sh -c`), with PORT set. */
  command?: string;
  image?: string;
}

export interface HealthSpec {
  /** HTTP path of the readiness probe. */
  path?: string;
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface RolloutSpec {
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  /** Seconds without progress before the Deployment reports ProgressDeadlineExceeded (then the controller rolls back). */
  progressDeadlineSeconds?: number;
}

export interface PolicySpec {
  /** Sui addresses whose pushes may deploy; unset or empty = any writer of the repository. */
  allowedPushers?: string[];
}

export interface WalrusAppSpec {
  /** The repository, as a walrus:// URL (`walrus://<object id>` or `walrus://<owner>/<name>`). */
  repository: string;
  /** The ref to deploy (`main`, `refs/heads/main`, `v1`); unset = the ref the repository's HEAD points to. */
  ref?: string;
  /** The network the repository lives on; unset = the controller's network. */
  network?: string;
  replicas?: number;
  /** The port the app listens on (given to it as PORT). */
  port?: number;
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  /** Resources of the app container. */
  resources?: ResourceRequirements;
  build?: BuildSpec;
  run?: RunSpec;
  health?: HealthSpec;
  rollout?: RolloutSpec;
  policy?: PolicySpec;
  /** Stops everything but status: no chain reads, builds or applies. */
  suspend?: boolean;
}

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** metav1.Condition. */
export interface Condition {
  type: ConditionType;
  status: ConditionStatus;
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

/**
 * Ready is always present; Reconciling and Stalled only while True (kstatus "abnormal-true" polarity); Built, Released
 * and Remediated describe the latest build, release and rollback.
 */
export type ConditionType = 'Ready' | 'Reconciling' | 'Stalled' | 'Built' | 'Released' | 'Remediated' | 'Reproduced';

/** The deployable result of a build: a deterministic tarball on Walrus. */
export interface Artifact {
  blobId: string;
  /** sha256 of the tarball, lowercase hex. */
  sha256: string;
  size: number;
  /** The Merkle root over the tree's files (path, mode, sha256): what names the differing files of two builds. */
  manifestRoot?: string;
  /** The reproducible build's key, and the Walrus blob id of its build-info record (absent for a build without its report). */
  buildKey?: string;
  buildInfo?: string;
}

/** The ref's commit on chain and the push that set it. */
export interface HeadStatus {
  /** Full ref name, e.g. `refs/heads/main`. */
  ref: string;
  commit: string;
  /** The push's sequence number in the repository's log. */
  seq: number;
  pusher: string;
  transaction: string;
}

/** BuildFailed covers a failed build, failing tests and an invalid manifest; ManifestRefused a manifest beyond the offer. */
export type ReleaseResult = 'Released' | 'BuildFailed' | 'ManifestRefused' | 'RolledBack';

/**
 * The app's own run settings (the `walrus` field of its package.json at the commit), as its build read them: only
 * what the app said, beside where they came from (src/gitops/manifest/manifest.ts parses and checks them).
 */
export interface AppManifest {
  /** The `walrus` field of package.json, or nothing (npm defaults only). */
  source: 'package.json' | 'defaults';
  /** Whether a lockfile is committed (the install is `npm ci` then). */
  lockfile: boolean;
  port?: number;
  health?: { path?: string; periodSeconds?: number; failureThreshold?: number };
  build?: string;
  test?: string;
  start?: string;
  replicas?: number;
  env?: Record<string, string>;
  /** The dependencies whose install scripts run (`npm rebuild` of each); every other install script is held back. */
  allowScripts?: string[];
  /**
   * Names of the lease's secrets the install (`npm ci`/`npm install`) alone sees, for a private registry's token: never
   * the app's build command, the install scripts, the tests, the pack or the artifact.
   */
  buildSecrets?: string[];
}

export interface HistoryEntry {
  commit: string;
  artifact?: Artifact;
  /** The app's manifest at the commit (what it ran with, so a rollback runs it the same way). */
  manifest?: AppManifest;
  result: ReleaseResult;
  /**
   * Artifact retention gave up the artifact's blobs (deleted the provider's deletable Blob objects, or left permanent
   * ones to lapse): this release can no longer be run again without a new build.
   */
  reclaimed?: boolean;
  /** RFC 3339. */
  time: string;
  message: string;
}

/**
 * A build is tried again in a new Job when the infrastructure failed it (a tool step, the pod lost, the node's
 * deadline), up to BUILD_ATTEMPTS times with back-off; the app's own failure ends it at once (reconcile/build-failure.ts).
 */
export interface BuildStatus {
  commit: string;
  configHash: string;
  /** 1-based: the attempt running, waiting to start (retryAt), or that ended the build. */
  attempt: number;
  /** RFC 3339: `attempt` starts no earlier (set while backing off after an infrastructure failure). */
  retryAt?: string;
  /** Why the previous attempt failed. */
  lastFailure?: { reason: string; message: string; time: string };
  /**
   * A leased app's: the version of the lease's secrets when the Job was made. A build that failed for a build secret
   * the lease had not set is built again once the lease's secrets move past it, without a new push.
   */
  secretsVersion?: number;
}

export interface WalrusAppStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  head?: HeadStatus;
  /**
   * The latest successful build: its commit and the hash of the build settings it ran with (buildConfigHash);
   * `buildEnvCounted` when that hash covers the offer's buildEnv (absent on artifacts of earlier controllers).
   */
  artifact?: Artifact & { commit: string; configHash?: string; buildEnvCounted?: boolean };
  /** The commit the Deployment last rolled out successfully. */
  lastAppliedRevision?: string;
  /** A commit whose rollout failed and was rolled back, or whose build failed; not retried until the head moves. */
  failedRevision?: string;
  /** Newest first, at most HISTORY_LIMIT entries. */
  history?: HistoryEntry[];
  /** The latest build of (commit, build config): which attempt runs or ended it, and why the one before failed. */
  build?: BuildStatus;
  /** The app's own manifest at the built commit (package.json `walrus`), as its build read it. */
  manifest?: AppManifest & { commit: string };
  /** Where the app answers: its Ingress host under the provider's domain, set when the Ingress is applied. */
  url?: string;
  /** A digest of how the provider's offer exposes the app, as its objects were last brought in line with (reconcile/align-exposure.ts). */
  exposure?: string;
}

export interface WalrusApp {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: {
    name: string;
    namespace: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    creationTimestamp?: Date;
    deletionTimestamp?: Date;
  };
  spec: WalrusAppSpec;
  status?: WalrusAppStatus;
}
