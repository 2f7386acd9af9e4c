/**
 * A tenant's secrets for the app its lease runs (docs/architecture.md, Secrets sealed to a lease): `set`, `unset`
 * and `list` for the tenant, and `read` for whoever the key servers give the keys (the tenant, or the lease's provider
 * while the lease is open, funded and its tenant a reader). Each change writes the whole set anew as the next version:
 * sealed on this machine, stored on Walrus, then the lease pointed at it; everything the user can get wrong is
 * refused before anything is stored. No value ever reaches a message or a log line.
 */
import type { SecretEntry, SecretListing } from '../../core/lease-secrets.ts';
import {
  BuildSecretsUnreadableError, LeaseClosedForSecretsError, NotLeaseTenantError, SecretsEnvelopeError, UnknownSecretError, checkSecret, checkSecretName,
  namedSecrets, nextSecrets,
} from '../../core/lease-secrets.ts';
import { openSecrets, parseSecretsEnvelope, sealSecrets, secretsIdentity } from '../../core/secrets-envelope.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { KeyService, SecretsGrant } from '../../ports/key-service.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { LeaseInfo, MarketLedger, SecretsPointer } from '../../ports/market.ts';

export interface SecretsDeps {
  market: MarketLedger;
  ledger: Pick<Ledger, 'getRepository'>;
  blobStore: Pick<BlobStore, 'read' | 'write'>;
  keyService: KeyService;
}

/** One version of a lease's secrets, opened. */
export interface OpenedSecrets {
  version: number;
  setAtMs: number;
  secrets: SecretEntry[];
}

/**
 * The lease's current secrets, opened with the keys `grant` claims (the tenant's: no cap; the provider's: its cap),
 * or null before any.
 */
export async function readSecrets(deps: SecretsDeps, lease: LeaseInfo, grant: SecretsGrant): Promise<OpenedSecrets | null> {
  const pointer = await deps.market.leaseSecrets(lease.id);
  return pointer === null ? null : openSecretsAt(deps, lease, pointer, grant);
}

/**
 * One version of the lease's secrets (`pointer`: its blob and version, the current one or one a pod names), opened
 * with the keys `grant` claims. The sealed key must name this lease and version, or nothing is asked of the key
 * servers.
 */
export async function openSecretsAt(deps: SecretsDeps, lease: LeaseInfo, pointer: Pick<SecretsPointer, 'blobId' | 'version'> & { setAtMs?: bigint }, grant: SecretsGrant): Promise<OpenedSecrets> {
  const version = Number(pointer.version);
  const { sealedKey, body } = parseSecretsEnvelope(pointer.blobId, await deps.blobStore.read(pointer.blobId));
  const identity = secretsIdentity(lease.id, version);
  if (Buffer.compare(await deps.keyService.identityOf(sealedKey), identity) !== 0) {
    throw new SecretsEnvelopeError(pointer.blobId, `its key is sealed for another lease or version than version ${version} of lease ${lease.id}`);
  }
  const repository = await deps.ledger.getRepository(lease.repository);
  const [key] = await deps.keyService.forLeaseSecrets(grant).open({ id: repository.id, name: repository.name, owner: repository.owner }, [sealedKey]);
  return { version, setAtMs: Number(pointer.setAtMs ?? 0n), secrets: openSecrets(pointer.blobId, body, await key!(), identity) };
}

/**
 * The provider's read, for the app's pods: version `version` in blob `blobId` (what the pod template names) or the
 * current one, opened with the signer's ProviderCap of the lease's provider. The key servers give the keys only while
 * the lease is open and funded and its tenant may read the repository.
 */
export async function providerSecrets(deps: SecretsDeps, leaseId: string, at?: { blobId: string; version: number }): Promise<OpenedSecrets | null> {
  const lease = await deps.market.getLease(leaseId);
  const grant = { lease: lease.id, cap: await deps.market.providerCapId(lease.provider) };
  if (at === undefined) return readSecrets(deps, lease, grant);
  return openSecretsAt(deps, lease, { blobId: at.blobId, version: BigInt(at.version) }, grant);
}

/**
 * The secrets `names` lists, of the lease's current version, for a build on this machine (`artifact rebuild`): opened
 * with the tenant's keys when the signer is the tenant, else with its ProviderCap of the lease's provider; anyone else
 * is refused before the key servers are asked. Each name must be set (else BuildSecretNotSetError).
 */
export async function buildSecretsOf(deps: SecretsDeps, leaseId: string, names: readonly string[]): Promise<SecretEntry[]> {
  const [lease, signer] = await Promise.all([deps.market.getLease(leaseId), deps.market.signerAddress()]);
  let grant: SecretsGrant = { lease: lease.id };
  if (lease.tenant !== signer) {
    if (!(await deps.market.ownProviders()).includes(lease.provider)) throw new BuildSecretsUnreadableError(lease.id, names, signer, lease.tenant);
    grant = { lease: lease.id, cap: await deps.market.providerCapId(lease.provider) };
  }
  const opened = await readSecrets(deps, lease, grant);
  return namedSecrets(lease.id, opened?.secrets ?? [], names);
}

/** The lease, when the signer is its tenant (else NotLeaseTenantError). */
async function tenantLease(deps: SecretsDeps, leaseId: string): Promise<LeaseInfo> {
  const [lease, signer] = await Promise.all([deps.market.getLease(leaseId), deps.market.signerAddress()]);
  if (lease.tenant !== signer) throw new NotLeaseTenantError(lease.id, signer, lease.tenant);
  return lease;
}

/**
 * Writes `set` and removes `unset` as the next version of the lease's secrets. Refused before anything is stored: a
 * bad name or value, a name to unset that is not set, a lease not the signer's or closed.
 */
export async function changeSecrets(deps: SecretsDeps, leaseId: string, set: ReadonlyMap<string, string>, unset: readonly string[]): Promise<{ version: number; digest: string; names: string[] }> {
  for (const [name, value] of set) checkSecret(name, value);
  unset.forEach((name, i) => checkSecretName(name, `name ${i + 1} to unset`));
  const lease = await tenantLease(deps, leaseId);
  if (lease.state === 'closed') throw new LeaseClosedForSecretsError(lease.id);
  const [current, nowMs] = await Promise.all([readSecrets(deps, lease, { lease: lease.id }), deps.market.clockMs()]);
  const held = new Set((current?.secrets ?? []).map((entry) => entry.name));
  for (const name of unset) if (!held.has(name)) throw new UnknownSecretError(lease.id, name);
  const version = (current?.version ?? 0) + 1;
  const next = nextSecrets(current?.secrets ?? [], set, unset, version, nowMs);
  const sealed = await sealSecrets(next, secretsIdentity(lease.id, version), (identity, dataKey) => deps.keyService.seal(identity, dataKey));
  const { blobId } = await deps.blobStore.write(sealed);
  const { digest } = await deps.market.setLeaseSecrets(lease.id, blobId, BigInt(version));
  return { version, digest, names: next.map((entry) => entry.name) };
}

/** The names of the lease's secrets with the version that last set each and when: never their values (tenant only). */
export async function listSecrets(deps: SecretsDeps, leaseId: string): Promise<{ version: number; secrets: SecretListing[] }> {
  const lease = await tenantLease(deps, leaseId);
  const current = await readSecrets(deps, lease, { lease: lease.id });
  return { version: current?.version ?? 0, secrets: (current?.secrets ?? []).map(({ name, version, setAtMs }) => ({ name, version, setAtMs })) };
}
