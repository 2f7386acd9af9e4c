/**
 * Follows the pods bound to this node and gives each its worker. client-node 2.x stops an informer on
 * most errors, and a watch can stall silently, so: the informer is restarted after an error, a watchdog
 * restarts it when it has been silent too long, and a periodic list reconciles what the watch may have
 * missed (a pod never seen, a pod removed outright).
 */
import { makeInformer } from '@kubernetes/client-node';
import type { CoreV1Api, Informer, KubeConfig, ObjectCache, V1Pod } from '@kubernetes/client-node';

const RESTART_DELAY_MS = 1000;
const RECONCILE_MS = 15_000;
/** The watch reconnects (a `connect` event) at least every client timeout; this much silence means it is stuck. */
const SILENCE_MS = 120_000;

export interface PodHandlers {
  /** A pod bound to the node, new or changed. */
  upsert(pod: V1Pod): void;
  /** A pod no longer on the server (deleted outright, or its final delete done). */
  remove(uid: string): void;
  /** UIDs of the pods the kubelet currently runs. */
  known(): Iterable<string>;
}

export class PodSync {
  #informer?: Informer<V1Pod> & ObjectCache<V1Pod>;
  #timers: NodeJS.Timeout[] = [];
  #lastHeard = Date.now();
  #stopped = false;

  private readonly kc: KubeConfig;
  private readonly core: CoreV1Api;
  private readonly nodeName: string;
  private readonly handlers: PodHandlers;
  private readonly log: (line: string) => void;

  constructor(kc: KubeConfig, core: CoreV1Api, nodeName: string, handlers: PodHandlers, log: (line: string) => void) {
    this.kc = kc;
    this.core = core;
    this.nodeName = nodeName;
    this.handlers = handlers;
    this.log = log;
  }

  async start(): Promise<void> {
    const fieldSelector = `spec.nodeName=${this.nodeName}`;
    const informer = makeInformer<V1Pod>(this.kc, `/api/v1/pods?fieldSelector=${encodeURIComponent(fieldSelector)}`,
      () => this.core.listPodForAllNamespaces({ fieldSelector }));
    const heard = () => { this.#lastHeard = Date.now(); };
    informer.on('connect', heard);
    informer.on('add', (pod) => { heard(); this.handlers.upsert(pod); });
    informer.on('update', (pod) => { heard(); this.handlers.upsert(pod); });
    informer.on('delete', (pod) => { heard(); this.handlers.remove(pod.metadata!.uid!); });
    informer.on('error', (err) => {
      if (this.#stopped) return;
      this.log(`kubelet ${this.nodeName}: pod watch stopped (${err?.message ?? err}); restarting`);
      this.#restartSoon();
    });
    this.#informer = informer;
    await informer.start();
    this.#every(RECONCILE_MS, () => this.#reconcile());
    this.#every(SILENCE_MS / 4, async () => {
      if (Date.now() - this.#lastHeard < SILENCE_MS) return;
      this.log(`kubelet ${this.nodeName}: pod watch silent for ${SILENCE_MS / 1000}s; restarting it`);
      this.#lastHeard = Date.now();
      await informer.stop();
      await informer.start();
    });
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    await this.#informer?.stop();
  }

  #restartSoon(): void {
    const timer = setTimeout(() => {
      if (!this.#stopped) this.#informer?.start().catch(() => this.#restartSoon());
    }, RESTART_DELAY_MS);
    timer.unref();
  }

  #every(ms: number, task: () => Promise<void>): void {
    const timer = setInterval(() => {
      if (!this.#stopped) task().catch((err) => this.log(`kubelet ${this.nodeName}: ${err?.message ?? err}`));
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  /** Lists the node's pods and applies what the watch did not deliver. */
  async #reconcile(): Promise<void> {
    // Only pods known before the list can be missing from it; one added meanwhile is simply newer.
    const before = new Set(this.handlers.known());
    const list = await this.core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${this.nodeName}` });
    if (this.#stopped) return;
    const present = new Set(list.items.map((p) => p.metadata!.uid!));
    for (const pod of list.items) this.handlers.upsert(pod);
    for (const uid of before) if (!present.has(uid)) this.handlers.remove(uid);
  }
}
