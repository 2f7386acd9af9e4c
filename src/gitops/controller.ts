import type { KubernetesObject, V1Deployment, V1Job } from '@kubernetes/client-node';
import { systemClock, type Clock } from '../core/clock.ts';
import { messageOf } from '../core/errors.ts';
import type { Cluster, Informer } from '../ports/cluster.ts';
import type { Companion } from '../ports/companion.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { Templates } from '../ports/templates.ts';
import { appKey } from './api/types.ts';
import { KIND, type WalrusApp } from '../ports/walrus-app.ts';
import { ConflictError } from '../ports/cluster-errors.ts';
import { heldForBuildSecrets } from './reconcile/build-failure.ts';
import { EventRecorder } from './reconcile/events.ts';
import { LeaderElector } from './leader.ts';
import { WorkQueue } from './queue.ts';
import { needsAction } from './reconcile/outcome.ts';
import { reconcile, type ReconcileResult, type Step } from './reconcile/reconcile.ts';
import type { ReconcileDeps } from './reconcile/pass.ts';
import type { ReadAccessCheck } from './reconcile/repository-access.ts';
import { ANNOTATIONS, LABELS, MANAGED_BY, appResourceName } from './templates/names.ts';
import { PROVIDER_ANNOTATIONS } from './api/labels.ts';
import { ChainWatcher, RepositoryIndex } from './watch/chain-watcher.ts';
import { SecretsWatcher, type LeasedApp } from './watch/secrets-watcher.ts';
import { ConfigMapCursorStore } from './watch/cursor-store.ts';
import { HeadReader, certifiedListing } from './watch/head-reader.ts';
import type { CertifiedReads } from '../ports/certified.ts';
import { DEFAULT_OFFER, type ProviderOffer } from './api/offer.ts';
import { ControllerMetrics } from './operate/controller-metrics.ts';
import type { HealthFacts } from './operate/health.ts';
import { measuredLedger } from './operate/measured-ledger.ts';

export interface ControllerOptions {
  cluster: Cluster;
  /** The chain: the heads of the apps' repositories and the push events that move them. */
  ledger: Pick<Ledger, 'resolve' | 'getRepository' | 'listRefs' | 'listPushesAfter' | 'latestPushCursor'>;
  templates: Templates;
  /** What the provider allows an app's own manifest (its offer's replica cap) and gives every build (buildEnv); default DEFAULT_OFFER's. */
  offer?: Pick<ProviderOffer, 'maxReplicas'> & Partial<Pick<ProviderOffer, 'buildEnv'>>;
  /** The network this controller serves, and the package whose events it follows (the cursor's scope). */
  network: string;
  packageId: string;
  /** The namespace whose WalrusApps are served; null = every namespace. */
  namespace: string | null;
  /** Where the Lease and the cursor ConfigMap live. */
  controllerNamespace: string;
  /** Who this replica is (pod name, or host and pid). */
  identity: string;
  leaderElection?: boolean;
  workers?: number;
  /** How often the chain watcher reads new pushes. */
  pollMs?: number;
  /** How often every app is reconciled anyway (with up to 10 % jitter), the safety net under the event paths. */
  resyncMs?: number;
  /** Given: only heads proved against the validators' certificates are built (the offer's requireCertifiedHeads). */
  certified?: CertifiedReads;
  /** Whether this controller may read a private repository (reconcile/repository-access.ts); none: not checked. */
  readAccess?: ReadAccessCheck;
  /**
   * Provider mode: the current sealed secrets of each lease (keyed by lease id; null before any), read together: a
   * pass asks for its app's lease (reconcile/pass.ts `leaseSecrets`), and every poll for all leased apps', so a new
   * version rolls its app out without waiting for the resync (watch/secrets-watcher.ts).
   */
  leaseSecrets?: (leaseIds: readonly string[]) => Promise<ReadonlyMap<string, { blobId: string; version: number } | null>>;
  /** Artifact retention: gives up one artifact's Walrus storage (reconcile/pass.ts `reclaimArtifact`); none: all kept. */
  reclaimArtifact?: ReconcileDeps['reclaimArtifact'];
  /** Provider mode: this provider and the chain's attestations (reconcile/pass.ts `reproduction`). */
  reproduction?: ReconcileDeps['reproduction'];
  /**
   * Whether this controller reconciles WalrusApps (the default); false: only the companions run while it leads (an
   * attester that serves nothing, sharing a cluster with a serving controller whose apps it must leave alone).
   */
  reconcileApps?: boolean;
  /** Run beside the WalrusApp loop while this replica leads, and stop with it (provider mode's reconciler, the attester). */
  companions?: readonly Companion[];
  /** The steps of a pass (reconcile.ts's STEPS unless a test gives its own). */
  steps?: readonly Step[];
  /** The work queue (a new one unless a test records what is done with it). */
  queue?: WorkQueue;
  /** Where passes, builds, rollouts and chain reads are counted (`/metrics`); a new registry by default. */
  metrics?: ControllerMetrics;
  clock?: Clock;
  log(line: string): void;
}

