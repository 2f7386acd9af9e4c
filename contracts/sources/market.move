/// The compute market (docs/architecture.md, The market): providers stake SUI and post a price per millisecond; a
/// tenant leases a provider for one repository ref and pays into an escrow that the clock settles lazily (no per-block
/// work: every call that touches a lease first moves what has accrued from its escrow to the provider's earned
/// balance). A provider records on chain what it deployed, checked against the repository's current ref. An `AdminCap`
/// can slash a provider's stake, at most all of it, to pay a harmed tenant. A closed lease keeps why it ended
/// (`LeaseEnd`: closed by its tenant, by its provider, after its funds ran out, or by its provider while unbonding),
/// who closed it and when.
///
/// Money only ever moves between four places: the tenant's deposits enter a lease's escrow; settlement moves escrow
/// to earned; `claim` and `close` pay earned to the provider's owner; `close` refunds the escrow to the tenant. So
/// for every lease, at every moment: deposits = paid to the provider + refunded + escrow + earned. Stakes are apart:
/// staked = withdrawn + slashed + held.
///
/// No entry point loops over a table or any unbounded collection. `ProviderCap` authorises the provider's
/// operations (it can live with a controller); payments always go to the provider's `owner` address.
///
/// The TypeScript twin is src/contract/market-model.ts: same checks in the same order, same abort codes.
module walrus_git::market;

use std::string::String;
use sui::{balance::{Self, Balance}, clock::Clock, coin::Coin, dynamic_field as df, sui::SUI, vec_map::{Self, VecMap}};
use walrus_git::{market_events as events, repository::{Self, Repository}};

/// Package version of market objects; every function checks it, as in `repository`.
const VERSION: u64 = 1;
/// Longest endpoint, attribute key or attribute value, in bytes.
const MAX_TEXT_LENGTH: u64 = 256;
/// Attributes are stored inline, so their number is capped.
const MAX_ATTRIBUTES: u64 = 32;
/// Defaults set by `init`, changed by `set_params`: 10 SUI, 7 days, 1 hour.
const DEFAULT_MIN_STAKE: u64 = 10_000_000_000;
const DEFAULT_UNBONDING_MS: u64 = 604_800_000;
const DEFAULT_MIN_LEASE_MS: u64 = 3_600_000;

/// Lease states.
const STATE_OPEN: u8 = 0;
const STATE_EXHAUSTED: u8 = 1;
const STATE_CLOSED: u8 = 2;

/// Why a lease ended (`LeaseEnd.reason`), decided when it is closed; 0 is never stored.
/// Its tenant closed it while it was funded.
const END_CLOSED_BY_TENANT: u8 = 1;
/// Its provider closed it while it was funded and the provider was bonded.
const END_CLOSED_BY_PROVIDER: u8 = 2;
/// Its funds ran out before it was closed (whoever closed it).
const END_FUNDS_RAN_OUT: u8 = 3;
/// Its provider closed it while it was funded and the provider was unbonding: leaving the market (its stake is
/// withdrawn only once every lease is closed).
const END_PROVIDER_UNBONDING: u8 = 4;

/// The object was created by another package version: call the current package.
const EWrongVersion: u64 = 0;
/// The stake is below the market's minimum (to register, or for a provider to take a new lease).
const EStakeTooLow: u64 = 1;
/// The price per millisecond must be above zero.
const EInvalidPrice: u64 = 2;
/// Endpoint an http(s) URL with a host (as `is_valid_url`); at most 32 attributes, keys and values of the same count,
/// unique keys, each ≤ 256 bytes without control characters.
const EInvalidProviderInfo: u64 = 3;
/// The ProviderCap belongs to another provider.
const ENotProvider: u64 = 4;
/// The Provider object is not the lease's provider.
const EWrongProvider: u64 = 5;
/// The provider is unbonding and takes no new leases.
const ENotAccepting: u64 = 6;
/// The deposit pays for less than the market's minimum lease duration at the provider's price.
const EDepositTooSmall: u64 = 7;
/// The ref is not a valid git ref name under refs/.
const EInvalidRefName: u64 = 8;
/// Only the lease's tenant may do this.
const ENotTenant: u64 = 9;
/// The lease is closed.
const ELeaseClosed: u64 = 10;
/// The lease's funds ran out: it can only be closed (open a new lease).
const ELeaseExhausted: u64 = 11;
/// The amount must be above zero.
const EZeroAmount: u64 = 12;
/// The provider is already unbonding.
const EAlreadyUnbonding: u64 = 13;
/// Request unbonding first.
const ENotUnbonding: u64 = 14;
/// The provider still has leases that are not closed.
const EActiveLeases: u64 = 15;
/// The unbonding delay has not passed yet.
const ETooEarly: u64 = 16;
/// A slash may not exceed the provider's stake.
const ESlashExceedsStake: u64 = 17;
/// The Repository object is not the lease's repository.
const EWrongRepository: u64 = 18;
/// The commit is not the current value of the lease's ref in the repository.
const ENotHead: u64 = 19;
/// An artifact's sha256 is 32 bytes.
const EInvalidArtifact: u64 = 20;
/// A lease's URL is 1–256 bytes of printable ASCII (no spaces) starting with http:// or https://.
const EInvalidUrl: u64 = 21;
/// The repository is private and the tenant may not read it (not its owner, a writer or a reader): opening a lease
/// as the sender, or recording a deploy for the lease's tenant.
const ECannotRead: u64 = 22;

