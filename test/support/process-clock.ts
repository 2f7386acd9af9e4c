/**
 * This process's clock, movable: `Date.now` reads the real time plus a skew from when this module loads until a
 * suite restores it, so the chain's Clock and the key servers of an embedded network read the moved time. Suites
 * sharing a worker share the module: each restore sets the skew back to 0, and the next skew moves the clock again.
 */
const realNow = Date.now;
let skewMs = 0;
const moved = () => realNow() + skewMs;
Date.now = moved;

/** From now on the clock reads the real time plus `ms`. */
export function skewProcessClock(ms: number): void {
  skewMs = ms;
  Date.now = moved;
}

/** Gives `Date.now` back (a suite's `after`). */
export function restoreProcessClock(): void {
  skewMs = 0;
  Date.now = realNow;
}
