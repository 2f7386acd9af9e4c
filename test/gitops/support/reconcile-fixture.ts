/**
 * One app, the chain head it reads and the cluster it writes to, for the reconcile tests: `deps()` is what a pass
 * gets from the controller, with the cluster a recording fake (fake-cluster.ts), the templates the real ones, and
 * every call to the chain watcher's index, the event recorder and the log written down.
 */
import type { V1ContainerState, V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { buildConfigHash } from '../../../src/gitops/api/build-config.ts';
import { resolveSpec } from '../../../src/gitops/api/types.ts';
import { API_VERSION, KIND, type WalrusApp, type WalrusAppSpec, type WalrusAppStatus } from '../../../src/ports/walrus-app.ts';
import { Pass, type ReconcileDeps } from '../../../src/gitops/reconcile/pass.ts';
import { createTemplates } from '../../../src/gitops/templates/create-templates.ts';
import type { ProviderOffer } from '../../../src/gitops/api/offer.ts';
import type { Templates } from '../../../src/ports/templates.ts';
import type { ChainHead } from '../../../src/gitops/watch/head-reader.ts';
import type { ReadAccessCheck } from '../../../src/gitops/reconcile/repository-access.ts';
import type { PushEvent } from '../../../src/ports/ledger.ts';
import { FakeCluster } from './fake-cluster.ts';

export const NAMESPACE = 'shop';
export const REPOSITORY = `walrus://0x${'ab'.repeat(32)}`;
export const REPOSITORY_ID = `0x${'ab'.repeat(32)}`;
export const oid = (n: number): string => n.toString(16).repeat(40).slice(0, 40);
export const addr = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
export const SHA = 'a'.repeat(64);

export function walrusApp(options: { spec?: Partial<WalrusAppSpec>; status?: WalrusAppStatus; generation?: number } = {}): WalrusApp {
  return {
    apiVersion: API_VERSION, kind: KIND,
    metadata: { name: 'web', namespace: NAMESPACE, uid: 'uid-web', generation: options.generation ?? 1 },
    spec: { repository: REPOSITORY, ref: 'main', ...options.spec },
    ...(options.status ? { status: options.status } : {}),
  };
}

/** The chain's answer for `refs/heads/main` at `commit` (null: no such ref), pushed by `pusher` in push 7. */
export function chainHead(commit: string | null, pusher = addr(1)): ChainHead {
  const ref = 'refs/heads/main';
  if (commit === null) return { repositoryId: REPOSITORY_ID, ref, head: null, push: null };
  const push: PushEvent = {
    repository: REPOSITORY_ID, seq: 7, kind: 0, sender: pusher, timestampMs: 7, updates: [{ name: ref, old: null, new: commit, force: false }],
    pack: null, packIndex: null, liveFrom: 0, logHead: '', txDigest: 'tx7',
  };
  return { repositoryId: REPOSITORY_ID, ref, push, head: { ref, commit, seq: 7, pusher, transaction: 'tx7' } };
}

export class Fixture {
  readonly cluster = new FakeCluster();
  /** The provider's offer: the replica cap manifests get, and (set them before the first pass) the ingress and buildEnv. */
  offer: { maxReplicas: number; ingress?: ProviderOffer['ingress']; buildEnv?: ProviderOffer['buildEnv']; keepArtifacts?: number } = { maxReplicas: 5 };
  #templates: Templates | undefined;
  readonly follows: string[] = [];
  readonly logs: string[] = [];
  /** `Type Reason: message`, as recorded. */
  readonly events: string[] = [];
  readonly jobs: V1Job[] = [];
  head: ChainHead | Error = chainHead(oid(1));
  now = new Date(Date.UTC(2026, 0, 1, 12));
  app: WalrusApp | undefined;
  /** The read-access check of a controller that has one (none: every repository is readable). */
  readAccess: ReadAccessCheck | undefined;
  /** Provider mode: the lease's current sealed secrets, as the chain has them now (none: not provider mode). */
  leaseSecrets: ((leaseId: string) => Promise<{ blobId: string; version: number } | null>) | undefined;
  /** Provider mode's view of attestations (none: no lease is gated). */
  reproduction: ReconcileDeps['reproduction'];

  constructor(app?: WalrusApp) {
    this.app = app;
  }

  get templates(): Templates {
    this.#templates ??= createTemplates({}, this.offer);
    return this.#templates;
  }

  /** The controller restarted with another offer: the templates are made from it from now on. */
  restartWith(offer: Fixture['offer']): void {
    this.offer = offer;
    this.#templates = undefined;
  }

  deps(): ReconcileDeps {
    return {
      cluster: this.cluster,
      templates: this.templates,
      app: (key) => (this.app && `${this.app.metadata.namespace}/${this.app.metadata.name}` === key ? this.app : undefined),
      ownedJobs: () => this.jobs,
      readHead: async () => {
        if (this.head instanceof Error) throw this.head;
        return this.head;
      },
      follow: (key, repositoryId) => { this.follows.push(`${key} → ${repositoryId}`); },
      ...(this.readAccess ? { readAccess: this.readAccess } : {}),
      ...(this.leaseSecrets ? { leaseSecrets: this.leaseSecrets } : {}),
      ...(this.reproduction ? { reproduction: this.reproduction } : {}),
      events: { record: async (_app, type, reason, message) => { this.events.push(`${type} ${reason}: ${message.split('\n')[0]}`); } },
      network: 'devnet',
      offer: this.offer,
      now: () => this.now,
      log: (line) => { this.logs.push(line); },
    };
  }

  pass(): Pass {
    return new Pass(this.app!, this.deps());
  }

  /** The build Job the templates make for (commit, the app's build settings, attempt), in the state given. */
  job(commit: string, state: 'running' | 'succeeded' | 'failed', attempt = 1): V1Job {
    const app = this.app!;
    const job = this.templates.buildJob(app, { commit, configHash: this.configHash(), attempt });
    job.metadata!.ownerReferences = [{ apiVersion: API_VERSION, kind: KIND, name: app.metadata.name, uid: app.metadata.uid!, controller: true }];
    if (state === 'succeeded') job.status = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
    if (state === 'failed') job.status = { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] };
    return job;
  }

  /** The build config hash of the app's settings and the offer's buildEnv. */
  configHash(): string {
    return buildConfigHash(resolveSpec(this.app!.spec), this.offer.buildEnv);
  }
}

