/**
 * An informer that keeps itself running, written once for every kind the controller watches. client-node's informer
 * resumes a timed-out watch and relists after a 410 on its own, but any other error (the API server restarting, a
 * refused list) stops it for good, and a watch behind a half-open connection can go silent without an error. Here a
 * stopped watch is started again, and one that shows no sign of life (an event or a reconnection) for `watchdogMs` is
 * restarted, backing off 1 s, 2 s, 4 s … at most 30 s while it keeps failing; each restart is announced, since events
 * may have been missed while it was down.
 */
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Clock } from '../core/clock.ts';
import { messageOf } from '../core/errors.ts';
import type { Informer, InformerEvent, ObjectRef } from '../ports/cluster.ts';

/** What this module drives of a client-node informer (a ListWatch). */
export interface Watch<T> {
  on(event: InformerEvent, handler: (object: T) => void): void;
  onConnect(handler: () => void): void;
  /** The watch stopped with this error. */
  onError(handler: (error: unknown) => void): void;
  start(): Promise<void>;
  stop(): Promise<void>;
  get(name: string, namespace: string): T | undefined;
  list(): T[];
}

export interface RestartOptions {
  /** The kind, as log lines name it. */
  name: string;
  watchdogMs: number;
  clock: Clock;
  log(line: string): void;
}

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

export class RestartingInformer<T extends KubernetesObject> implements Informer<T> {
  readonly #watch: Watch<T>;
  readonly #options: RestartOptions;
  readonly #stopped = new AbortController();
  readonly #onRestart: (() => void)[] = [];
  #lastSign: number;
  /** Failed starts since the last sign of life: the back-off's exponent. */
  #failures = 0;
  #restarting = false;

  constructor(watch: Watch<T>, options: RestartOptions) {
    this.#watch = watch;
    this.#options = options;
    this.#lastSign = options.clock.now();
    const alive = () => {
      this.#lastSign = options.clock.now();
      this.#failures = 0;
    };
    for (const event of ['add', 'update', 'delete'] as const) watch.on(event, alive);
    watch.onConnect(alive);
    watch.onError((error) => {
      if (this.#stopped.signal.aborted) return;
      options.log(`the ${options.name} informer stopped: ${messageOf(error)}; restarting`);
      void this.#restart();
    });
  }

  on(event: InformerEvent, handler: (object: T) => void): void {
    this.#watch.on(event, handler);
  }

  onRestart(handler: () => void): void {
    this.#onRestart.push(handler);
  }

  async start(): Promise<void> {
    await this.#startUntilUp();
    if (!this.#stopped.signal.aborted) void this.#watchdog();
  }

  async stop(): Promise<void> {
    this.#stopped.abort();
    await this.#watch.stop().catch(() => {});
  }

  get(ref: ObjectRef): T | undefined {
    return this.#watch.get(ref.name, ref.namespace);
  }

  list(): T[] {
    return this.#watch.list();
  }

  async #startUntilUp(): Promise<void> {
    const { clock, log, name } = this.#options;
    while (!this.#stopped.signal.aborted) {
      try {
        await this.#watch.start();
        this.#lastSign = clock.now();
        return;
      } catch (error) {
        const delay = this.#backoff();
        log(`starting the ${name} informer failed: ${messageOf(error)}; again in ${delay / 1000}s`);
        await clock.sleep(delay, this.#stopped.signal);
      }
    }
  }

  async #restart(): Promise<void> {
    if (this.#restarting) return;
    this.#restarting = true;
    try {
      await this.#watch.stop().catch(() => {});
      await this.#options.clock.sleep(this.#backoff(), this.#stopped.signal);
      await this.#startUntilUp();
      if (!this.#stopped.signal.aborted) for (const handler of this.#onRestart) handler();
    } finally {
      this.#restarting = false;
    }
  }

  async #watchdog(): Promise<void> {
    const { clock, log, name, watchdogMs } = this.#options;
    while (!this.#stopped.signal.aborted) {
      await clock.sleep(Math.max(1000, watchdogMs / 4), this.#stopped.signal);
      if (this.#stopped.signal.aborted || this.#restarting || clock.now() - this.#lastSign <= watchdogMs) continue;
      log(`the ${name} informer showed no sign of life for ${Math.round(watchdogMs / 1000)}s; restarting it`);
      await this.#restart();
    }
  }

  #backoff(): number {
    this.#failures++;
    return Math.min(FIRST_BACKOFF_MS * 2 ** (this.#failures - 1), MAX_BACKOFF_MS);
  }
}
