/**
 * Which signed requests the gateway accepts by their time and nonce (docs/architecture.md, The provider's gateway):
 * a time more than `windowMs` from the gateway's clock is stale, and a nonce seen from the same address is a replay.
 * A request's time is accepted for `windowMs` either side of it, so a nonce first seen at `now` can only come back
 * usefully before `now + 2 * windowMs`: it is remembered that long and no longer, which keeps the memory bounded by
 * the request rate. Pure: the caller gives the clock.
 */
export interface ReplayVerdict {
  ok: boolean;
  /** 401 for a stale time or a replay (the caller must sign again), 503 when the memory is full. */
  status?: 401 | 503;
  why?: string;
}

export class ReplayWindow {
  readonly windowMs: number;
  readonly #maxEntries: number;
  readonly #sinceMs: number;
  /** `address nonce` → when it may be forgotten; insertion order is first-seen order, so expiry order too. */
  readonly #seen = new Map<string, number>();

  /**
   * `sinceMs`: when this memory began (the gateway's start). A request signed before then may have been served by an
   * earlier process, whose nonces are gone, so it is refused: a restart does not reopen the window to replays.
   */
  constructor(options: { windowMs?: number; maxEntries?: number; sinceMs?: number } = {}) {
    this.windowMs = options.windowMs ?? 60_000;
    this.#maxEntries = options.maxEntries ?? 200_000;
    this.#sinceMs = options.sinceMs ?? Number.NEGATIVE_INFINITY;
  }

  /** Whether the request's time is near enough the gateway's clock; checked before the (costlier) signature. */
  checkTime(timeMs: number, nowMs: number): ReplayVerdict {
    const skew = timeMs - nowMs;
    if (Math.abs(skew) <= this.windowMs) {
      if (timeMs >= this.#sinceMs) return { ok: true };
      return { ok: false, status: 401, why: 'the request was signed before the gateway started, so it cannot tell whether it was served already: sign a new request' };
    }
    const seconds = Math.round(Math.abs(skew) / 1000);
    return {
      ok: false, status: 401,
      why: `the request's time is ${seconds} s ${skew < 0 ? 'behind' : 'ahead of'} the gateway's clock (at most ${this.windowMs / 1000} s accepted): sign a new request, and check your clock if it happens again`,
    };
  }

  /**
   * Records the nonce of a request whose signature verified, or refuses it as a replay. Called after the signature
   * check, so only the address's own key can fill the memory.
   */
  admit(address: string, nonce: string, nowMs: number): ReplayVerdict {
    this.#forget(nowMs);
    const key = `${address} ${nonce}`;
    if (this.#seen.has(key)) return { ok: false, status: 401, why: 'this request was already served (its nonce is used): sign a new one' };
    // Forgetting early would let a replay through: refuse instead, until entries expire.
    if (this.#seen.size >= this.#maxEntries) return { ok: false, status: 503, why: 'the gateway is serving too many requests: try again in a minute' };
    this.#seen.set(key, nowMs + 2 * this.windowMs);
    return { ok: true };
  }

  get size(): number {
    return this.#seen.size;
  }

  #forget(nowMs: number): void {
    for (const [key, until] of this.#seen) {
      if (until > nowMs) break;
      this.#seen.delete(key);
    }
  }
}