const container = (name: string, state: V1ContainerState): V1ContainerStatus => ({ name, image: '', imageID: '', ready: false, restartCount: 0, state });
const exited = (exitCode: number, message?: string): V1ContainerState => ({ terminated: { exitCode, ...(message ? { message } : {}) } });

/** The manifest step's report of an app with no manifest (a lockfile committed). */
export const NO_MANIFEST = JSON.stringify({ source: 'defaults', lockfile: true });

/**
 * A build pod whose steps exited 0, whose manifest step reported `manifest` and whose pack step reported `message`
 * (the artifact, as JSON).
 */
export function packedPod(name: string, message: string | undefined, manifest: string = NO_MANIFEST): V1Pod {
  return {
    metadata: { name },
    status: {
      phase: 'Succeeded',
      initContainerStatuses: [container('checkout', exited(0)), container('manifest', exited(0, manifest)), container('build', exited(0)), container('test', exited(0))],
      containerStatuses: [container('pack', exited(0, message))],
    },
  };
}

/** A build pod whose `step` exited with `exitCode` and the termination message given (the steps before it exited 0). */
export function failedPod(name: string, step: 'checkout' | 'build', exitCode: number, message?: string): V1Pod {
  const waiting: V1ContainerState = { waiting: { reason: 'PodInitializing' } };
  const checkout = step === 'checkout' ? exited(exitCode, message) : exited(0);
  const build = step === 'build' ? exited(exitCode, message) : waiting;
  return {
    metadata: { name, creationTimestamp: new Date(Date.UTC(2026, 0, 1, 11)) },
    status: { phase: 'Failed', initContainerStatuses: [container('checkout', checkout), container('build', build)], containerStatuses: [container('pack', waiting)] },
  };
}
