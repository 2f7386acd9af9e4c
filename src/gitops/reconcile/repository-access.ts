/**
 * Whether the controller may read a private repository it is to build and run (docs/architecture.md, Lease-scoped
 * Seal access): as a member (owner, writer, reader) with its own key, or, for the app of a lease, as that lease's
 * provider while the lease's tenant may read the repository and the lease is open and funded at the chain's clock
 * (what `lease_access::seal_approve_lease` checks: a lease grants nothing its tenant could not read itself).
 * Decided before any build so that a refusal is one condition naming what to change (the address to add as a reader,
 * the lease that ended), not a checkout that fails again and again; the key servers decide all the same.
 */
import { canRead } from '../../core/read-access.ts';
import { runsOutBy } from '../../contract/lease-accrual.ts';
import type { Ledger, RepositoryInfo } from '../../ports/ledger.ts';
import type { LeaseInfo, MarketLedger } from '../../ports/market.ts';

export type ReadAccess = { allowed: true } | { allowed: false; reason: string; message: string };

/** What the decision needs, read from the chain. */
export interface AccessFacts {
  repository: RepositoryInfo;
  /** The controller's address (its key is the one the tool steps get). */
  address: string;
  /** The app's lease, when it is a lease's app. */
  lease: LeaseInfo | null;
  /** The chain's clock, ms. */
  nowMs: number;
  /** Whether the controller holds the ProviderCap of the lease's provider. */
  holdsCap: boolean;
}

/** Pure: the same facts, the same answer. */
export function decideReadAccess(facts: AccessFacts): ReadAccess {
  const { repository, address, lease } = facts;
  if (!repository.private) return { allowed: true };
  const whose = `private repository '${repository.name}' (${repository.id}) of ${repository.owner}`;
  if (lease === null) {
    if (canRead(repository, address)) return { allowed: true };
    return {
      allowed: false,
      reason: 'NotAReader',
      message: `${whose} cannot be read by this controller's address ${address}: its owner adds it with \`git walrus readers add walrus://${repository.id} ${address}\``,
    };
  }
  const under = `${whose}, served under lease ${lease.id}`;
  if (lease.repository !== repository.id) return { allowed: false, reason: 'LeaseOfOtherRepository', message: `${under}: that lease serves repository ${lease.repository}` };
  if (!facts.holdsCap) return { allowed: false, reason: 'NotLeaseProvider', message: `${under}: ${address} does not hold the ProviderCap of its provider ${lease.provider}` };
  if (!canRead(repository, lease.tenant)) {
    return {
      allowed: false,
      reason: 'TenantNotReader',
      message:
        `tenant not a reader: ${under}: its tenant ${lease.tenant} may not read the repository (not its owner, a writer or a reader), so the key servers give its provider no keys ` +
        `and nothing new is built (what runs keeps serving what was built before, until the app is removed): the owner adds the tenant with ` +
        `\`git walrus readers add walrus://${repository.id} ${lease.tenant}\`, or the tenant closes the lease`,
    };
  }
  if (lease.state === 'closed') {
    return { allowed: false, reason: 'LeaseClosed', message: `lease closed: ${under}: the key servers give its provider no keys any more, so nothing pushed since is built (what runs keeps running until the app is removed)` };
  }
  if (runsOutBy(lease, facts.nowMs)) {
    return { allowed: false, reason: 'LeaseExhausted', message: `lease exhausted: ${under}: its funds ran out by the chain's clock, so the key servers give its provider no keys any more` };
  }
  return { allowed: true };
}

/** The check a reconcile pass runs: `repositoryId` read as the app of `lease` (null: the controller's own app). */
export type ReadAccessCheck = (repositoryId: string, lease: string | null) => Promise<ReadAccess>;

/** The check over the chain: one repository read, and for a lease's app the lease, the clock and the caps. */
export function chainReadAccess(ledger: Pick<Ledger, 'getRepository' | 'signerAddress'>, market: (() => Promise<MarketLedger>) | null): ReadAccessCheck {
  return async (repositoryId, leaseId) => {
    const repository = await ledger.getRepository(repositoryId);
    if (!repository.private) return { allowed: true };
    const address = await ledger.signerAddress();
    if (leaseId === null || market === null) return decideReadAccess({ repository, address, lease: null, nowMs: 0, holdsCap: false });
    const m = await market();
    const [lease, nowMs, own] = await Promise.all([m.getLease(leaseId), m.clockMs(), m.ownProviders()]);
    return decideReadAccess({ repository, address, lease, nowMs, holdsCap: own.includes(lease.provider) });
  };
}