export const LEASE_NAME = 'walrus-gitops-controller';
export const CURSOR_CONFIGMAP = 'walrus-gitops-chain-cursor';
const CHAIN_READS = ['resolve', 'getRepository', 'listRefs', 'listPushesAfter', 'latestPushCursor'] as const;

/**
 * The GitOps controller (docs/architecture.md, The GitOps controller): informers on WalrusApps and on the Jobs and
 * Deployments they own feed a keyed work queue; the chain watcher feeds it the apps whose repository moved; workers
 * run the level-triggered reconcile and requeue each key as its outcome says. Only the elected leader runs any of it.
 */
export class Controller {
  readonly #options: ControllerOptions;
  readonly queue: WorkQueue;
  readonly index = new RepositoryIndex();
  readonly #clock: Clock;
  readonly #heads: HeadReader;
  readonly #events: EventRecorder;
  readonly #elector: LeaderElector | null;
  #apps!: Informer<WalrusApp>;
  #jobs!: Informer<V1Job>;
  #deployments!: Informer<V1Deployment>;
  #informers: Informer<KubernetesObject>[] = [];
  #workers: Promise<void>[] = [];
  readonly #stopped = new AbortController();
  #chain: ChainWatcher;
  readonly #secrets: SecretsWatcher | null;
  /** A pass's read of its app's lease secrets, from the batched read. */
  readonly #leaseSecret: ((leaseId: string) => Promise<{ blobId: string; version: number } | null>) | null;
  readonly metrics: ControllerMetrics;
  #leadingSince: number | null = null;
  #synced = false;
  #chainOkAt: number | null = null;

