/**
 * A clock that moves only when the test moves it (src/core/clock.ts): `advance(ms)` wakes every sleeper due within
 * `ms`, earliest first, and lets each run until it waits again before the next one wakes, as time passing would.
 */
import type { Clock } from '../../src/core/clock.ts';

/** Lets every continuation that is ready run (promise jobs, and what they start in turn), without moving time. */
export async function settle(rounds = 20): Promise<void> {
  for (let n = 0; n < rounds; n++) await new Promise((resolve) => setImmediate(resolve));
}

export class ManualClock implements Clock {
  #now: number;
  #sleepers: { at: number; wake: () => void }[] = [];

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const sleeper = {
        at: this.#now + Math.max(0, ms),
        wake: () => {
          this.#sleepers = this.#sleepers.filter((other) => other !== sleeper);
          signal?.removeEventListener('abort', sleeper.wake);
          resolve();
        },
      };
      this.#sleepers.push(sleeper);
      signal?.addEventListener('abort', sleeper.wake, { once: true });
    });
  }

  /** How many sleeps are pending. */
  get sleeping(): number {
    return this.#sleepers.length;
  }

  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const due = this.#sleepers.filter((sleeper) => sleeper.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#now = Math.max(this.#now, due.at);
      due.wake();
      await settle();
    }
    this.#now = target;
    await settle();
  }
}