/// The market's parameters (shared, created once at publish).
public struct Market has key {
    id: UID,
    version: u64,
    /// Least stake (MIST) to register, and to take a new lease.
    min_stake: u64,
    /// How long (ms) the stake stays slashable after `request_unbond` before it can be withdrawn.
    unbonding_ms: u64,
    /// A lease's deposit must pay for at least this long (ms) at the provider's price.
    min_lease_ms: u64,
}

/// Authority to slash and to set the market's parameters (given to the publisher).
public struct AdminCap has key, store {
    id: UID,
}

/// One provider (shared). Field order is the BCS layout mirrored by src/contract/market-bcs.ts.
public struct Provider has key {
    id: UID,
    version: u64,
    /// Where payments and the stake go.
    owner: address,
    stake: Balance<SUI>,
    /// MIST per millisecond of a new lease.
    price_per_ms: u64,
    /// How tenants reach the provider (URL).
    endpoint: String,
    attributes: VecMap<String, String>,
    /// Leases opened and not yet closed (an exhausted lease counts until it is closed).
    active_leases: u64,
    /// When the stake becomes withdrawable; none while bonded.
    unbonds_at_ms: Option<u64>,
    /// Leases closed by the tenant, or after their funds ran out.
    completed_leases: u64,
    /// Leases the provider closed while they were still funded.
    provider_closed_leases: u64,
    /// Total MIST slashed.
    slashed: u64,
}

/// Authorises the operations of one provider.
public struct ProviderCap has key, store {
    id: UID,
    provider: ID,
}

/// What the provider last deployed for a lease.
public struct Deployment has copy, drop, store {
    commit: vector<u8>,
    /// Walrus blob id of the built artifact.
    artifact: u256,
    sha256: vector<u8>,
    at_ms: u64,
}

/// One app served by one provider for one tenant (shared).
public struct Lease has key {
    id: UID,
    version: u64,
    tenant: address,
    provider: ID,
    repository: ID,
    ref_name: String,
    /// The provider's price when the lease was opened.
    price_per_ms: u64,
    /// Not yet earned by the provider.
    escrow: Balance<SUI>,
    /// Earned by the provider, not yet paid.
    earned: Balance<SUI>,
    /// Time up to which the escrow has been settled.
    settled_until_ms: u64,
    /// 0 open, 1 exhausted (the funds ran out), 2 closed.
    state: u8,
    last_deploy: Option<Deployment>,
    /// Where the provider serves the lease's app (stated by `state_url`); empty until stated and once withdrawn
    /// (`withdraw_url`).
    url: String,
}

/// The name of a closed lease's dynamic field holding its `LeaseEnd` (a field, since an upgrade cannot change the
/// Lease's layout).
public struct EndKey() has copy, drop, store;

/// How a lease ended: why (`END_*`), who closed it (the tenant, or the holder of the provider's cap) and when by the
/// Clock.
public struct LeaseEnd has copy, drop, store {
    reason: u8,
    by: address,
    at_ms: u64,
}

fun init(ctx: &mut TxContext) {
    let market = Market {
        id: object::new(ctx),
        version: VERSION,
        min_stake: DEFAULT_MIN_STAKE,
        unbonding_ms: DEFAULT_UNBONDING_MS,
        min_lease_ms: DEFAULT_MIN_LEASE_MS,
    };
    transfer::share_object(market);
    transfer::public_transfer(AdminCap { id: object::new(ctx) }, ctx.sender());
}

