/**
 * The `WalrusApp` API (docs/architecture.md, The GitOps controller): what a provider writes (spec), what the controller
 * reports (status), and the defaults. One source: the CRD's structural schema (src/gitops/api/crd.ts) is generated from
 * the defaults here, so `kubectl get -o yaml` shows exactly what the controller will use. Pure types and values, no
 * I/O.
 */

import { GROUP } from '../../ports/walrus-app.ts';
import type { BuildSpec, EnvFromSource, EnvVar, HealthSpec, ResourceRequirements, RolloutSpec, RunSpec, WalrusApp, WalrusAppSpec } from '../../ports/walrus-app.ts';

/** Any new value forces a reconcile pass (like Flux's `reconcile.fluxcd.io/requestedAt`); `date +%s` is typical. */
export const RECONCILE_NOW_ANNOTATION = `${GROUP}/reconcile-now`;
/** How many past releases `status.history` keeps. */
export const HISTORY_LIMIT = 10;

/** The spec with every default filled in: what templates and reconcile read. */
export interface ResolvedSpec {
  repository: string;
  ref: string | null;
  network: string | null;
  replicas: number;
  port: number;
  env: EnvVar[];
  envFrom: EnvFromSource[];
  resources: ResourceRequirements;
  build: Required<BuildSpec>;
  run: Required<RunSpec>;
  health: Required<HealthSpec>;
  rollout: Required<RolloutSpec>;
  policy: { allowedPushers: string[] };
  suspend: boolean;
}

/**
 * Where the build's manifest step writes the scripts of the build and test steps (an emptyDir the app's steps read,
 * outside the packed tree).
 */
export const PLAN_DIR = '/walrus-plan';
/** The plan's file listing the manifest's buildSecrets, one name a line (empty: none), which the build-secrets step reads. */
export const BUILD_SECRETS_LIST = 'build-secrets';
/**
 * The plan's wrapper an operator's own spec.build.command puts around its install (`sh /walrus-plan/with-build-secrets.sh
 * npm ci`): that command alone gets the build secrets, and the file is gone after it.
 */
export const BUILD_SECRETS_WRAPPER = 'with-build-secrets.sh';
/**
 * Where the build-secrets step writes the named secrets of the lease (a memory emptyDir only it and the build step
 * mount): the install sources it, then the build step removes it before anything else runs.
 */
export const BUILD_SECRETS_DIR = '/run/walrus-build-secrets';
export const BUILD_SECRETS_FILE = `${BUILD_SECRETS_DIR}/env`;

/**
 * The defaults. The fields an app's manifest may set (replicas, port, build and run commands, health) have no default
 * in the CRD schema: a value there is the operator's and wins over the manifest; these apply when neither says.
 */
export const DEFAULTS = {
  replicas: 1,
  port: 8080,
  build: {
    /** The install and build the manifest step planned (the manifest's `build`, else npm's defaults). */
    command: `sh ${PLAN_DIR}/build.sh`,
    image: 'node:22',
    timeout: 600,
    resources: { limits: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '2Gi' } } as ResourceRequirements,
  },
  run: { command: 'npm start', image: 'node:22' },
  health: { path: '/', periodSeconds: 5, failureThreshold: 3 },
  rollout: { maxSurge: 1 as number | string, maxUnavailable: 0 as number | string, progressDeadlineSeconds: 300 },
} as const;

/** Fills every default in; the API server does the same from the schema, this covers objects read from elsewhere. */
export function resolveSpec(spec: WalrusAppSpec): ResolvedSpec {
  return {
    repository: spec.repository,
    ref: spec.ref || null,
    network: spec.network || null,
    replicas: spec.replicas ?? DEFAULTS.replicas,
    port: spec.port ?? DEFAULTS.port,
    env: spec.env ?? [],
    envFrom: spec.envFrom ?? [],
    resources: spec.resources ?? {},
    build: {
      command: spec.build?.command ?? DEFAULTS.build.command,
      image: spec.build?.image ?? DEFAULTS.build.image,
      timeout: spec.build?.timeout ?? DEFAULTS.build.timeout,
      resources: spec.build?.resources ?? DEFAULTS.build.resources,
    },
    run: { command: spec.run?.command ?? DEFAULTS.run.command, image: spec.run?.image ?? DEFAULTS.run.image },
    health: {
      path: spec.health?.path ?? DEFAULTS.health.path,
      periodSeconds: spec.health?.periodSeconds ?? DEFAULTS.health.periodSeconds,
      failureThreshold: spec.health?.failureThreshold ?? DEFAULTS.health.failureThreshold,
    },
    rollout: {
      maxSurge: spec.rollout?.maxSurge ?? DEFAULTS.rollout.maxSurge,
      maxUnavailable: spec.rollout?.maxUnavailable ?? DEFAULTS.rollout.maxUnavailable,
      progressDeadlineSeconds: spec.rollout?.progressDeadlineSeconds ?? DEFAULTS.rollout.progressDeadlineSeconds,
    },
    policy: { allowedPushers: spec.policy?.allowedPushers ?? [] },
    suspend: spec.suspend ?? false,
  };
}

/** `namespace/name`, the work queue's key. */
export function appKey(app: Pick<WalrusApp, 'metadata'>): string {
  return `${app.metadata.namespace}/${app.metadata.name}`;
}
