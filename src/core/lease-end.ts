/**
 * Why a lease ended, in the words `lease show`, `deployments`, the gateway's status and the web front end print: the
 * reason its close recorded on chain, who closed it (the tenant or the provider) and when, by the chain's Clock. Pure.
 */
import type { LeaseEnd } from '../ports/market.ts';

/** What the chain recorded, in words: `closed by the tenant`, `its funds ran out (closed by the provider)`… */
export function leaseEndWords(end: LeaseEnd): string {
  const who = end.byTenant ? 'the tenant' : 'the provider';
  switch (end.reason) {
    case 'closed_by_tenant':
      return 'closed by the tenant';
    case 'closed_by_provider':
      return 'closed by the provider while it was still funded';
    case 'funds_ran_out':
      return `its funds ran out (closed by ${who})`;
    case 'provider_unbonding':
      return 'closed by the provider, which is leaving the market (unbonding)';
  }
}

/** `<words> at <time>` (UTC, by the chain's Clock). */
export function leaseEndLine(end: LeaseEnd): string {
  return `${leaseEndWords(end)} at ${new Date(end.atMs).toISOString().replace('.000Z', 'Z')}`;
}
