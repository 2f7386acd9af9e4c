/**
 * Who may read a lease through the gateway (docs/architecture.md, The provider's gateway): its tenant, and the owner of
 * the provider that serves it, as the chain has them now. Pure: the caller read the lease and the provider.
 */
import type { LeaseInfo, ProviderInfo } from '../../ports/market.ts';

export type ReadDecision =
  | { ok: true; as: 'tenant' | 'provider' }
  | { ok: false; status: 403 | 404; why: string };

export function mayRead(lease: Pick<LeaseInfo, 'id' | 'tenant' | 'provider'>, served: Pick<ProviderInfo, 'id' | 'owner'>, signer: string): ReadDecision {
  if (lease.provider !== served.id) {
    return { ok: false, status: 404, why: `lease ${lease.id} is served by provider ${lease.provider}, not by this gateway's ${served.id}: ask that provider's endpoint` };
  }
  if (signer === lease.tenant) return { ok: true, as: 'tenant' };
  if (signer === served.owner) return { ok: true, as: 'provider' };
  return { ok: false, status: 403, why: `lease ${lease.id} may be read by its tenant ${lease.tenant} and its provider's owner ${served.owner}; the request was signed by ${signer}` };
}
