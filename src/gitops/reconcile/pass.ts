import type { V1Job } from '@kubernetes/client-node';
import { InternalError } from '../../core/errors.ts';
import type { Cluster, ObjectRef } from '../../ports/cluster.ts';
import type { PushEvent } from '../../ports/ledger.ts';
import type { AttestationLedger } from '../../ports/attestations.ts';
import type { Release, Templates } from '../../ports/templates.ts';
import type { ProviderOffer } from '../api/offer.ts';
import type { PlannedConfig } from '../api/build-config.ts';
import { appKey, resolveSpec, type ResolvedSpec } from '../api/types.ts';
import { type AppManifest, type Artifact, type Condition, type HeadStatus, type WalrusApp, type WalrusAppStatus } from '../../ports/walrus-app.ts';
import type { EventRecorder } from './events.ts';
import type { ChainHead } from '../watch/head-reader.ts';
import type { ReadAccessCheck } from './repository-access.ts';
import { removeCondition, setCondition, type ConditionUpdate } from './conditions.ts';

/** What one reconcile pass reads and writes. Caches are the informers' (listers); writes go to the API server. */
export interface ReconcileDeps {
  cluster: Pick<Cluster, 'patchAppStatus' | 'createJob' | 'deleteJob' | 'jobPods' | 'podLogTail' | 'apply' | 'readObject' | 'deleteObject' | 'namespaceLabels' | 'admitPod' | 'listConfigMaps' | 'deleteConfigMap'>;
  templates: Templates;
  /** The app as the informer holds it now. */
  app(key: string): WalrusApp | undefined;
  /** Jobs whose controller owner is the app. */
  ownedJobs(app: WalrusApp): V1Job[];
  readHead(repository: string, ref: string | null): Promise<ChainHead>;
  /**
   * The lease's current sealed secrets (their blob and version, never values), or null before any; absent outside
   * provider mode. Asked only for an app of an open lease (a closed lease's app is not applied again).
   */
  leaseSecrets?(leaseId: string): Promise<{ blobId: string; version: number } | null>;
  /**
   * Provider mode: this provider's id and the chain's attestations, for leases whose tenant requires other providers
   * to reproduce a build before it rolls out (steps/check-reproduced.ts); absent outside provider mode.
   */
  reproduction?: { providerId: string; attestations: Pick<AttestationLedger, 'requiredReproductions' | 'tally'> };
  /** Whether the controller may read a private repository (absent: every repository is taken for readable). */
  readAccess?: ReadAccessCheck;
  /** The app now follows this repository (or nothing, when deleted): the chain watcher's index. */
  follow(key: string, repositoryId: string | null): void;
  events: Pick<EventRecorder, 'record'>;
  /** The network the controller serves; an app naming another one is refused. */
  network: string;
  /**
   * The provider's offer: what it allows an app's own manifest (manifest/precedence.ts), and the buildEnv every build
   * gets (its digest is part of the build config hash). How apps are exposed is the templates' (they bind the offer).
   */
  offer: Pick<ProviderOffer, 'maxReplicas'> & Partial<Pick<ProviderOffer, 'buildEnv' | 'keepArtifacts'>>;
  /**
   * Gives up one artifact's Walrus storage (deletes the signer's deletable Blob objects of its blobs), what it did
   * counted; absent: artifacts are kept (no retention).
   */
  reclaimArtifact?(blobId: string): Promise<{ deleted: number; bytes: number; permanent: number; notOwned: number; digest: string | null }>;
  now(): Date;
  log(line: string): void;
}

/** The build a head needs: one Job per (commit, build settings, attempt). */
export interface PlannedBuild extends PlannedConfig {
  commit: string;
  attempt: number;
  jobName: string;
}

/**
 * What the steps find out, each fact set by one step and read by the later ones: a new step that needs something an
 * earlier one knows reads it here, and one that finds something out adds a field.
 */
export interface Facts {
  /** read-head: the repository's object id. */
  repositoryId: string;
  /** read-head: the ref's commit on chain. */
  head: HeadStatus;
  /** read-head: the push that set the ref (from the push log), null when the log has none. */
  push: PushEvent | null;
  /** plan-build. */
  build: PlannedBuild;
  /** build: the artifact of the head's commit, built now or earlier. */
  artifact: Artifact;
  /** build: the app's manifest at the head's commit, as its build read it. */
  manifest: AppManifest;
  /** rollout: the release the Deployment now runs. */
  release: Release;
}

/**
 * The state of one pass over one WalrusApp: the app as read, its resolved spec, the status being written (a copy,
 * patched once at the end) and the conditions being set.
 */
export class Pass {
  readonly app: WalrusApp;
  readonly deps: ReconcileDeps;
  readonly spec: ResolvedSpec;
  readonly status: WalrusAppStatus;
  /** The conditions as the pass found them: each one that changes becomes an Event. */
  readonly before: Condition[];
  conditions: Condition[];
  readonly now: Date;
  readonly #facts: Partial<Facts> = {};

  constructor(app: WalrusApp, deps: ReconcileDeps) {
    this.app = app;
    this.deps = deps;
    this.spec = resolveSpec(app.spec);
    this.status = structuredClone(app.status ?? {});
    this.before = this.status.conditions ?? [];
    this.conditions = [...this.before];
    this.now = deps.now();
    // A changed spec (a fixed build command, new settings) may deploy a commit that failed before, as HelmRelease
    // resets its failure counters on a config change.
    const generation = app.metadata.generation;
    if (this.status.observedGeneration !== undefined && generation !== undefined && generation !== this.status.observedGeneration) {
      delete this.status.failedRevision;
      // ... with its attempts counted afresh.
      delete this.status.build;
    }
  }

  /** `namespace/name`, as log lines start. */
  get key(): string {
    return appKey(this.app);
  }

  set(type: ConditionUpdate['type'], status: ConditionUpdate['status'], reason: string, message: string): void {
    this.conditions = setCondition(this.conditions, { type, status, reason, message }, this.now, this.app.metadata.generation);
  }

  drop(...types: ConditionUpdate['type'][]): void {
    for (const type of types) this.conditions = removeCondition(this.conditions, type);
  }

  learn<K extends keyof Facts>(name: K, value: Facts[K]): void {
    this.#facts[name] = value;
  }

  /** A fact an earlier step set; asking for one no step set is a mistake in the step list. */
  fact<K extends keyof Facts>(name: K): Facts[K] {
    if (!(name in this.#facts)) throw new InternalError(`reconcile step order: no step before this one found out '${name}'`);
    return this.#facts[name] as Facts[K];
  }

  /** An object in the app's namespace. */
  ref(name: string): ObjectRef {
    return { namespace: this.app.metadata.namespace, name };
  }
}