/// Sets the market's parameters. A changed unbonding delay applies to unbonding requested afterwards.
public fun set_params(
    market: &mut Market,
    _admin: &AdminCap,
    min_stake: u64,
    unbonding_ms: u64,
    min_lease_ms: u64,
) {
    assert!(market.version == VERSION, EWrongVersion);
    market.min_stake = min_stake;
    market.unbonding_ms = unbonding_ms;
    market.min_lease_ms = min_lease_ms;
    events::emit_market_params_set(object::id(market), min_stake, unbonding_ms, min_lease_ms);
}

/// Registers the sender as a provider with `stake`; shares the Provider, sends the sender its ProviderCap and
/// returns the Provider's ID. `keys` and `values` are the attributes (e.g. region, cpu).
public fun register(
    market: &Market,
    stake: Coin<SUI>,
    price_per_ms: u64,
    endpoint: String,
    keys: vector<String>,
    values: vector<String>,
    ctx: &mut TxContext,
): ID {
    assert!(market.version == VERSION, EWrongVersion);
    assert!(stake.value() >= market.min_stake, EStakeTooLow);
    assert!(price_per_ms > 0, EInvalidPrice);
    let n = keys.length();
    assert!(
        is_valid_url(endpoint.as_bytes()) && values.length() == n && n <= MAX_ATTRIBUTES,
        EInvalidProviderInfo,
    );
    let mut attributes = vec_map::empty();
    let mut i = 0;
    while (i < n) {
        let key = *keys.borrow(i);
        let value = *values.borrow(i);
        assert!(
            key.length() <= MAX_TEXT_LENGTH && value.length() <= MAX_TEXT_LENGTH && !attributes.contains(&key),
            EInvalidProviderInfo,
        );
        assert!(is_free_of_controls(key.as_bytes()) && is_free_of_controls(value.as_bytes()), EInvalidProviderInfo);
        attributes.insert(key, value);
        i = i + 1;
    };
    let owner = ctx.sender();
    let amount = stake.value();
    let provider = Provider {
        id: object::new(ctx),
        version: VERSION,
        owner,
        stake: stake.into_balance(),
        price_per_ms,
        endpoint,
        attributes,
        active_leases: 0,
        unbonds_at_ms: option::none(),
        completed_leases: 0,
        provider_closed_leases: 0,
        slashed: 0,
    };
    let id = object::id(&provider);
    events::emit_provider_registered(id, owner, amount, price_per_ms, endpoint);
    transfer::share_object(provider);
    transfer::public_transfer(ProviderCap { id: object::new(ctx), provider: id }, owner);
    id
}

/// Adds to the provider's stake (e.g. back above the minimum after a slash).
public fun add_stake(provider: &mut Provider, cap: &ProviderCap, coin: Coin<SUI>) {
    provider.assert_cap(cap);
    assert!(coin.value() > 0, EZeroAmount);
    let amount = coin.value();
    provider.stake.join(coin.into_balance());
    events::emit_stake_added(object::id(provider), amount, provider.stake.value());
}

/// Starts unbonding: no new lease from now on; the stake stays slashable for the market's unbonding delay.
public fun request_unbond(market: &Market, provider: &mut Provider, cap: &ProviderCap, clock: &Clock) {
    assert!(market.version == VERSION, EWrongVersion);
    provider.assert_cap(cap);
    assert!(provider.unbonds_at_ms.is_none(), EAlreadyUnbonding);
    let now = clock.timestamp_ms();
    let at = now + market.unbonding_ms;
    provider.unbonds_at_ms = option::some(at);
    events::emit_unbond_requested(object::id(provider), now, at);
}

/// Pays the whole stake to the owner, once unbonding was requested, every lease is closed and the delay passed.
public fun withdraw_stake(provider: &mut Provider, cap: &ProviderCap, clock: &Clock, ctx: &mut TxContext) {
    provider.assert_cap(cap);
    assert!(provider.unbonds_at_ms.is_some(), ENotUnbonding);
    assert!(provider.active_leases == 0, EActiveLeases);
    assert!(clock.timestamp_ms() >= *provider.unbonds_at_ms.borrow(), ETooEarly);
    let amount = provider.stake.value();
    pay(provider.stake.withdraw_all(), provider.owner, ctx);
    events::emit_stake_withdrawn(object::id(provider), provider.owner, amount);
}

