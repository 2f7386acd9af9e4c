import { MetricsRegistry } from '../../core/metrics.ts';
import type { Condition } from '../../ports/walrus-app.ts';
import type { Outcome } from '../reconcile/outcome.ts';

/** What a scrape reads from the loop at that moment (queue, leadership, provider mode's leases). */
export interface MetricsSnapshot {
  waiting: number;
  processing: number;
  stuckMs: number;
  leading: boolean;
  /** Open leases this provider serves; null outside provider mode. */
  leasesServed: number | null;
}

/**
 * The controller's Prometheus metrics (`/metrics`), named as Flux's controllers name theirs, under `walrus_gitops_`.
 * Passes and their duration by outcome; builds, rollouts and rollbacks counted from the condition transitions a pass
 * wrote (so a repeated pass over the same state counts nothing); chain reads by method with latency and errors; and
 * at scrape time the queue, leadership and leases served.
 */
export class ControllerMetrics {
  readonly registry = new MetricsRegistry();
  readonly #passes = this.registry.counter('walrus_gitops_reconcile_total', 'Reconcile passes by outcome (settled, waiting, stalling, generic, error).', ['outcome']);
  readonly #passSeconds = this.registry.histogram('walrus_gitops_reconcile_duration_seconds', 'Duration of a reconcile pass by outcome.', ['outcome']);
  readonly #statusErrors = this.registry.counter('walrus_gitops_status_write_errors_total', 'Status writes that failed after a pass.');
  readonly #builds = this.registry.counter('walrus_gitops_builds_total', 'Build results (started, succeeded, failed, retrying) by reason (the Built condition\'s).', ['result', 'reason']);
  readonly #rollouts = this.registry.counter('walrus_gitops_rollouts_total', 'Rollouts that finished (succeeded or failed) by reason (the Released condition\'s).', ['result', 'reason']);
  readonly #rollbacks = this.registry.counter('walrus_gitops_rollbacks_total', 'Rollbacks to the last good release after a failed rollout.');
  readonly #chainReads = this.registry.counter('walrus_gitops_chain_reads_total', 'Reads of the chain by method.', ['method']);
  readonly #chainErrors = this.registry.counter('walrus_gitops_chain_read_errors_total', 'Reads of the chain that failed, by method.', ['method']);
  readonly #chainSeconds = this.registry.histogram('walrus_gitops_chain_read_duration_seconds', 'Latency of chain reads by method (failed ones included).', ['method']);
  readonly #depth = this.registry.gauge('walrus_gitops_queue_depth', 'Keys waiting in the work queue.');
  readonly #inProgress = this.registry.gauge('walrus_gitops_queue_in_progress', 'Keys being reconciled.');
  readonly #stuck = this.registry.gauge('walrus_gitops_queue_stuck_seconds', 'How long keys have waited with no pass started or finished (0 when none waits).');
  readonly #leader = this.registry.gauge('walrus_gitops_leader', '1 while this replica holds the Lease and acts, else 0.');
  readonly #leases = this.registry.gauge('walrus_gitops_leases_served', 'Open leases this provider serves (provider mode).');

  pass(outcome: Outcome | 'error', seconds: number, statusFailed: boolean): void {
    const name = outcome === 'error' ? 'error' : outcome.kind.toLowerCase();
    this.#passes.inc({ outcome: name });
    this.#passSeconds.observe(seconds, { outcome: name });
    if (statusFailed) this.#statusErrors.inc();
  }

  /** Counts what the written status changed: Built, Released and Remediated transitions. */
  transitions(changed: readonly Condition[]): void {
    for (const { type, status, reason } of changed) {
      if (type === 'Built') {
        const result = status === 'True' ? 'succeeded' : status === 'False' ? 'failed' : reason === 'Building' ? 'started' : reason === 'BuildRetrying' ? 'retrying' : null;
        if (result) this.#builds.inc({ result, reason });
      } else if (type === 'Released' && status !== 'Unknown') {
        this.#rollouts.inc({ result: status === 'True' ? 'succeeded' : 'failed', reason });
      } else if (type === 'Remediated' && status === 'True') {
        this.#rollbacks.inc();
      }
    }
  }

  chainRead(method: string, seconds: number, failed: boolean): void {
    this.#chainReads.inc({ method });
    this.#chainSeconds.observe(seconds, { method });
    if (failed) this.#chainErrors.inc({ method });
  }

  render(snapshot: MetricsSnapshot): string {
    this.#depth.set(snapshot.waiting);
    this.#inProgress.set(snapshot.processing);
    this.#stuck.set(snapshot.stuckMs / 1000);
    this.#leader.set(snapshot.leading ? 1 : 0);
    if (snapshot.leasesServed !== null) this.#leases.set(snapshot.leasesServed);
    return this.registry.render();
  }
}
