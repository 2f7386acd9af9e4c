import type { V1Lease } from '@kubernetes/client-node';
import { systemClock, type Clock } from '../core/clock.ts';
import { messageOf } from '../core/errors.ts';
import type { Cluster, ObjectRef } from '../ports/cluster.ts';
import { ConflictError } from '../ports/cluster-errors.ts';

export interface LeaderElectionOptions {
  cluster: Pick<Cluster, 'readLease' | 'createLease' | 'replaceLease'>;
  lease: ObjectRef;
  identity: string;
  /** client-go's defaults: 15 s lease, 10 s renew deadline, 2 s retry period. */
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  /** The jitter of the retry period while following: a number in [0, 1). */
  random?: () => number;
  log(line: string): void;
}

/**
 * Leader election on a coordination.k8s.io Lease with client-go's semantics, so two controller replicas never both
 * act: a candidate takes the Lease only when its holder has not renewed it for a lease duration *as observed
 * locally* (clocks of different machines are never compared), writes are compare-and-swap on the resourceVersion,
 * and a leader that cannot renew within the renew deadline stops leading (the controller then exits, as client-go
 * processes do). Stopping releases the Lease, so a successor need not wait for it to expire.
 */
export class LeaderElector {
  readonly #options: Required<LeaderElectionOptions>;
  #observed: { record: string; at: number } | null = null;
  readonly #stopped = new AbortController();

  constructor(options: LeaderElectionOptions) {
    this.#options = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, clock: systemClock, random: Math.random, ...options };
  }

  /**
   * Waits until this candidate leads, calls `lead(lost)` and keeps renewing; resolves when leadership is lost (the
   * `lost` signal fires then) or `stop()` was called.
   */
  async run(lead: (lost: AbortSignal) => Promise<void> | void): Promise<void> {
    const { retryPeriodMs, renewDeadlineMs, identity, lease, clock, random, log } = this.#options;
    const stopped = this.#stopped.signal;
    while (!stopped.aborted && !(await this.#tryAcquireOrRenew())) await clock.sleep(retryPeriodMs * (1 + random() * 0.2), stopped);
    if (stopped.aborted) return;
    log(`leader election: ${identity} leads (lease ${lease.namespace}/${lease.name})`);
    const lost = new AbortController();
    void Promise.resolve(lead(lost.signal)).catch((error) => log(`leader callback failed: ${messageOf(error)}`));
    let renewed = clock.now();
    while (!stopped.aborted) {
      await clock.sleep(retryPeriodMs, stopped);
      if (stopped.aborted) break;
      if (await this.#tryAcquireOrRenew()) renewed = clock.now();
      else if (clock.now() - renewed > renewDeadlineMs) {
        log(`leader election: ${identity} could not renew the lease within ${renewDeadlineMs / 1000}s and stops leading`);
        break;
      }
    }
    lost.abort();
    if (stopped.aborted) await this.#release();
  }

  stop(): void {
    this.#stopped.abort();
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { cluster, lease: ref, identity, leaseDurationMs, clock } = this.#options;
    const now = new Date(clock.now());
    const spec = (current?: V1Lease) => ({
      holderIdentity: identity,
      leaseDurationSeconds: Math.round(leaseDurationMs / 1000),
      acquireTime: current?.spec?.holderIdentity === identity ? current.spec.acquireTime ?? now : now,
      renewTime: now,
      leaseTransitions: current ? (current.spec?.leaseTransitions ?? 0) + (current.spec?.holderIdentity === identity ? 0 : 1) : 0,
    });
    try {
      const current = await cluster.readLease(ref);
      if (!current) {
        await cluster.createLease({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { ...ref }, spec: spec() });
        return true;
      }
      const record = JSON.stringify([current.spec?.holderIdentity, current.spec?.renewTime, current.spec?.leaseDurationSeconds]);
      if (this.#observed?.record !== record) this.#observed = { record, at: clock.now() };
      const holder = current.spec?.holderIdentity;
      const duration = (current.spec?.leaseDurationSeconds ?? 0) * 1000;
      if (holder && holder !== identity && this.#observed.at + duration > clock.now()) return false;
      await cluster.replaceLease({ ...current, spec: { ...current.spec, ...spec(current) } });
      return true;
    } catch (error) {
      if (!(error instanceof ConflictError)) this.#options.log(`leader election: ${messageOf(error)}`);
      return false;
    }
  }

  /** Hands the lease back (holder cleared, 1 s duration), as client-go's ReleaseOnCancel does. */
  async #release(): Promise<void> {
    const { cluster, lease: ref, identity, clock } = this.#options;
    try {
      const current = await cluster.readLease(ref);
      if (current?.spec?.holderIdentity !== identity) return;
      await cluster.replaceLease({ ...current, spec: { ...current.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: new Date(clock.now()) } });
      this.#options.log(`leader election: ${identity} released the lease`);
    } catch (error) {
      this.#options.log(`leader election: releasing the lease failed: ${messageOf(error)}`);
    }
  }
}