/// Takes `amount` of the provider's stake (at most all of it) and pays it to the tenant of `lease`, one of the
/// provider's leases. Works while unbonding too: the stake is slashable until it is withdrawn.
public fun slash(
    _admin: &AdminCap,
    provider: &mut Provider,
    lease: &Lease,
    amount: u64,
    ctx: &mut TxContext,
) {
    assert!(provider.version == VERSION && lease.version == VERSION, EWrongVersion);
    assert!(lease.provider == object::id(provider), EWrongProvider);
    assert!(amount > 0, EZeroAmount);
    assert!(amount <= provider.stake.value(), ESlashExceedsStake);
    pay(provider.stake.split(amount), lease.tenant, ctx);
    provider.slashed = provider.slashed + amount;
    events::emit_slashed(object::id(provider), object::id(lease), lease.tenant, amount, provider.stake.value());
}

/// Opens a lease of `provider` for `ref_name` of `repo`, funded by `deposit`, at the provider's current price;
/// shares it and returns its ID. The deposit must pay for the market's minimum lease duration. A private repository
/// is leased only by someone who may read it (its owner, a writer or a reader), since its provider gets its keys
/// under the lease; anyone may lease a public one.
public fun open_lease(
    market: &Market,
    provider: &mut Provider,
    repo: &Repository,
    ref_name: String,
    deposit: Coin<SUI>,
    clock: &Clock,
    ctx: &mut TxContext,
): ID {
    assert!(market.version == VERSION && provider.version == VERSION, EWrongVersion);
    assert!(provider.unbonds_at_ms.is_none(), ENotAccepting);
    assert!(provider.stake.value() >= market.min_stake, EStakeTooLow);
    assert!(repository::is_valid_ref_name(&ref_name), EInvalidRefName);
    assert!(!repo.is_private() || repo.can_read(ctx.sender()), ECannotRead);
    let amount = deposit.value();
    assert!(
        amount > 0 && (amount as u128) >= (provider.price_per_ms as u128) * (market.min_lease_ms as u128),
        EDepositTooSmall,
    );
    let now = clock.timestamp_ms();
    let lease = Lease {
        id: object::new(ctx),
        version: VERSION,
        tenant: ctx.sender(),
        provider: object::id(provider),
        repository: object::id(repo),
        ref_name,
        price_per_ms: provider.price_per_ms,
        escrow: deposit.into_balance(),
        earned: balance::zero(),
        settled_until_ms: now,
        state: STATE_OPEN,
        last_deploy: option::none(),
        url: b"".to_string(),
    };
    provider.active_leases = provider.active_leases + 1;
    let id = object::id(&lease);
    events::emit_lease_opened(
        id,
        lease.provider,
        lease.tenant,
        lease.repository,
        ref_name,
        lease.price_per_ms,
        amount,
        now,
    );
    transfer::share_object(lease);
    id
}

/// Adds funds to an open lease (anyone may; a refund goes to the tenant). Refused once the funds ran out.
public fun top_up(lease: &mut Lease, coin: Coin<SUI>, clock: &Clock, ctx: &TxContext) {
    assert!(lease.version == VERSION, EWrongVersion);
    assert!(lease.state != STATE_CLOSED, ELeaseClosed);
    assert!(coin.value() > 0, EZeroAmount);
    lease.settle_to(clock.timestamp_ms());
    assert!(lease.state == STATE_OPEN, ELeaseExhausted);
    let amount = coin.value();
    lease.escrow.join(coin.into_balance());
    events::emit_topped_up(object::id(lease), ctx.sender(), amount, lease.escrow.value());
}

/// Settles the lease up to now: anyone may call it.
public fun settle(lease: &mut Lease, clock: &Clock) {
    assert!(lease.version == VERSION, EWrongVersion);
    lease.settle_to(clock.timestamp_ms());
}

/// Settles the lease and pays what the provider has earned to its owner. A second claim pays nothing.
public fun claim(lease: &mut Lease, provider: &Provider, cap: &ProviderCap, clock: &Clock, ctx: &mut TxContext) {
    assert!(lease.version == VERSION, EWrongVersion);
    provider.assert_cap(cap);
    assert!(lease.provider == object::id(provider), EWrongProvider);
    lease.settle_to(clock.timestamp_ms());
    let amount = lease.earned.value();
    if (amount > 0) {
        pay(lease.earned.withdraw_all(), provider.owner, ctx);
        events::emit_claimed(object::id(lease), lease.provider, provider.owner, amount);
    };
}

