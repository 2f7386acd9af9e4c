/// A tenant's secrets for the app its lease runs (docs/architecture.md, Secrets sealed to a lease). The values never
/// touch the chain: the tenant seals them with Seal under the lease's secret identity, stores the ciphertext on
/// Walrus and points the lease at it with `set_secrets`. The pointer lives in a dynamic field of the Lease, not in a
/// Lease field, because a Sui package upgrade cannot change a struct's layout.
///
/// A secret identity (the key id without the package prefix) is the lease's id bytes, then `DOMAIN`, then anything
/// (the CLI appends the version as a u64, little-endian, so each version has its own key). A repository key id
/// begins with a repository's id bytes, never a lease's, so neither policy answers for the other's ids.
/// `seal_approve_lease_secrets` gives those keys to the lease's provider (its ProviderCap) while the lease is open,
/// funded by the Clock and its tenant may still read the repository; `seal_approve_lease_secrets_as_tenant` gives
/// them to the tenant. Nobody else gets them: the repository's owner, writers and readers included.
///
/// The TypeScript twin is src/contract/lease-secrets-model.ts: same checks in the same order, same abort codes.
module walrus_git::lease_secrets;

use sui::{clock::Clock, dynamic_field as df};
use walrus_git::{market::{Lease, ProviderCap}, repository::{Self, Repository}};

/// Lease states, as `market` numbers them.
const STATE_OPEN: u8 = 0;
const STATE_CLOSED: u8 = 2;

/// What follows the lease id in a secret identity.
const DOMAIN: vector<u8> = b"lease-secrets";

/// Only the lease's tenant sets its secrets or gets their keys as the tenant.
const ENotTenant: u64 = 0;
/// The lease is closed: its secrets no longer change and its provider gets no keys.
const ELeaseClosed: u64 = 1;
/// The version is not the current one plus one (another `set_secrets` landed first).
const EVersionNotNext: u64 = 2;
/// A secret identity must begin with the lease's id bytes and the domain tag.
const EWrongKeyId: u64 = 3;
/// The lease is for another repository.
const EWrongRepository: u64 = 4;
/// The ProviderCap is not the one of the lease's provider.
const ENotProvider: u64 = 5;
/// The lease's tenant may no longer read the repository: its provider gets no keys.
const ETenantNotReader: u64 = 6;
/// The lease's funds ran out by the Clock's time: its provider gets no keys.
const ELeaseExhausted: u64 = 7;

/// The dynamic field's name on the Lease.
public struct SecretsKey() has copy, drop, store;

/// The lease's current secrets: a Walrus blob holding the sealed values, its version (1, 2, …) and when it was set.
public struct Secrets has copy, drop, store {
    blob_id: u256,
    version: u64,
    set_at_ms: u64,
}

/// Points the lease at version `version` of its secrets, sealed in Walrus blob `blob_id`. Tenant only, on a lease
/// that is not closed; `version` must follow the current one (1 for the first), so two concurrent writers cannot
/// silently replace each other's values.
public fun set_secrets(lease: &mut Lease, blob_id: u256, version: u64, clock: &Clock, ctx: &TxContext) {
    assert!(ctx.sender() == lease.tenant(), ENotTenant);
    let now = clock.timestamp_ms();
    assert!(lease.lease_state_at(now) != STATE_CLOSED, ELeaseClosed);
    assert!(version == secrets_version(lease) + 1, EVersionNotNext);
    let secrets = Secrets { blob_id, version, set_at_ms: now };
    let uid = lease.lease_uid_mut();
    if (df::exists_(uid, SecretsKey())) *df::borrow_mut(uid, SecretsKey()) = secrets
    else df::add(uid, SecretsKey(), secrets);
}

/// The current version of the lease's secrets; 0 before any.
public fun secrets_version(lease: &Lease): u64 {
    let uid = lease.lease_uid();
    if (df::exists_(uid, SecretsKey())) df::borrow<SecretsKey, Secrets>(uid, SecretsKey()).version else 0
}

/// The Seal policy for the provider of a lease: aborts unless `id` is a secret identity of the lease, the lease is on
/// `repo`, `cap` is its provider's, the tenant may read the repository and the lease is open and funded at the
/// Clock's time. No side effects.
entry fun seal_approve_lease_secrets(id: vector<u8>, repo: &Repository, lease: &Lease, cap: &ProviderCap, clock: &Clock) {
    assert!(is_secret_id(&id, lease), EWrongKeyId);
    assert!(lease.lease_repository() == object::id(repo), EWrongRepository);
    assert!(cap.cap_provider() == lease.lease_provider(), ENotProvider);
    assert!(repo.can_read(lease.tenant()), ETenantNotReader);
    let state = lease.lease_state_at(clock.timestamp_ms());
    assert!(state != STATE_CLOSED, ELeaseClosed);
    assert!(state == STATE_OPEN, ELeaseExhausted);
}

/// The Seal policy for the tenant of a lease: aborts unless `id` is a secret identity of the lease and the sender is
/// its tenant. No side effects.
entry fun seal_approve_lease_secrets_as_tenant(id: vector<u8>, lease: &Lease, ctx: &TxContext) {
    assert!(is_secret_id(&id, lease), EWrongKeyId);
    assert!(ctx.sender() == lease.tenant(), ENotTenant);
}

fun is_secret_id(id: &vector<u8>, lease: &Lease): bool {
    let mut prefix = object::id(lease).to_bytes();
    prefix.append(DOMAIN);
    repository::has_prefix(id, &prefix)
}

// === Test-only ===

/// The policies are non-public entry functions (as Seal recommends); tests call them through these.
#[test_only]
public fun seal_approve_lease_secrets_for_testing(
    id: vector<u8>,
    repo: &Repository,
    lease: &Lease,
    cap: &ProviderCap,
    clock: &Clock,
) {
    seal_approve_lease_secrets(id, repo, lease, cap, clock)
}

#[test_only]
public fun seal_approve_lease_secrets_as_tenant_for_testing(id: vector<u8>, lease: &Lease, ctx: &TxContext) {
    seal_approve_lease_secrets_as_tenant(id, lease, ctx)
}
