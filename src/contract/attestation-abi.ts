/**
 * The functions of the `attestation` module a transaction can call, in the shape of abi.ts, in the order
 * attestation.move declares them (the module has no `init`, so the first is function 0); run on the twin in
 * attestation-model.ts.
 */
import { CLOCK_TYPE, ID_TYPE, TX_CONTEXT_TYPE, repositoryType } from './bcs.ts';
import type { ClockValue, RepositoryValue } from './bcs.ts';
import type { CallResult, MoveFunctionAbi } from './function-abi.ts';
import { adminCapType, leaseType, marketType, providerCapType, providerType } from './market-bcs.ts';
import type { AdminCapValue, LeaseValue, MarketValue, ProviderCapValue, ProviderValue } from './market-bcs.ts';
import {
  ATTESTATION_MODULE, AttestationStructs, attestationType, commitBuild, commitmentOf, requireReproduced, requiredOf, revealBuild, setWindows, tallySummary,
} from './attestation-model.ts';

const done = (...returns: unknown[]): CallResult => ({ returns, shared: [] });
const now = (clock: unknown) => (clock as ClockValue).timestamp_ms;
const bytes = 'vector<u8>';

export function attestationFunctions(pkg: string): MoveFunctionAbi[] {
  const market = marketType(pkg);
  const lease = leaseType(pkg);
  const attester = [`&${providerType(pkg)}`, `&${providerCapType(pkg)}`, `&${repositoryType(pkg)}`];
  const declared: Omit<MoveFunctionAbi, 'index' | 'module' | 'typeParameters' | 'visibility' | 'isEntry'>[] = [
    {
      name: 'set_windows',
      parameters: [`&mut ${market}`, `&${adminCapType(pkg)}`, 'u64', 'u64'],
      returns: [],
      run: (ctx, [m, admin, commitMs, revealMs]) => (setWindows(ctx, m as MarketValue, admin as AdminCapValue, commitMs as bigint, revealMs as bigint), done()),
    },
    {
      name: 'commit_build',
      parameters: [`&mut ${market}`, ...attester, bytes, bytes, bytes, `&${CLOCK_TYPE}`],
      returns: [],
      run: (ctx, [m, p, cap, repo, commit, key, commitment, clock]) => {
        commitBuild(ctx, m as MarketValue, p as ProviderValue, cap as ProviderCapValue, repo as RepositoryValue, commit as Uint8Array, key as Uint8Array, commitment as Uint8Array, now(clock));
        return done();
      },
    },
    {
      name: 'reveal_build',
      parameters: [`&mut ${market}`, ...attester, bytes, bytes, bytes, bytes, bytes, `&${CLOCK_TYPE}`],
      returns: [],
      run: (ctx, [m, p, cap, repo, commit, key, tar, root, nonce, clock]) => {
        const digests = [commit, key, tar, root, nonce] as Uint8Array[];
        revealBuild(ctx, m as MarketValue, p as ProviderValue, cap as ProviderCapValue, repo as RepositoryValue, ...(digests as [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array]), now(clock));
        return done();
      },
    },
    {
      name: 'require_reproduced',
      parameters: [`&mut ${lease}`, 'u64', `&${CLOCK_TYPE}`, `&${TX_CONTEXT_TYPE}`],
      returns: [],
      run: (ctx, [l, required, clock]) => (requireReproduced(ctx, l as LeaseValue, required as bigint, now(clock)), done()),
    },
    { name: 'required_reproductions', parameters: [`&${lease}`], returns: ['u64'], run: (ctx, [l]) => done(requiredOf(ctx.tables, ctx.packageId, l as LeaseValue)) },
    {
      name: 'tally_summary',
      parameters: [`&${market}`, ID_TYPE, bytes, bytes],
      returns: ['u8', 'u64', 'u64'],
      run: (ctx, [m, repository, commit, key]) =>
        done(...tallySummary(ctx, m as MarketValue, { repository: repository as string, commit: commit as Uint8Array, build_key: key as Uint8Array })),
    },
    {
      name: 'commitment_of',
      parameters: [bytes, bytes, ID_TYPE, bytes],
      returns: [bytes],
      run: (_ctx, [tar, root, provider, nonce]) => done(commitmentOf(tar as Uint8Array, root as Uint8Array, provider as string, nonce as Uint8Array)),
    },
  ];
  return declared.map((f, index) => ({ ...f, index, module: ATTESTATION_MODULE, typeParameters: [], visibility: 'public', isEntry: false }));
}

/** The module's struct types (dynamic field names and values, events). */
export function attestationStructs(pkg: string): string[] {
  return Object.keys(AttestationStructs).map((name) => attestationType(pkg, name as keyof typeof AttestationStructs));
}
