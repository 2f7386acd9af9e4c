/**
 * The kubelet's crash back-off for one container (client-go's flowcontrol.Backoff as the kubelet uses it):
 * the first restart is immediate; each later one waits 10 s, doubling to 5 min; a container that ran
 * 10 min (twice the maximum) since the last restart starts again from 10 s. Pure: time is passed in.
 */
export const INITIAL_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 300_000;

export class CrashBackoff {
  #delayMs = 0;
  #lastUpdate = -Infinity;

  readonly initialMs: number;
  readonly maxMs: number;

  constructor(initialMs = INITIAL_BACKOFF_MS, maxMs = MAX_BACKOFF_MS) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
  }

  /**
   * How long to wait, from `finishedAt`, before restarting a container that exited then; records the restart
   * as planned. Returns 0 for the first exit (or the first after a long healthy run).
   */
  delayAfterExit(finishedAt: number): number {
    if (this.#delayMs === 0 || finishedAt - this.#lastUpdate > 2 * this.maxMs) {
      this.#delayMs = this.initialMs;
      this.#lastUpdate = finishedAt;
      return 0;
    }
    const wait = this.#delayMs;
    this.#lastUpdate = finishedAt + wait;
    this.#delayMs = Math.min(this.#delayMs * 2, this.maxMs);
    return wait;
  }
}
