/**
 * The function of the `lease_access` module a transaction can call, in the shape of abi.ts: `seal_approve_lease`, a
 * non-public entry function as Seal recommends (the module has no `init`, so it is function 0), run on the twin in
 * lease-access-model.ts.
 */
import { CLOCK_TYPE, repositoryType } from './bcs.ts';
import type { ClockValue, RepositoryValue } from './bcs.ts';
import type { MoveFunctionAbi } from './function-abi.ts';
import { leaseType, providerCapType } from './market-bcs.ts';
import type { LeaseValue, ProviderCapValue } from './market-bcs.ts';
import { sealApproveLease } from './lease-access-model.ts';

export const LEASE_ACCESS_MODULE = 'lease_access';

export function leaseAccessFunctions(pkg: string): MoveFunctionAbi[] {
  return [{
    module: LEASE_ACCESS_MODULE,
    name: 'seal_approve_lease',
    index: 0,
    visibility: 'private',
    isEntry: true,
    typeParameters: [],
    parameters: ['vector<u8>', `&${repositoryType(pkg)}`, `&${leaseType(pkg)}`, `&${providerCapType(pkg)}`, `&${CLOCK_TYPE}`],
    returns: [],
    run: (_ctx, [id, repo, lease, cap, clock]) => {
      sealApproveLease(id as Uint8Array, repo as RepositoryValue, lease as LeaseValue, cap as ProviderCapValue, (clock as ClockValue).timestamp_ms);
      return { returns: [], shared: [] };
    },
  }];
}
