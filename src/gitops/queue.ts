import { systemClock } from '../core/clock.ts';
import type { Clock } from '../core/clock.ts';

/**
 * The controller's work queue, with client-go's workqueue semantics: keys, not objects (reconcile reads the current
 * state itself); a key added many times while waiting is queued once; a key being processed is never handed to a
 * second worker: added meanwhile, it is queued again when `done` is called; per-key exponential back-off, capped, reset
 * by `forget`.
 */
export interface QueueOptions {
  /** First retry delay after a failure. */
  baseDelayMs?: number;
  /** Longest retry delay. */
  maxDelayMs?: number;
  /** Delayed adds wait on this clock (the system's by default). */
  clock?: Clock;
}

export class WorkQueue {
  readonly #baseDelayMs: number;
  readonly #maxDelayMs: number;
  /** Keys ready to hand out, in order. */
  readonly #ready: string[] = [];
  /** Keys that need processing (queued, or added again while being processed). */
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  /** Delayed adds: the earliest wins. */
  readonly #timers = new Map<string, { at: number; cancel: AbortController }>();
  readonly #clock: Clock;
  readonly #waiting: ((key: string | null) => void)[] = [];
  #shutDown = false;
  /** When a key was last handed out or done, or keys began to wait: what `stuckMs` measures from. */
  #progressAt: number;

  constructor(options: QueueOptions = {}) {
    this.#baseDelayMs = options.baseDelayMs ?? 100;
    this.#maxDelayMs = options.maxDelayMs ?? 300_000;
    this.#clock = options.clock ?? systemClock;
    this.#progressAt = this.#clock.now();
  }

  add(key: string): void {
    if (this.#shutDown || this.#dirty.has(key)) return;
    this.#dirty.add(key);
    if (this.#processing.has(key)) return;
    const waiter = this.#waiting.shift();
    if (waiter) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      this.#progressAt = this.#clock.now();
      waiter(key);
    } else {
      if (this.#ready.length === 0) this.#progressAt = this.#clock.now();
      this.#ready.push(key);
    }
  }

  /** Adds `key` after `delayMs`; an earlier pending add of the same key wins over a later one. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shutDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = this.#clock.now() + delayMs;
    const pending = this.#timers.get(key);
    if (pending && pending.at <= at) return;
    pending?.cancel.abort();
    const cancel = new AbortController();
    this.#timers.set(key, { at, cancel });
    void this.#clock.sleep(delayMs, cancel.signal).then(() => {
      if (cancel.signal.aborted) return;
      this.#timers.delete(key);
      this.add(key);
    });
  }

  /** Adds `key` after its back-off: base · 2^(failures so far), capped. */
  addRateLimited(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    const delay = Math.min(this.#baseDelayMs * 2 ** failures, this.#maxDelayMs);
    this.addAfter(key, delay);
    return delay;
  }

  /** Clears the key's failure count (after a successful pass). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** The next key to process, marked as being processed; null once the queue is shut down. */
  get(): Promise<string | null> {
    if (this.#shutDown) return Promise.resolve(null);
    const key = this.#ready.shift();
    if (key !== undefined) {
      this.#dirty.delete(key);
      this.#processing.add(key);
      this.#progressAt = this.#clock.now();
      return Promise.resolve(key);
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** Ends the processing of `key`; if it was added meanwhile, it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    this.#progressAt = this.#clock.now();
    if (this.#dirty.has(key)) {
      this.#dirty.delete(key);
      this.add(key);
    }
  }

  /** How many keys wait to be handed out. */
  get length(): number {
    return this.#ready.length;
  }

  /** How many keys are being processed. */
  get processing(): number {
    return this.#processing.size;
  }

  /**
   * How long keys have waited with no key handed out or finished meanwhile (0 while none waits): a loop whose
   * workers all hang leaves this growing, however busy the rest of the process is.
   */
  stuckMs(): number {
    return this.#ready.length === 0 ? 0 : Math.max(0, this.#clock.now() - this.#progressAt);
  }

  /** Wakes every waiting `get` with null and refuses further adds. */
  shutDown(): void {
    this.#shutDown = true;
    for (const { cancel } of this.#timers.values()) cancel.abort();
    this.#timers.clear();
    for (const waiter of this.#waiting.splice(0)) waiter(null);
  }
}
