/**
 * What one tenant may cost the provider through the gateway (docs/architecture.md, The provider's gateway): a bounded
 * number of log followers per lease and in all, and a rate in bytes per second for each stream. Pure: the caller gives
 * the clock and does the waiting.
 */

/** A token bucket: `ratePerSecond` bytes a second on average, up to `burst` at once. */
export class ByteRate {
  readonly #ratePerMs: number;
  readonly #burst: number;
  #tokens: number;
  #atMs: number;

  constructor(ratePerSecond: number, burst: number, nowMs: number) {
    if (!(ratePerSecond > 0) || !(burst > 0)) throw new RangeError('a byte rate needs a positive rate and burst');
    this.#ratePerMs = ratePerSecond / 1000;
    this.#burst = burst;
    this.#tokens = burst;
    this.#atMs = nowMs;
  }

  /** Takes `bytes`; returns how long (ms) the caller must wait before sending them (0: at once). */
  take(bytes: number, nowMs: number): number {
    this.#tokens = Math.min(this.#burst, this.#tokens + Math.max(0, nowMs - this.#atMs) * this.#ratePerMs);
    this.#atMs = Math.max(this.#atMs, nowMs);
    this.#tokens -= bytes;
    return this.#tokens >= 0 ? 0 : Math.ceil(-this.#tokens / this.#ratePerMs);
  }
}

export type Slot = { ok: true; release(): void } | { ok: false; why: string };

/** Places for followers: at most `perLease` on one lease and `total` on the gateway. */
export class FollowerSlots {
  readonly #perLease: number;
  readonly #total: number;
  readonly #byLease = new Map<string, number>();
  #count = 0;

  constructor(perLease: number, total: number) {
    this.#perLease = perLease;
    this.#total = total;
  }

  acquire(lease: string): Slot {
    const held = this.#byLease.get(lease) ?? 0;
    if (held >= this.#perLease) return { ok: false, why: `lease ${lease} already has ${held} followers (at most ${this.#perLease}): stop one first` };
    if (this.#count >= this.#total) return { ok: false, why: `the gateway already serves ${this.#count} followers (at most ${this.#total}): try again later` };
    this.#byLease.set(lease, held + 1);
    this.#count++;
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.#count--;
        const left = (this.#byLease.get(lease) ?? 1) - 1;
        if (left > 0) this.#byLease.set(lease, left);
        else this.#byLease.delete(lease);
      },
    };
  }

  get count(): number {
    return this.#count;
  }

  followers(lease: string): number {
    return this.#byLease.get(lease) ?? 0;
  }
}
