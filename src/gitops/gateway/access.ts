/**
 * Who may read a lease through the gateway (docs/architecture.md, The provider's gateway): its tenant, and whoever holds
 * the ProviderCap of the provider that serves it, as the chain has them now. The cap, not the provider's `owner` (the
 * address paid, fixed at registration): a provider that moves its cap to a new key moves its reading with it, and the
 * old key reads no more. Pure: the caller read the lease, the provider's id and the cap's holder.
 */
import type { LeaseInfo, ProviderInfo } from '../../ports/market.ts';

export type ReadDecision =
  | { ok: true; as: 'tenant' | 'provider' }
  | { ok: false; status: 403 | 404; why: string };

export function mayRead(lease: Pick<LeaseInfo, 'id' | 'tenant' | 'provider'>, served: Pick<ProviderInfo, 'id'> & { capHolder: string | null }, signer: string): ReadDecision {
  if (lease.provider !== served.id) {
    return { ok: false, status: 404, why: `lease ${lease.id} is served by provider ${lease.provider}, not by this gateway's ${served.id}: ask that provider's endpoint` };
  }
  if (signer === lease.tenant) return { ok: true, as: 'tenant' };
  if (served.capHolder !== null && signer === served.capHolder) return { ok: true, as: 'provider' };
  const provider = served.capHolder === null ? 'nobody else (no address holds its ProviderCap)' : `the holder of its provider's ProviderCap ${served.capHolder}`;
  return { ok: false, status: 403, why: `lease ${lease.id} may be read by its tenant ${lease.tenant} and ${provider}; the request was signed by ${signer}` };
}
