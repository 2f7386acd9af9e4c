/// Lease-scoped read access to a private repository (docs/architecture.md, Lease-scoped Seal access): while a tenant
/// pays a provider to run a repository, that provider may decrypt it. `seal_approve_lease` is the Seal policy the key
/// servers dry-run with the requester as sender: it gives the keys of the lease's repository to whoever passes the
/// ProviderCap of the lease's provider (a transaction can only use an owned object its sender owns, so passing the
/// cap proves holding it) while the lease's tenant may read the repository (`repository::can_read`: its owner, a
/// writer or a reader, asked at every key request) and the lease is open and its escrow outlasts the Clock's time. A
/// lease grants nothing its tenant could not read itself: removing the tenant as a reader, closing or exhausting the
/// lease ends it; keys are derived per id on request, so packs pushed later are out of reach (what the provider
/// decrypted before stays decrypted). The owner, the writers and the readers keep `repository::seal_approve`.
///
/// The TypeScript twin is src/contract/lease-access-model.ts: same checks in the same order, same abort codes.
module walrus_git::lease_access;

use sui::clock::Clock;
use walrus_git::{market::{Lease, ProviderCap}, repository::{Self, Repository}};

/// Lease states, as `market` numbers them.
const STATE_OPEN: u8 = 0;
const STATE_CLOSED: u8 = 2;

/// A Seal key id must begin with the repository's id bytes.
const EWrongKeyId: u64 = 0;
/// The lease is for another repository.
const EWrongRepository: u64 = 1;
/// The ProviderCap is not the one of the lease's provider.
const ENotProvider: u64 = 2;
/// The lease is closed: its provider gets no more keys.
const ELeaseClosed: u64 = 3;
/// The lease's funds ran out by the Clock's time: its provider gets no more keys.
const ELeaseExhausted: u64 = 4;
/// The lease's tenant may not read the repository (not its owner, a writer or a reader): its provider gets no keys.
const ETenantNotReader: u64 = 5;

/// The Seal policy for the provider of a lease: aborts unless `id` (the key id without the package prefix) begins
/// with the repository's id bytes, the lease is on that repository, `cap` is its provider's, the lease's tenant may
/// read the repository and the lease is open and funded at the Clock's time. No side effects.
entry fun seal_approve_lease(id: vector<u8>, repo: &Repository, lease: &Lease, cap: &ProviderCap, clock: &Clock) {
    assert!(repository::has_prefix(&id, &object::id(repo).to_bytes()), EWrongKeyId);
    assert!(lease.lease_repository() == object::id(repo), EWrongRepository);
    assert!(cap.cap_provider() == lease.lease_provider(), ENotProvider);
    assert!(repo.can_read(lease.tenant()), ETenantNotReader);
    let state = lease.lease_state_at(clock.timestamp_ms());
    assert!(state != STATE_CLOSED, ELeaseClosed);
    assert!(state == STATE_OPEN, ELeaseExhausted);
}

// === Test-only ===

/// `seal_approve_lease` is a non-public entry function (as Seal recommends); tests call it through this.
#[test_only]
public fun seal_approve_lease_for_testing(
    id: vector<u8>,
    repo: &Repository,
    lease: &Lease,
    cap: &ProviderCap,
    clock: &Clock,
) {
    seal_approve_lease(id, repo, lease, cap, clock)
}
