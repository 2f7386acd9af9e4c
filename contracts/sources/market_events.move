/// Events of the compute market (queried as `<original package id>::market_events::<Name>`). Each carries the ID of
/// the object whose state changed. Field order is mirrored by src/contract/market-bcs.ts.
module walrus_git::market_events;

use std::string::String;
use sui::event;

public struct MarketParamsSet has copy, drop {
    market: ID,
    min_stake: u64,
    unbonding_ms: u64,
    min_lease_ms: u64,
}

public struct ProviderRegistered has copy, drop {
    provider: ID,
    owner: address,
    stake: u64,
    price_per_ms: u64,
    endpoint: String,
}

public struct StakeAdded has copy, drop {
    provider: ID,
    amount: u64,
    stake: u64,
}

public struct UnbondRequested has copy, drop {
    provider: ID,
    at_ms: u64,
    withdrawable_at_ms: u64,
}

public struct StakeWithdrawn has copy, drop {
    provider: ID,
    owner: address,
    amount: u64,
}

public struct Slashed has copy, drop {
    provider: ID,
    lease: ID,
    tenant: address,
    amount: u64,
    stake: u64,
}

public struct LeaseOpened has copy, drop {
    lease: ID,
    provider: ID,
    tenant: address,
    repository: ID,
    ref_name: String,
    price_per_ms: u64,
    deposit: u64,
    at_ms: u64,
}

public struct ToppedUp has copy, drop {
    lease: ID,
    from: address,
    amount: u64,
    escrow: u64,
}

/// Settlement moved `amount` from the escrow to the provider's earned balance, up to `settled_until_ms`; `state`
/// is the lease's state afterwards (1 = the funds ran out).
public struct LeaseSettled has copy, drop {
    lease: ID,
    amount: u64,
    settled_until_ms: u64,
    state: u8,
}

public struct Claimed has copy, drop {
    lease: ID,
    provider: ID,
    owner: address,
    amount: u64,
}

/// `by_provider`: closed by the provider's cap rather than the tenant. `refund` went to the tenant, `payout` to the
/// provider's owner.
public struct LeaseClosed has copy, drop {
    lease: ID,
    provider: ID,
    by_provider: bool,
    refund: u64,
    payout: u64,
    at_ms: u64,
}

/// Why a lease ended (`market`'s `END_*`: 1 closed by the tenant, 2 closed by the provider, 3 its funds ran out, 4
/// closed by the provider while unbonding), who closed it and when; emitted after `LeaseClosed`, as the Lease's
/// `LeaseEnd` field records it.
public struct LeaseEnded has copy, drop {
    lease: ID,
    provider: ID,
    reason: u8,
    by: address,
    at_ms: u64,
}

/// What a provider deployed for a lease: `commit` was the value of the lease's ref in the repository at `at_ms`;
/// `artifact` is the Walrus blob id of the built app and `sha256` its digest.
public struct Deployed has copy, drop {
    lease: ID,
    provider: ID,
    repository: ID,
    ref_name: String,
    commit: vector<u8>,
    artifact: u256,
    sha256: vector<u8>,
    at_ms: u64,
}

/// The lease's provider stated where the lease's app answers.
public struct UrlStated has copy, drop {
    lease: ID,
    provider: ID,
    url: String,
    at_ms: u64,
}

/// The lease's provider withdrew the URL it had stated: the app no longer answers there.
public struct UrlWithdrawn has copy, drop {
    lease: ID,
    provider: ID,
    at_ms: u64,
}

public(package) fun emit_market_params_set(market: ID, min_stake: u64, unbonding_ms: u64, min_lease_ms: u64) {
    event::emit(MarketParamsSet { market, min_stake, unbonding_ms, min_lease_ms })
}

public(package) fun emit_provider_registered(
    provider: ID,
    owner: address,
    stake: u64,
    price_per_ms: u64,
    endpoint: String,
) {
    event::emit(ProviderRegistered { provider, owner, stake, price_per_ms, endpoint })
}

public(package) fun emit_stake_added(provider: ID, amount: u64, stake: u64) {
    event::emit(StakeAdded { provider, amount, stake })
}

public(package) fun emit_unbond_requested(provider: ID, at_ms: u64, withdrawable_at_ms: u64) {
    event::emit(UnbondRequested { provider, at_ms, withdrawable_at_ms })
}

public(package) fun emit_stake_withdrawn(provider: ID, owner: address, amount: u64) {
    event::emit(StakeWithdrawn { provider, owner, amount })
}

public(package) fun emit_slashed(provider: ID, lease: ID, tenant: address, amount: u64, stake: u64) {
    event::emit(Slashed { provider, lease, tenant, amount, stake })
}

public(package) fun emit_lease_opened(
    lease: ID,
    provider: ID,
    tenant: address,
    repository: ID,
    ref_name: String,
    price_per_ms: u64,
    deposit: u64,
    at_ms: u64,
) {
    event::emit(LeaseOpened { lease, provider, tenant, repository, ref_name, price_per_ms, deposit, at_ms })
}

public(package) fun emit_topped_up(lease: ID, from: address, amount: u64, escrow: u64) {
    event::emit(ToppedUp { lease, from, amount, escrow })
}

public(package) fun emit_lease_settled(lease: ID, amount: u64, settled_until_ms: u64, state: u8) {
    event::emit(LeaseSettled { lease, amount, settled_until_ms, state })
}

public(package) fun emit_claimed(lease: ID, provider: ID, owner: address, amount: u64) {
    event::emit(Claimed { lease, provider, owner, amount })
}

public(package) fun emit_lease_closed(
    lease: ID,
    provider: ID,
    by_provider: bool,
    refund: u64,
    payout: u64,
    at_ms: u64,
) {
    event::emit(LeaseClosed { lease, provider, by_provider, refund, payout, at_ms })
}

public(package) fun emit_lease_ended(lease: ID, provider: ID, reason: u8, by: address, at_ms: u64) {
    event::emit(LeaseEnded { lease, provider, reason, by, at_ms })
}

public(package) fun emit_deployed(
    lease: ID,
    provider: ID,
    repository: ID,
    ref_name: String,
    commit: vector<u8>,
    artifact: u256,
    sha256: vector<u8>,
    at_ms: u64,
) {
    event::emit(Deployed { lease, provider, repository, ref_name, commit, artifact, sha256, at_ms })
}

public(package) fun emit_url_stated(lease: ID, provider: ID, url: String, at_ms: u64) {
    event::emit(UrlStated { lease, provider, url, at_ms })
}

public(package) fun emit_url_withdrawn(lease: ID, provider: ID, at_ms: u64) {
    event::emit(UrlWithdrawn { lease, provider, at_ms })
}
