/**
 * Whether the controller is alive and ready, from facts its loop keeps (pure, so both judgments are tested without
 * a clock). Liveness fails only when restarting the process would help: keys waiting while no worker has taken or
 * finished one for longer than the bound (workers hung on a request that never returns, a deadlock). Readiness says
 * whether this replica can act now: a standby is ready (it waits for the Lease, as it should); a leader is ready once
 * its informers have synced and the chain has answered recently.
 */
export interface HealthFacts {
  leading: boolean;
  /** The leader's informers have listed and watch. */
  synced: boolean;
  /** How long keys have waited with no queue progress (WorkQueue.stuckMs). */
  stuckMs: number;
  waiting: number;
  processing: number;
  /** When a chain read last succeeded, and when this replica began to lead (ms since the epoch). */
  chainOkAt: number | null;
  leadingSince: number | null;
  now: number;
}

export interface HealthLimits {
  /** Keys waiting this long with no progress: the loop is wedged. */
  wedgedAfterMs: number;
  /** No chain read succeeding for this long: not ready. */
  chainStaleAfterMs: number;
}

export interface Verdict {
  ok: boolean;
  message: string;
}

export function liveness(facts: HealthFacts, limits: HealthLimits): Verdict {
  if (facts.stuckMs > limits.wedgedAfterMs) {
    return { ok: false, message: `reconcile loop wedged: ${facts.waiting} key(s) waiting and ${facts.processing} in progress, no pass started or finished for ${seconds(facts.stuckMs)}s (limit ${seconds(limits.wedgedAfterMs)}s)` };
  }
  return { ok: true, message: `ok: ${facts.waiting} waiting, ${facts.processing} in progress` };
}

export function readiness(facts: HealthFacts, limits: HealthLimits): Verdict {
  if (!facts.leading) return { ok: true, message: 'ok: standby, waiting for the Lease' };
  if (!facts.synced) return { ok: false, message: 'leading, informers not synced yet' };
  const since = facts.chainOkAt ?? facts.leadingSince ?? facts.now;
  const age = facts.now - since;
  if (age > limits.chainStaleAfterMs) {
    const what = facts.chainOkAt === null ? 'no chain read has succeeded since this replica began to lead' : `the last chain read that succeeded was ${seconds(age)}s ago`;
    return { ok: false, message: `${what} (limit ${seconds(limits.chainStaleAfterMs)}s)` };
  }
  return { ok: true, message: 'ok: leading, informers synced, chain reachable' };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(ms < 10_000 ? 1 : 0);
}
