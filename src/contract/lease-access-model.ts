/**
 * The pure TypeScript twin of contracts/sources/lease_access.move: the Seal policy that gives the provider of an
 * active lease the keys of the lease's repository. Same checks in the same order, same abort codes (a test reads the
 * Move source and compares); contracts/tests/lease_access_scenarios.json runs against both.
 */
import { MoveAbort } from './abort-codes.ts';
import { ID } from './bcs.ts';
import type { RepositoryValue } from './bcs.ts';
import { LeaseState } from './market-bcs.ts';
import type { LeaseValue, ProviderCapValue } from './market-bcs.ts';
import { leaseStateAt } from './market-model.ts';
import { canRead } from './model.ts';

/** Abort codes of the `lease_access` module, name → number, as its `const E…: u64` constants. */
export const LeaseAccessAbortCode = {
  /** A Seal key id must begin with the repository's id bytes. */
  EWrongKeyId: 0,
  /** The lease is for another repository. */
  EWrongRepository: 1,
  /** The ProviderCap is not the one of the lease's provider. */
  ENotProvider: 2,
  /** The lease is closed: its provider gets no more keys. */
  ELeaseClosed: 3,
  /** The lease's funds ran out by the Clock's time: its provider gets no more keys. */
  ELeaseExhausted: 4,
  /** The lease's tenant may not read the repository (not its owner, a writer or a reader): its provider gets no keys. */
  ETenantNotReader: 5,
} as const;

export type LeaseAccessAbortName = keyof typeof LeaseAccessAbortCode;

const namesByCode = new Map<number, LeaseAccessAbortName>((Object.entries(LeaseAccessAbortCode) as [LeaseAccessAbortName, number][]).map(([name, code]) => [code, name]));

/** The `lease_access` constant's name for an abort code raised in that module, or undefined. */
export function leaseAccessAbortName(code: number): LeaseAccessAbortName | undefined {
  return namesByCode.get(code);
}

/** A Move abort raised by the lease-access policy (module `lease_access`). */
export class LeaseAccessAbort extends MoveAbort<LeaseAccessAbortName> {
  constructor(functionName: string, name: LeaseAccessAbortName) {
    super('lease_access', functionName, name, LeaseAccessAbortCode[name]);
  }
}

function check(condition: boolean, name: LeaseAccessAbortName): asserts condition {
  if (!condition) throw new LeaseAccessAbort('seal_approve_lease', name);
}

/**
 * `seal_approve_lease`: returns normally to approve; aborts unless `id` begins with the repository's id bytes, the
 * lease is on that repository, `cap` is its provider's, the lease's tenant may read the repository, and the lease is
 * open and funded at `nowMs`. Changes nothing.
 * (That the sender owns `cap` is the chain's input check, before any Move code runs.)
 */
export function sealApproveLease(id: Uint8Array, repo: RepositoryValue, lease: LeaseValue, cap: ProviderCapValue, nowMs: bigint): void {
  const prefix = ID.serialize(repo.id).toBytes();
  check(id.length >= prefix.length && prefix.every((b, i) => id[i] === b), 'EWrongKeyId');
  check(lease.repository === repo.id, 'EWrongRepository');
  check(cap.provider === lease.provider, 'ENotProvider');
  check(canRead(repo, lease.tenant), 'ETenantNotReader');
  const state = leaseStateAt(lease, nowMs);
  check(state !== LeaseState.closed, 'ELeaseClosed');
  check(state === LeaseState.open, 'ELeaseExhausted');
}
