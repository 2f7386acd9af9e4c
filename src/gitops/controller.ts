import type { KubernetesObject, V1Job } from '@kubernetes/client-node';
import type { Cluster, Informer, WatchedKinds } from '../ports/cluster.ts';
import type { Ledger } from '../ports/ledger.ts';
import { KIND, appKey, type WalrusApp } from './api/types.ts';
import { EventRecorder } from './events.ts';
import { LeaderElector } from './leader.ts';
import { WorkQueue } from './queue.ts';
import { reconcile, type Templates } from './reconcile/reconcile.ts';
import { LABELS, MANAGED_BY } from './templates/index.ts';
import { ChainWatcher, RepositoryIndex } from './watch/chain-watcher.ts';
import { ConfigMapCursorStore } from './watch/cursor-store.ts';
import { HeadReader } from './watch/head-reader.ts';
import { messageOf } from '../core/errors.ts';
import { DEFAULT_OFFER, type ProviderOffer } from './provider/offer.ts';

export interface ControllerOptions {
  cluster: Cluster;
  ledger: Ledger;
  templates: Templates;
  /** What the provider allows an app's own manifest (its offer's replica cap); default DEFAULT_OFFER's. */
  offer?: Pick<ProviderOffer, 'maxReplicas'>;
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
  /** An informer that shows no sign of life (event or reconnection) for this long is restarted. */
  watchdogMs?: number;
  /** Runs beside the WalrusApp loop while this replica leads, and stops with it (provider mode's reconciler). */
  companion?: Companion;
  log(line: string): void;
}

export interface Companion {
  start(): void;
  stop(): Promise<void>;
}

export const LEASE_NAME = 'walrus-gitops-controller';
export const CURSOR_CONFIGMAP = 'walrus-gitops-chain-cursor';

interface Watched<T extends KubernetesObject> {
  name: string;
  informer: Informer<T>;
  lastSign: number;
  restarting: boolean;
  failures: number;
}

/**
 * The GitOps controller (DESIGN.md §9): informers on WalrusApps and on the Jobs and Deployments they own feed a
 * keyed work queue; the chain watcher feeds it the apps whose repository moved; workers run the level-triggered
 * reconcile. Only the elected leader runs any of it.
 */
export class Controller {
  readonly #options: ControllerOptions;
  readonly queue = new WorkQueue({ baseDelayMs: 500, maxDelayMs: 5 * 60_000 });
  readonly index = new RepositoryIndex();
  readonly #heads: HeadReader;
  readonly #events: EventRecorder;
  readonly #elector: LeaderElector | null;
  #apps!: Watched<WalrusApp>;
  #jobs!: Watched<V1Job>;
  #watched: Watched<KubernetesObject>[] = [];
  #timers: NodeJS.Timeout[] = [];
  #workers: Promise<void>[] = [];
  #stopped = false;
  #chain: ChainWatcher;