/// The tenant closes the lease: settles it, refunds the escrow to the tenant and pays the earned balance to the
/// provider's owner.
public fun close(lease: &mut Lease, provider: &mut Provider, clock: &Clock, ctx: &mut TxContext) {
    assert!(lease.version == VERSION && provider.version == VERSION, EWrongVersion);
    assert!(lease.provider == object::id(provider), EWrongProvider);
    assert!(ctx.sender() == lease.tenant, ENotTenant);
    close_lease(lease, provider, false, clock, ctx);
}

/// The provider closes the lease (typically once its funds ran out); same settlement as `close`.
public fun provider_close(
    lease: &mut Lease,
    provider: &mut Provider,
    cap: &ProviderCap,
    clock: &Clock,
    ctx: &mut TxContext,
) {
    assert!(lease.version == VERSION, EWrongVersion);
    provider.assert_cap(cap);
    assert!(lease.provider == object::id(provider), EWrongProvider);
    close_lease(lease, provider, true, clock, ctx);
}

/// Records what the provider deployed for the lease: `commit` must be the current value of the lease's ref in its
/// repository; `artifact` is the Walrus blob id of the build and `sha256` its digest. Only while the lease is open
/// and funded at the Clock's time (settled or not), and, for a private repository, while its tenant may read it.
/// Emits `Deployed`.
public fun record_deploy(
    lease: &mut Lease,
    cap: &ProviderCap,
    repo: &Repository,
    commit: vector<u8>,
    artifact: u256,
    sha256: vector<u8>,
    clock: &Clock,
) {
    assert!(lease.version == VERSION, EWrongVersion);
    assert!(cap.provider == lease.provider, ENotProvider);
    let at_ms = clock.timestamp_ms();
    let state = lease.lease_state_at(at_ms);
    assert!(state != STATE_CLOSED, ELeaseClosed);
    assert!(state == STATE_OPEN, ELeaseExhausted);
    assert!(object::id(repo) == lease.repository, EWrongRepository);
    assert!(!repo.is_private() || repo.can_read(lease.tenant), ECannotRead);
    assert!(repo.ref_value(lease.ref_name) == option::some(commit), ENotHead);
    assert!(sha256.length() == 32, EInvalidArtifact);
    lease.last_deploy = option::some(Deployment { commit, artifact, sha256, at_ms });
    events::emit_deployed(
        object::id(lease),
        lease.provider,
        lease.repository,
        lease.ref_name,
        commit,
        artifact,
        sha256,
        at_ms,
    );
}

/// The lease's provider states where the app answers (its ingress URL), while the lease is open and funded at the
/// Clock's time (settled or not); stating it again replaces it.
public fun state_url(lease: &mut Lease, provider: &Provider, cap: &ProviderCap, url: String, clock: &Clock) {
    assert!(lease.version == VERSION, EWrongVersion);
    assert_cap(provider, cap);
    assert!(object::id(provider) == lease.provider, EWrongProvider);
    let at_ms = clock.timestamp_ms();
    let state = lease.lease_state_at(at_ms);
    assert!(state != STATE_CLOSED, ELeaseClosed);
    assert!(state == STATE_OPEN, ELeaseExhausted);
    assert!(is_valid_url(url.as_bytes()), EInvalidUrl);
    lease.url = url;
    events::emit_url_stated(object::id(lease), lease.provider, lease.url, at_ms);
}

/// The lease's provider withdraws the URL it stated, when the app no longer answers there (its offer stopped exposing
/// apps). Unlike `state_url` this is allowed on an exhausted or closed lease too: a URL that no longer answers is
/// wrong to advertise whatever the lease's state, and clearing it adds no service the tenant has not paid for.
/// Withdrawing when no URL is held changes nothing but still emits `UrlWithdrawn`, so a retry never aborts.
public fun withdraw_url(lease: &mut Lease, provider: &Provider, cap: &ProviderCap, clock: &Clock) {
    assert!(lease.version == VERSION, EWrongVersion);
    assert_cap(provider, cap);
    assert!(object::id(provider) == lease.provider, EWrongProvider);
    lease.url = b"".to_string();
    events::emit_url_withdrawn(object::id(lease), lease.provider, clock.timestamp_ms());
}

