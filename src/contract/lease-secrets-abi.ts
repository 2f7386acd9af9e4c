/**
 * The functions of the `lease_secrets` module a transaction can call, in the shape of abi.ts, in the order
 * lease_secrets.move declares them (the module has no `init`, so the first is function 0); run on the twin in
 * lease-secrets-model.ts. The two Seal policies are non-public entry functions, as Seal recommends.
 */
import { CLOCK_TYPE, TX_CONTEXT_TYPE, repositoryType } from './bcs.ts';
import type { ClockValue, RepositoryValue } from './bcs.ts';
import type { CallResult, MoveFunctionAbi } from './function-abi.ts';
import { leaseType, providerCapType } from './market-bcs.ts';
import type { LeaseValue, ProviderCapValue } from './market-bcs.ts';
import { LEASE_SECRETS_MODULE, sealApproveLeaseSecrets, sealApproveLeaseSecretsAsTenant, secretsKeyType, secretsType, secretsVersion, setSecrets } from './lease-secrets-model.ts';

const done = (...returns: unknown[]): CallResult => ({ returns, shared: [] });

export function leaseSecretsFunctions(pkg: string): MoveFunctionAbi[] {
  const lease = leaseType(pkg);
  const pub = { module: LEASE_SECRETS_MODULE, typeParameters: [], visibility: 'public' as const, isEntry: false };
  const policy = { ...pub, visibility: 'private' as const, isEntry: true };
  return [
    {
      ...pub,
      name: 'set_secrets',
      index: 0,
      parameters: [`&mut ${lease}`, 'u256', 'u64', `&${CLOCK_TYPE}`, `&${TX_CONTEXT_TYPE}`],
      returns: [],
      run: (ctx, [l, blobId, version, clock]) => (setSecrets(ctx, l as LeaseValue, blobId as bigint, version as bigint, (clock as ClockValue).timestamp_ms), done()),
    },
    { ...pub, name: 'secrets_version', index: 1, parameters: [`&${lease}`], returns: ['u64'], run: (ctx, [l]) => done(secretsVersion(ctx, l as LeaseValue)) },
    {
      ...policy,
      name: 'seal_approve_lease_secrets',
      index: 2,
      parameters: ['vector<u8>', `&${repositoryType(pkg)}`, `&${lease}`, `&${providerCapType(pkg)}`, `&${CLOCK_TYPE}`],
      returns: [],
      run: (_ctx, [id, repo, l, cap, clock]) => {
        sealApproveLeaseSecrets(id as Uint8Array, repo as RepositoryValue, l as LeaseValue, cap as ProviderCapValue, (clock as ClockValue).timestamp_ms);
        return done();
      },
    },
    {
      ...policy,
      name: 'seal_approve_lease_secrets_as_tenant',
      index: 3,
      parameters: ['vector<u8>', `&${lease}`, `&${TX_CONTEXT_TYPE}`],
      returns: [],
      run: (ctx, [id, l]) => (sealApproveLeaseSecretsAsTenant(ctx, id as Uint8Array, l as LeaseValue), done()),
    },
  ];
}

/** The module's struct types (the dynamic field's name and value). */
export function leaseSecretsStructs(pkg: string): string[] {
  return [secretsKeyType(pkg), secretsType(pkg)];
}