  constructor(options: ControllerOptions) {
    this.#options = options;
    this.#heads = new HeadReader(options.ledger);
    this.#events = new EventRecorder({ cluster: options.cluster, component: 'walrus-gitops', instance: options.identity, log: options.log });
    this.#elector = options.leaderElection === false ? null : new LeaderElector({
      cluster: options.cluster, lease: { namespace: options.controllerNamespace, name: LEASE_NAME }, identity: options.identity, log: options.log,
    });
    const store = new ConfigMapCursorStore(options.cluster, { namespace: options.controllerNamespace, name: CURSOR_CONFIGMAP }, { network: options.network, packageId: options.packageId });
    this.#chain = new ChainWatcher({
      feed: options.ledger, store,
      onPush: (event) => {
        this.#heads.observe(event);
        for (const key of this.index.appsOf(event.repository)) {
          options.log(`${key}: push ${event.seq} to ${event.repository.slice(0, 10)}… (${event.updates.map((u) => u.name).join(', ')})`);
          this.queue.add(key);
        }
      },
    });
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
    this.#shutDown();
    await Promise.all(this.#workers);
  }

  async stop(): Promise<void> {
    this.#elector?.stop();
    this.#shutDown();
    await Promise.all(this.#workers);
    await this.#options.companion?.stop();
  }

  async #lead(): Promise<void> {
    const { cluster, namespace, log } = this.#options;
    this.#apps = this.#watch('walrusapps', cluster.informer('walrusapps', { namespace }));
    // Only what the controller made: a cluster's other Deployments and Jobs never reach its caches.
    const labelSelector = `${LABELS.managedBy}=${MANAGED_BY}`;
    const deployments = this.#watch('deployments', cluster.informer('deployments', { namespace, labelSelector }));
    this.#jobs = this.#watch('jobs', cluster.informer('jobs', { namespace, labelSelector }));
    this.#watched = [this.#apps, deployments, this.#jobs] as Watched<KubernetesObject>[];

    this.#apps.informer.on('add', (app) => this.queue.add(appKey(app)));
    this.#apps.informer.on('update', (app) => this.queue.add(appKey(app)));
    this.#apps.informer.on('delete', (app) => this.queue.add(appKey(app)));
    for (const child of [deployments, this.#jobs] as Watched<KubernetesObject>[]) {
      for (const event of ['add', 'update', 'delete'] as const) child.informer.on(event, (object) => this.#enqueueOwner(object));
    }
    for (const watched of this.#watched) await this.#startInformer(watched);
    if (this.#stopped) return;
    log(`controller: watching WalrusApps in ${namespace ?? 'every namespace'} (${this.#apps.informer.list().length} found), network ${this.#options.network}`);

    const workers = this.#options.workers ?? 2;
    for (let n = 0; n < workers; n++) this.#workers.push(this.#work());
    this.#every(this.#options.pollMs ?? 1000, () => this.#poll());
    const resyncMs = this.#options.resyncMs ?? 5 * 60_000;
    this.#every(resyncMs, async () => {
      for (const app of this.#apps.informer.list()) this.queue.addAfter(appKey(app), Math.random() * resyncMs * 0.1);
    });
    const watchdogMs = this.#options.watchdogMs ?? 5 * 60_000;
    this.#every(Math.max(1000, watchdogMs / 4), async () => {
      for (const watched of this.#watched) {
        if (!watched.restarting && Date.now() - watched.lastSign > watchdogMs) {
          log(`controller: the ${watched.name} informer showed no sign of life for ${Math.round(watchdogMs / 1000)}s; restarting it`);
          await this.#restart(watched);
        }
      }
    });
    this.#options.companion?.start();
    await this.#poll();
  }

  #watch<K extends keyof WatchedKinds>(name: K, informer: Informer<WatchedKinds[K]>): Watched<WatchedKinds[K]> {
    const watched: Watched<WatchedKinds[K]> = { name, informer, lastSign: Date.now(), restarting: false, failures: 0 };
    const alive = () => { watched.lastSign = Date.now(); watched.failures = 0; };
    for (const event of ['add', 'update', 'delete'] as const) informer.on(event, alive);
    informer.onConnect(alive);
    // client-node stops an informer on most errors: restart it, backing off while it keeps failing.
    informer.onError((error) => {
      if (this.#stopped) return;
      this.#options.log(`controller: the ${name} informer stopped: ${messageOf(error)}; restarting`);
      void this.#restart(watched as Watched<KubernetesObject>);
    });
    return watched;
  }

  async #startInformer(watched: Watched<KubernetesObject>): Promise<void> {
    for (;;) {
      if (this.#stopped) return;
      try {
        await watched.informer.start();
        watched.lastSign = Date.now();
        return;
      } catch (error) {
        watched.failures++;
        const delay = Math.min(1000 * 2 ** (watched.failures - 1), 30_000);
        this.#options.log(`controller: starting the ${watched.name} informer failed: ${messageOf(error)}; again in ${delay / 1000}s`);
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  async #restart(watched: Watched<KubernetesObject>): Promise<void> {
    if (watched.restarting) return;
    watched.restarting = true;
    try {
      await watched.informer.stop().catch(() => {});
      watched.failures++;
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** (watched.failures - 1), 30_000)));
      await this.#startInformer(watched);
      // Events may have been missed while it was down: every app gets a pass.
      for (const app of this.#apps.informer.list()) this.queue.add(appKey(app));
    } finally {
      watched.restarting = false;
    }
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
  }

  #every(ms: number, task: () => Promise<void>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running || this.#stopped) return;
      running = true;
      void task().finally(() => { running = false; });
    }, ms);
    this.#timers.push(timer);
  }

  async #work(): Promise<void> {
    const { cluster, templates, network, offer = DEFAULT_OFFER, log } = this.#options;
    for (;;) {
      const key = await this.queue.get();
      if (key === null) return;
      try {
        const result = await reconcile(key, {
          cluster, templates, network, offer, log,
          app: (wanted) => {
            const [namespace, name] = wanted.split('/');
            return this.#apps.informer.get({ namespace, name });
          },
          ownedJobs: (app) => this.#jobs.informer.list().filter((job) =>
            job.metadata?.namespace === app.metadata.namespace && job.metadata?.ownerReferences?.some((reference) => reference.uid === app.metadata.uid)),
          readHead: (repository, ref) => this.#heads.read(repository, ref),
          follow: (appKeyValue, repositoryId) => (repositoryId === null ? this.index.unfollow(appKeyValue) : this.index.follow(appKeyValue, repositoryId)),
          events: this.#events,
          now: () => new Date(),
        });
        this.queue.forget(key);
        if (result.requeueAfterMs !== undefined) this.queue.addAfter(key, result.requeueAfterMs);
      } catch (error) {
        const delay = this.queue.addRateLimited(key);
        log(`${key}: reconcile failed: ${messageOf(error)}; retry in ${(delay / 1000).toFixed(1)}s`);
      } finally {
        this.queue.done(key);
      }
    }
  }

  #shutDown(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    this.queue.shutDown();
    for (const watched of this.#watched) void watched.informer.stop().catch(() => {});
    void this.#options.companion?.stop();
  }
}