  constructor(options: ControllerOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.queue = options.queue ?? new WorkQueue({ baseDelayMs: 500, maxDelayMs: 5 * 60_000 });
    this.metrics = options.metrics ?? new ControllerMetrics();
    const ledger = measuredLedger(options.ledger, CHAIN_READS, this.#clock, (method, seconds, failed) => {
      this.metrics.chainRead(method, seconds, failed);
      if (!failed) this.#chainOkAt = this.#clock.now();
    });
    const { certified } = options;
    this.#heads = new HeadReader(ledger, certified ? certifiedListing(certified, options.log) : null);
    this.#events = new EventRecorder({ cluster: options.cluster, component: 'walrus-gitops', instance: options.identity, log: options.log });
    this.#elector = options.leaderElection === false ? null : new LeaderElector({
      cluster: options.cluster, lease: { namespace: options.controllerNamespace, name: LEASE_NAME }, identity: options.identity, clock: this.#clock, log: options.log,
    });
    const store = new ConfigMapCursorStore(options.cluster, { namespace: options.controllerNamespace, name: CURSOR_CONFIGMAP }, { network: options.network, packageId: options.packageId });
    this.#chain = new ChainWatcher({
      feed: ledger, store,
      onPush: (event) => {
        this.#heads.observe(event);
        for (const key of this.index.appsOf(event.repository)) {
          options.log(`${key}: push ${event.seq} to ${event.repository.slice(0, 10)}… (${event.updates.map((u) => u.name).join(', ')})`);
          this.queue.add(key);
        }
      },
    });
    const leaseSecrets = options.leaseSecrets;
    this.#leaseSecret = leaseSecrets ? async (leaseId) => (await leaseSecrets([leaseId])).get(leaseId) ?? null : null;
    this.#secrets = leaseSecrets ? new SecretsWatcher({
      versions: async (leaseIds) => new Map([...await leaseSecrets(leaseIds)].map(([lease, pointer]) => [lease, pointer?.version ?? 0])),
      onChange: (app, version) => {
        const why = app.held !== null && version > app.held ? `its build lacked a build secret at version ${app.held}` : `the pods run ${app.deployed}`;
        options.log(`${app.key}: lease secrets now at version ${version} (${why})`);
        this.queue.add(app.key);
      },
    }) : null;
  }

  /** Runs until `stop()` or, with leader election, until leadership is lost. */
  async run(): Promise<void> {
    if (!this.#elector) {
      await this.#lead();
      await Promise.all(this.#workers);
      return;
    }
    await this.#elector.run(async (lost) => {
      lost.addEventListener('abort', () => this.#shutDown());
      await this.#lead();
    });
    this.#leadingSince = null;
    this.#shutDown();
    await Promise.all(this.#workers);
  }

  async stop(): Promise<void> {
    this.#elector?.stop();
    this.#shutDown();
    await Promise.all(this.#workers);
    await Promise.all((this.#options.companions ?? []).map((companion) => companion.stop()));
  }

  /** What `/healthz` and `/readyz` judge (operate/health.ts). */
  healthFacts(): HealthFacts {
    return {
      leading: this.#leadingSince !== null, synced: this.#synced, stuckMs: this.queue.stuckMs(), waiting: this.queue.length,
      processing: this.queue.processing, chainOkAt: this.#chainOkAt, leadingSince: this.#leadingSince, now: this.#clock.now(),
    };
  }

  /** A Prometheus scrape's body. */
  renderMetrics(): string {
    return this.metrics.render({
      waiting: this.queue.length, processing: this.queue.processing, stuckMs: this.queue.stuckMs(),
      leading: this.#leadingSince !== null, leasesServed: this.#leasesServed(),
    });
  }

  async #lead(): Promise<void> {
    const { cluster, namespace, log } = this.#options;
    this.#leadingSince = this.#clock.now();
    if (this.#options.reconcileApps === false) {
      this.#synced = true;
      log('controller: reconciling no WalrusApps, only its companions run');
      // Held until stopped, as the workers are.
      this.#workers.push(new Promise((resolve) => this.#stopped.signal.addEventListener('abort', () => resolve(), { once: true })));
      for (const companion of this.#options.companions ?? []) companion.start();
      return;
    }
    this.#apps = cluster.informer('walrusapps', { namespace });
    // Only what the controller made: a cluster's other Deployments and Jobs never reach its caches.
    const labelSelector = `${LABELS.managedBy}=${MANAGED_BY}`;
    const deployments = (this.#deployments = cluster.informer('deployments', { namespace, labelSelector }));
    this.#jobs = cluster.informer('jobs', { namespace, labelSelector });
    this.#informers = [this.#apps, deployments, this.#jobs] as Informer<KubernetesObject>[];

    for (const event of ['add', 'update', 'delete'] as const) {
      this.#apps.on(event, (app) => this.queue.add(appKey(app)));
      for (const child of [deployments, this.#jobs] as Informer<KubernetesObject>[]) child.on(event, (object) => this.#enqueueOwner(object));
    }
    // Events may have been missed while a watch was down: every app gets a pass.
    for (const informer of this.#informers) informer.onRestart(() => this.#enqueueAll());
    for (const informer of this.#informers) {
      if (this.#stopped.signal.aborted) return;
      await informer.start();
    }
    if (this.#stopped.signal.aborted) return;
    this.#synced = true;
    log(`controller: watching WalrusApps in ${namespace ?? 'every namespace'} (${this.#apps.list().length} found), network ${this.#options.network}`);

    const workers = this.#options.workers ?? 2;
    for (let n = 0; n < workers; n++) this.#workers.push(this.#work());
    void this.#every(this.#options.pollMs ?? 1000, () => this.#poll());
    const resyncMs = this.#options.resyncMs ?? 5 * 60_000;
    void this.#every(resyncMs, async () => {
      for (const app of this.#apps.list()) this.queue.addAfter(appKey(app), Math.random() * resyncMs * 0.1);
    });
    for (const companion of this.#options.companions ?? []) companion.start();
    await this.#poll();
  }

  #enqueueAll(): void {
    for (const app of this.#apps.list()) this.queue.add(appKey(app));
  }

  #enqueueOwner(object: KubernetesObject): void {
    const owner = object.metadata?.ownerReferences?.find((reference) => reference.controller && reference.kind === KIND);
    if (owner && object.metadata?.namespace) this.queue.add(`${object.metadata.namespace}/${owner.name}`);
  }

  async #poll(): Promise<void> {
    try {
      await this.#chain.poll();
    } catch (error) {
      this.#options.log(`controller: reading new pushes failed: ${messageOf(error)}`);
    }
    try {
      await this.#secrets?.poll(this.#leasedApps());
    } catch (error) {
      this.#options.log(`controller: reading the leases' secrets versions failed: ${messageOf(error)}`);
    }
  }

  /**
   * The apps of leases, with the secrets version their Deployment's pods name (null: no Deployment yet) and the one
   * their held build lacked a build secret at (null: none held).
   */
  #leasedApps(): LeasedApp[] {
    return this.#apps.list().flatMap((app) => {
      const lease = app.metadata.annotations?.[PROVIDER_ANNOTATIONS.lease];
      if (!lease) return [];
      const deployment = this.#deployments.get({ namespace: app.metadata.namespace, name: appResourceName(app) });
      const named = deployment?.spec?.template?.metadata?.annotations?.[ANNOTATIONS.secretsVersion];
      return [{ key: appKey(app), lease, deployed: deployment === undefined ? null : Number(named ?? 0), held: heldForBuildSecrets(app.status) }];
    });
  }

  /** `task` every `ms` until shut down, never two at once. */
  async #every(ms: number, task: () => Promise<void>): Promise<void> {
    const stopped = this.#stopped.signal;
    while (!stopped.aborted) {
      await this.#clock.sleep(ms, stopped);
      if (!stopped.aborted) await task();
    }
  }

  async #work(): Promise<void> {
    const { cluster, templates, network, offer = DEFAULT_OFFER, log } = this.#options;
    for (;;) {
      const key = await this.queue.get();
      if (key === null) return;
      const start = this.#clock.now();
      try {
        const result = await reconcile(key, {
          cluster, templates, network, offer, log,
          app: (wanted) => {
            const [namespace, name] = wanted.split('/');
            return this.#apps.get({ namespace, name });
          },
          ownedJobs: (app) => this.#jobs.list().filter((job) =>
            job.metadata?.namespace === app.metadata.namespace && job.metadata?.ownerReferences?.some((reference) => reference.uid === app.metadata.uid)),
          readHead: (repository, ref) => this.#heads.read(repository, ref),
          ...(this.#options.readAccess ? { readAccess: this.#options.readAccess } : {}),
          ...(this.#leaseSecret ? { leaseSecrets: this.#leaseSecret } : {}),
          ...(this.#options.reclaimArtifact ? { reclaimArtifact: this.#options.reclaimArtifact } : {}),
          ...(this.#options.reproduction ? { reproduction: this.#options.reproduction } : {}),
          follow: (appKeyValue, repositoryId) => (repositoryId === null ? this.index.unfollow(appKeyValue) : this.index.follow(appKeyValue, repositoryId)),
          events: this.#events,
          now: () => new Date(this.#clock.now()),
        }, this.#options.steps);
        this.metrics.pass(result.outcome, (this.#clock.now() - start) / 1000, result.statusError !== undefined);
        if (result.changed) this.metrics.transitions(result.changed);
        this.#requeue(key, result);
      } catch (error) {
        this.metrics.pass('error', (this.#clock.now() - start) / 1000, false);
        // reconcile reports failures as outcomes; this is a fault in the loop itself.
        const delay = this.queue.addRateLimited(key);
        log(`${key}: reconcile failed: ${messageOf(error)}; retry in ${(delay / 1000).toFixed(1)}s`);
      } finally {
        this.queue.done(key);
      }
    }
  }

  /** What the queue does with a key after its pass, as the outcome says (reconcile/outcome.ts), and the log line. */
  #requeue(key: string, { outcome, statusError }: ReconcileResult): void {
    const { log } = this.#options;
    const step = outcome.kind === 'Generic' || outcome.kind === 'Stalling' ? outcome.step : undefined;
    const where = step ? ` (step ${step})` : '';
    if (statusError instanceof ConflictError) {
      // Expected now and then, not a failure: the pass read the app from the cache before the previous pass's status
      // write had reached it, and was refused rather than overwrite that status (reconcile/status.ts).
      const delay = this.queue.addRateLimited(key);
      log(`${key}: the status changed after this pass read the app; its own status is dropped and the app looked at again in ${(delay / 1000).toFixed(1)}s`);
      return;
    }
    if (statusError !== undefined) {
      // The status could not say what happened: both go to the log, and the pass is repeated unless the write
      // itself needs someone to act (a missing permission on walrusapps/status).
      const pass = outcome.kind === 'Generic' || outcome.kind === 'Stalling' ? `; the pass itself: ${outcome.message}${where}` : '';
      if (needsAction(statusError)) {
        this.queue.forget(key);
        log(`${key}: writing the status failed: ${messageOf(statusError)}${pass}; not retried until the app changes`);
      } else {
        const delay = this.queue.addRateLimited(key);
        log(`${key}: writing the status failed: ${messageOf(statusError)}${pass}; retry in ${(delay / 1000).toFixed(1)}s`);
      }
      return;
    }
    switch (outcome.kind) {
      case 'Generic': {
        const delay = this.queue.addRateLimited(key);
        log(`${key}: reconcile failed${where}: ${outcome.message}; retry in ${(delay / 1000).toFixed(1)}s`);
        return;
      }
      case 'Stalling':
        this.queue.forget(key);
        log(`${key}: stalled (${outcome.reason})${where}: ${outcome.message}`);
        return;
      case 'Waiting':
        this.queue.forget(key);
        this.queue.addAfter(key, outcome.afterMs);
        return;
      case 'Settled':
        this.queue.forget(key);
    }
  }

  #shutDown(): void {
    if (this.#stopped.signal.aborted) return;
    this.#leadingSince = null;
    this.#synced = false;
    this.#stopped.abort();
    this.queue.shutDown();
    for (const informer of this.#informers) void informer.stop().catch(() => {});
    for (const companion of this.#options.companions ?? []) void companion.stop();
  }

  /** The leases the companions serve now; null when none serves any (no provider mode). */
  #leasesServed(): number | null {
    const counts = (this.#options.companions ?? []).flatMap((companion) => (companion.served ? [companion.served()] : []));
    return counts.length === 0 ? null : counts.reduce((sum, count) => sum + count, 0);
  }
}