// === Reads ===

public fun min_stake(market: &Market): u64 { market.min_stake }

public fun unbonding_ms(market: &Market): u64 { market.unbonding_ms }

public fun min_lease_ms(market: &Market): u64 { market.min_lease_ms }

public fun provider_owner(provider: &Provider): address { provider.owner }

public fun stake(provider: &Provider): u64 { provider.stake.value() }

public fun price_per_ms(provider: &Provider): u64 { provider.price_per_ms }

public fun active_leases(provider: &Provider): u64 { provider.active_leases }

public fun unbonds_at_ms(provider: &Provider): Option<u64> { provider.unbonds_at_ms }

public fun completed_leases(provider: &Provider): u64 { provider.completed_leases }

public fun provider_closed_leases(provider: &Provider): u64 { provider.provider_closed_leases }

public fun slashed(provider: &Provider): u64 { provider.slashed }

public fun lease_state(lease: &Lease): u8 { lease.state }

public fun escrow(lease: &Lease): u64 { lease.escrow.value() }

public fun earned(lease: &Lease): u64 { lease.earned.value() }

public fun settled_until_ms(lease: &Lease): u64 { lease.settled_until_ms }

public fun tenant(lease: &Lease): address { lease.tenant }

public fun lease_provider(lease: &Lease): ID { lease.provider }

public fun lease_repository(lease: &Lease): ID { lease.repository }

/// The lease's state as settling it at `now_ms` would leave it (nothing changes): exhausted once the escrow does not
/// outlast `now_ms`, what `lease_access` checks before a provider gets a key.
public fun lease_state_at(lease: &Lease, now_ms: u64): u8 {
    if (lease.state != STATE_OPEN || now_ms <= lease.settled_until_ms) return lease.state;
    let owed = ((now_ms - lease.settled_until_ms) as u128) * (lease.price_per_ms as u128);
    if (owed >= (lease.escrow.value() as u128)) STATE_EXHAUSTED else STATE_OPEN
}

public fun cap_provider(cap: &ProviderCap): ID { cap.provider }

public fun lease_url(lease: &Lease): String { lease.url }

public fun last_deploy_commit(lease: &Lease): Option<vector<u8>> {
    if (lease.last_deploy.is_some()) option::some(lease.last_deploy.borrow().commit) else option::none()
}

/// Why the lease ended (`END_*`), 0 while it is not closed.
public fun lease_end_reason(lease: &Lease): u8 {
    if (df::exists_(&lease.id, EndKey())) df::borrow<EndKey, LeaseEnd>(&lease.id, EndKey()).reason else 0
}

/// Who closed the lease; none while it is not closed.
public fun lease_ended_by(lease: &Lease): Option<address> {
    if (df::exists_(&lease.id, EndKey())) option::some(df::borrow<EndKey, LeaseEnd>(&lease.id, EndKey()).by)
    else option::none()
}

/// When the lease was closed, by the Clock; none while it is not closed.
public fun lease_ended_at_ms(lease: &Lease): Option<u64> {
    if (df::exists_(&lease.id, EndKey())) option::some(df::borrow<EndKey, LeaseEnd>(&lease.id, EndKey()).at_ms)
    else option::none()
}

/// The lease's UID, for this package's modules that keep data beside a lease as dynamic fields (`lease_secrets`):
/// a package upgrade cannot change the Lease's layout, dynamic fields can be added at any time.
public(package) fun lease_uid(lease: &Lease): &UID { &lease.id }

public(package) fun lease_uid_mut(lease: &mut Lease): &mut UID { &mut lease.id }

/// The Market's UID, for this package's modules that keep data beside it as dynamic fields (`attestation`).
public(package) fun market_uid(market: &Market): &UID { &market.id }

public(package) fun market_uid_mut(market: &mut Market): &mut UID { &mut market.id }

// === Internals ===

/// 1–256 bytes of printable ASCII without spaces (0x21..0x7e), starting with http:// or https:// and a host: the
/// byte after the scheme is none of `/ ? # : @` (which would leave the host empty).
fun is_valid_url(bytes: &vector<u8>): bool {
    let n = bytes.length();
    if (n == 0 || n > MAX_TEXT_LENGTH) return false;
    let mut i = 0;
    while (i < n) {
        let b = bytes[i];
        if (b < 0x21 || b > 0x7e) return false;
        i = i + 1;
    };
    let host_at = if (starts_with(bytes, &b"http://")) { 7 } else if (starts_with(bytes, &b"https://")) { 8 } else { 0 };
    if (host_at == 0 || n <= host_at) return false;
    let first = bytes[host_at];
    first != 0x2f && first != 0x3f && first != 0x23 && first != 0x3a && first != 0x40
}

