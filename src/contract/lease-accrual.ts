/**
 * A lease's accrual, the arithmetic of `market::settle_to` and `market::lease_state_at`: since its last settlement
 * an open lease owes its provider `price_per_ms` for every millisecond, capped at the escrow, and it is exhausted
 * once that cap is reached. The twin settles with it, and every reader of a lease (the controller deciding whether a
 * lease still pays, `lease show`, the web front end) judges with it, so none can disagree with the chain.
 *
 * At or before `settled_until_ms` nothing accrues and the state is the stored one, whatever the escrow holds: the
 * contract only marks a lease exhausted when a settlement empties its escrow, so an open lease with nothing left is
 * still open until the clock passes its settlement (and the key servers, `record_deploy` and `state_url` treat it
 * as open until then).
 */
import type { LeaseInfo } from '../ports/market.ts';

export interface Accrual {
  /** What settling now moves from the escrow to the provider. */
  accrued: bigint;
  /** Whether that empties the escrow: settled now, the lease would be exhausted. */
  runsDry: boolean;
}

/** The accrual of a lease (`open`: its stored state is open) at `nowMs`. */
export function accrualAt(open: boolean, settledUntilMs: bigint, pricePerMs: bigint, escrow: bigint, nowMs: bigint): Accrual {
  if (!open || nowMs <= settledUntilMs) return { accrued: 0n, runsDry: false };
  const owed = (nowMs - settledUntilMs) * pricePerMs;
  return owed >= escrow ? { accrued: escrow, runsDry: true } : { accrued: owed, runsDry: false };
}

/** `accrualAt` of a lease as the chain reports it (src/ports/market.ts). */
export function leaseAccrualAt(lease: Pick<LeaseInfo, 'state' | 'settledUntilMs' | 'pricePerMs' | 'escrow'>, nowMs: number): Accrual {
  return accrualAt(lease.state === 'open', BigInt(lease.settledUntilMs), lease.pricePerMs, lease.escrow, BigInt(nowMs));
}

/** Whether the lease has no funds left at `nowMs`: exhausted on chain, or would be once settled now. */
export function runsOutBy(lease: Pick<LeaseInfo, 'state' | 'settledUntilMs' | 'pricePerMs' | 'escrow'>, nowMs: number): boolean {
  return lease.state === 'exhausted' || leaseAccrualAt(lease, nowMs).runsDry;
}
