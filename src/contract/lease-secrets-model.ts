/**
 * The pure TypeScript twin of contracts/sources/lease_secrets.move: a lease's pointer to its sealed secrets (a
 * dynamic field of the Lease) and the two Seal policies for their keys. Same checks in the same order, same abort
 * codes (a test reads the Move source and compares); contracts/tests/lease_secrets_scenarios.json runs against both.
 */
import { bcs } from '@mysten/bcs';
import { MoveAbort } from './abort-codes.ts';
import { ID, U256, U64 } from './bcs.ts';
import type { RepositoryValue } from './bcs.ts';
import type { MoveContext, TableStore } from './context.ts';
import { LeaseState } from './market-bcs.ts';
import type { LeaseValue, ProviderCapValue } from './market-bcs.ts';
import { leaseStateAt } from './market-model.ts';
import { canRead } from './model.ts';

export const LEASE_SECRETS_MODULE = 'lease_secrets';

/** What follows the lease id in a secret identity (`DOMAIN`). */
export const SECRETS_DOMAIN = new TextEncoder().encode('lease-secrets');

/** Abort codes of the `lease_secrets` module, name → number, as its `const E…: u64` constants. */
export const LeaseSecretsAbortCode = {
  /** Only the lease's tenant sets its secrets or gets their keys as the tenant. */
  ENotTenant: 0,
  /** The lease is closed: its secrets no longer change and its provider gets no keys. */
  ELeaseClosed: 1,
  /** The version is not the current one plus one (another `set_secrets` landed first). */
  EVersionNotNext: 2,
  /** A secret identity must begin with the lease's id bytes and the domain tag. */
  EWrongKeyId: 3,
  /** The lease is for another repository. */
  EWrongRepository: 4,
  /** The ProviderCap is not the one of the lease's provider. */
  ENotProvider: 5,
  /** The lease's tenant may no longer read the repository: its provider gets no keys. */
  ETenantNotReader: 6,
  /** The lease's funds ran out by the Clock's time: its provider gets no keys. */
  ELeaseExhausted: 7,
} as const;

export type LeaseSecretsAbortName = keyof typeof LeaseSecretsAbortCode;

const namesByCode = new Map<number, LeaseSecretsAbortName>((Object.entries(LeaseSecretsAbortCode) as [LeaseSecretsAbortName, number][]).map(([name, code]) => [code, name]));

/** The `lease_secrets` constant's name for an abort code raised in that module, or undefined. */
export function leaseSecretsAbortName(code: number): LeaseSecretsAbortName | undefined {
  return namesByCode.get(code);
}

/** A Move abort raised in module `lease_secrets`. */
export class LeaseSecretsAbort extends MoveAbort<LeaseSecretsAbortName> {
  constructor(functionName: string, name: LeaseSecretsAbortName) {
    super(LEASE_SECRETS_MODULE, functionName, name, LeaseSecretsAbortCode[name]);
  }
}

/** `SecretsKey()`: a struct without fields, which Move stores with one `dummy_field: bool`. */
export const SecretsKey = bcs.struct('SecretsKey', { dummy_field: bcs.bool() });
export const Secrets = bcs.struct('Secrets', { blob_id: U256, version: U64, set_at_ms: U64 });
export type SecretsValue = ReturnType<typeof Secrets.parse>;

export function secretsKeyType(pkg: string): string {
  return `${pkg}::${LEASE_SECRETS_MODULE}::SecretsKey`;
}
export function secretsType(pkg: string): string {
  return `${pkg}::${LEASE_SECRETS_MODULE}::Secrets`;
}
/** The BCS of the dynamic field's name (`SecretsKey()`). */
export const SECRETS_KEY_BCS = SecretsKey.serialize({ dummy_field: false }).toBytes();

function check(condition: boolean, functionName: string, name: LeaseSecretsAbortName): asserts condition {
  if (!condition) throw new LeaseSecretsAbort(functionName, name);
}

/** The lease's current secrets, or null before any (the dynamic field read through the table store). */
export function secretsOf(tables: TableStore, pkg: string, lease: LeaseValue): SecretsValue | null {
  const value = tables.get(lease.id, secretsKeyType(pkg), SECRETS_KEY_BCS);
  return value === null ? null : Secrets.parse(value);
}

/** `secrets_version`: the current version, 0 before any. */
export function secretsVersion(ctx: MoveContext, lease: LeaseValue): bigint {
  return secretsOf(ctx.tables, ctx.packageId, lease)?.version ?? 0n;
}

/** `set_secrets`: the tenant points a lease that is not closed at the next version of its secrets. */
export function setSecrets(ctx: MoveContext, lease: LeaseValue, blobId: bigint, version: bigint, nowMs: bigint): void {
  const fn = 'set_secrets';
  check(ctx.sender === lease.tenant, fn, 'ENotTenant');
  check(leaseStateAt(lease, nowMs) !== LeaseState.closed, fn, 'ELeaseClosed');
  const current = secretsOf(ctx.tables, ctx.packageId, lease);
  check(version === (current?.version ?? 0n) + 1n, fn, 'EVersionNotNext');
  const value = Secrets.serialize({ blob_id: blobId, version, set_at_ms: nowMs }).toBytes();
  if (current === null) ctx.tables.add(lease.id, secretsKeyType(ctx.packageId), SECRETS_KEY_BCS, secretsType(ctx.packageId), value);
  else ctx.tables.set(lease.id, secretsKeyType(ctx.packageId), SECRETS_KEY_BCS, secretsType(ctx.packageId), value);
}

/** The first bytes of every secret identity of the lease `leaseId`: its id bytes, then the domain tag. */
export function secretIdPrefix(leaseId: string): Uint8Array {
  return new Uint8Array([...ID.serialize(leaseId).toBytes(), ...SECRETS_DOMAIN]);
}

function isSecretId(id: Uint8Array, lease: LeaseValue): boolean {
  const prefix = secretIdPrefix(lease.id);
  return id.length >= prefix.length && prefix.every((b, i) => id[i] === b);
}

/**
 * `seal_approve_lease_secrets`: returns normally to approve; aborts unless `id` is a secret identity of the lease,
 * the lease is on `repo`, `cap` is its provider's, the tenant may read the repository and the lease is open and
 * funded at `nowMs`. (That the sender owns `cap` is the chain's input check, before any Move code runs.)
 */
export function sealApproveLeaseSecrets(id: Uint8Array, repo: RepositoryValue, lease: LeaseValue, cap: ProviderCapValue, nowMs: bigint): void {
  const fn = 'seal_approve_lease_secrets';
  check(isSecretId(id, lease), fn, 'EWrongKeyId');
  check(lease.repository === repo.id, fn, 'EWrongRepository');
  check(cap.provider === lease.provider, fn, 'ENotProvider');
  check(canRead(repo, lease.tenant), fn, 'ETenantNotReader');
  const state = leaseStateAt(lease, nowMs);
  check(state !== LeaseState.closed, fn, 'ELeaseClosed');
  check(state === LeaseState.open, fn, 'ELeaseExhausted');
}

/** `seal_approve_lease_secrets_as_tenant`: approves a secret identity of the lease for its tenant only. */
export function sealApproveLeaseSecretsAsTenant(ctx: MoveContext, id: Uint8Array, lease: LeaseValue): void {
  const fn = 'seal_approve_lease_secrets_as_tenant';
  check(isSecretId(id, lease), fn, 'EWrongKeyId');
  check(ctx.sender === lease.tenant, fn, 'ENotTenant');
}