/// No control character: none of C0 (0x00..0x1f), DEL (0x7f), or C1 (U+0080..U+009F, UTF-8 0xc2 0x80..0x9f). A
/// terminal acts on them (clear the screen, set the title or the clipboard, start a new line).
fun is_free_of_controls(bytes: &vector<u8>): bool {
    let n = bytes.length();
    let mut i = 0;
    while (i < n) {
        let b = bytes[i];
        if (b < 0x20 || b == 0x7f) return false;
        if (b == 0xc2 && i + 1 < n && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9f) return false;
        i = i + 1;
    };
    true
}

fun starts_with(bytes: &vector<u8>, prefix: &vector<u8>): bool {
    let n = prefix.length();
    if (bytes.length() < n) return false;
    let mut i = 0;
    while (i < n) {
        if (bytes[i] != prefix[i]) return false;
        i = i + 1;
    };
    true
}

fun assert_cap(provider: &Provider, cap: &ProviderCap) {
    assert!(provider.version == VERSION, EWrongVersion);
    assert!(cap.provider == object::id(provider), ENotProvider);
}

/// Moves what has accrued since `settled_until_ms` (price × elapsed, in u128, at most the escrow) to `earned`. When
/// the escrow runs dry the lease becomes exhausted. Settling twice at one time changes nothing.
fun settle_to(lease: &mut Lease, now: u64) {
    if (lease.state != STATE_OPEN || now <= lease.settled_until_ms) return;
    let owed = ((now - lease.settled_until_ms) as u128) * (lease.price_per_ms as u128);
    let available = lease.escrow.value();
    let amount = if (owed >= (available as u128)) available else (owed as u64);
    lease.earned.join(lease.escrow.split(amount));
    lease.settled_until_ms = now;
    if (lease.escrow.value() == 0) lease.state = STATE_EXHAUSTED;
    events::emit_lease_settled(object::id(lease), amount, now, lease.state);
}

fun close_lease(
    lease: &mut Lease,
    provider: &mut Provider,
    by_provider: bool,
    clock: &Clock,
    ctx: &mut TxContext,
) {
    assert!(lease.state != STATE_CLOSED, ELeaseClosed);
    let now = clock.timestamp_ms();
    lease.settle_to(now);
    let exhausted = lease.state == STATE_EXHAUSTED;
    let refund = lease.escrow.value();
    let payout = lease.earned.value();
    pay(lease.escrow.withdraw_all(), lease.tenant, ctx);
    pay(lease.earned.withdraw_all(), provider.owner, ctx);
    lease.state = STATE_CLOSED;
    provider.active_leases = provider.active_leases - 1;
    if (by_provider && !exhausted) {
        provider.provider_closed_leases = provider.provider_closed_leases + 1;
    } else {
        provider.completed_leases = provider.completed_leases + 1;
    };
    let reason = if (exhausted) {
        END_FUNDS_RAN_OUT
    } else if (!by_provider) {
        END_CLOSED_BY_TENANT
    } else if (provider.unbonds_at_ms.is_some()) {
        END_PROVIDER_UNBONDING
    } else {
        END_CLOSED_BY_PROVIDER
    };
    let by = ctx.sender();
    df::add(&mut lease.id, EndKey(), LeaseEnd { reason, by, at_ms: now });
    events::emit_lease_closed(object::id(lease), lease.provider, by_provider, refund, payout, now);
    events::emit_lease_ended(object::id(lease), lease.provider, reason, by, now);
}

/// Sends `amount` as a coin to `to`; nothing when it is zero (no empty coins).
fun pay(amount: Balance<SUI>, to: address, ctx: &mut TxContext) {
    if (amount.value() == 0) {
        amount.destroy_zero();
    } else {
        transfer::public_transfer(amount.into_coin(ctx), to);
    }
}

// === Test-only ===

#[test_only]
public fun init_for_testing(ctx: &mut TxContext) {
    init(ctx)
}

#[test_only]
public fun set_provider_version_for_testing(provider: &mut Provider, version: u64) {
    provider.version = version;
}
