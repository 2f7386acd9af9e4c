/// Build attestations (docs/architecture.md, Reproduced builds): staked providers say what a commit of a repository
/// builds to under a build key, and a tally per (repository, commit, build key) shows whether they agree.
///
/// Each attester first commits `sha2_256(tar_sha256 ‖ manifest_root ‖ its Provider's id bytes ‖ nonce)`, while the
/// tally's commit window is open; reveals are taken only once it has closed, until the reveal window ends. So no
/// attester sees another's digest before committing its own, and a copied commitment is useless: it binds the
/// other provider's id and nonce. The window opens with the first commitment and its lengths come from the Market
/// (the admin's `set_windows`, defaults otherwise).
///
/// The tally is a dynamic field of the Market, and a lease's required number of agreeing attestations a dynamic
/// field of the Lease: neither struct's layout changes, as package upgrades require. The chain does not gate a
/// release; the lease's provider reads the requirement and the tally before it rolls out, and anyone can check.
///
/// The TypeScript twin is src/contract/attestation-model.ts: same checks in the same order, same abort codes.
module walrus_git::attestation;

use std::hash::sha2_256;
use sui::{clock::Clock, dynamic_field as df, event};
use walrus_git::{market::{AdminCap, Lease, Market, Provider, ProviderCap}, repository::Repository};

/// Lease state `closed`, as `market` numbers it.
const STATE_CLOSED: u8 = 2;

/// Commit and reveal windows when the admin set none: ten minutes to build and commit, a day to reveal.
const DEFAULT_COMMIT_MS: u64 = 600_000;
const DEFAULT_REVEAL_MS: u64 = 86_400_000;
/// Most attesters one tally takes (its size and the reveal's cost stay bounded).
const MAX_ATTESTERS: u64 = 64;
/// Most agreeing attestations a lease may require.
const MAX_REQUIRED: u64 = 16;

/// Tally states.
const STATUS_PENDING: u8 = 0;
const STATUS_AGREED: u8 = 1;
const STATUS_DISPUTED: u8 = 2;

/// The ProviderCap is not the Provider's.
const ENotProvider: u64 = 0;
/// The provider's stake is under the market's minimum, or it is unbonding.
const ENotStaked: u64 = 1;
/// A commit id is 20 or 32 bytes.
const EInvalidCommit: u64 = 2;
/// A build key, commitment, tar sha256 and manifest root are 32 bytes each.
const EInvalidDigest: u64 = 3;
/// The tally's commit window has closed.
const ECommitClosed: u64 = 4;
/// This provider already committed to this tally.
const EAlreadyCommitted: u64 = 5;
/// The tally has MAX_ATTESTERS commitments.
const ETallyFull: u64 = 6;
/// This provider has no commitment in this tally.
const ENoCommitment: u64 = 7;
/// The commit window is still open: nobody reveals before it closes.
const ERevealTooEarly: u64 = 8;
/// The reveal window has closed.
const ERevealTooLate: u64 = 9;
/// This provider already revealed.
const EAlreadyRevealed: u64 = 10;
/// The revealed digests and nonce do not hash to the provider's commitment.
const EWrongReveal: u64 = 11;
/// A window length is zero.
const EInvalidWindow: u64 = 12;
/// Only the lease's tenant sets its requirement.
const ENotTenant: u64 = 13;
/// The lease is closed.
const ELeaseClosed: u64 = 14;
/// A lease requires at most MAX_REQUIRED agreeing attestations.
const ETooManyRequired: u64 = 15;

/// The Market's dynamic field holding the windows.
public struct WindowsKey() has copy, drop, store;

public struct Windows has copy, drop, store {
    commit_ms: u64,
    reveal_ms: u64,
}

/// The Market's dynamic field holding one tally.
public struct TallyKey has copy, drop, store {
    repository: ID,
    commit: vector<u8>,
    build_key: vector<u8>,
}

public struct Commitment has copy, drop, store {
    provider: ID,
    hash: vector<u8>,
}

public struct Reveal has copy, drop, store {
    provider: ID,
    tar_sha256: vector<u8>,
    manifest_root: vector<u8>,
}

/// Commitments and reveals in arrival order; commitments are taken before `commit_until_ms`, reveals from then until
/// `reveal_until_ms`.
public struct Tally has copy, drop, store {
    commit_until_ms: u64,
    reveal_until_ms: u64,
    commitments: vector<Commitment>,
    reveals: vector<Reveal>,
}

/// The Lease's dynamic field holding how many other providers must agree with its provider's digest.
public struct RequiredKey() has copy, drop, store;

public struct BuildCommitted has copy, drop {
    repository: ID,
    commit: vector<u8>,
    build_key: vector<u8>,
    provider: ID,
    commit_until_ms: u64,
    reveal_until_ms: u64,
}

public struct BuildRevealed has copy, drop {
    repository: ID,
    commit: vector<u8>,
    build_key: vector<u8>,
    provider: ID,
    tar_sha256: vector<u8>,
    manifest_root: vector<u8>,
    /// Reveals of this same digest pair, this one included.
    agreeing: u64,
    reveals: u64,
    status: u8,
}

public struct ReproductionRequired has copy, drop {
    lease: ID,
    required: u64,
}

/// Sets the commit and reveal windows of tallies opened from now on.
public fun set_windows(market: &mut Market, _admin: &AdminCap, commit_ms: u64, reveal_ms: u64) {
    assert!(commit_ms > 0 && reveal_ms > 0, EInvalidWindow);
    let windows = Windows { commit_ms, reveal_ms };
    let uid = market.market_uid_mut();
    if (df::exists_(uid, WindowsKey())) *df::borrow_mut(uid, WindowsKey()) = windows
    else df::add(uid, WindowsKey(), windows);
}

/// Commits `provider` to a digest of `commit` of `repo` built under `build_key`; the first commitment opens the
/// tally and its windows.
public fun commit_build(
    market: &mut Market,
    provider: &Provider,
    cap: &ProviderCap,
    repo: &Repository,
    commit: vector<u8>,
    build_key: vector<u8>,
    commitment: vector<u8>,
    clock: &Clock,
) {
    assert!(cap.cap_provider() == object::id(provider), ENotProvider);
    assert!(provider.stake() >= market.min_stake() && provider.unbonds_at_ms().is_none(), ENotStaked);
    assert!(commit.length() == 20 || commit.length() == 32, EInvalidCommit);
    assert!(build_key.length() == 32 && commitment.length() == 32, EInvalidDigest);
    let now = clock.timestamp_ms();
    let windows = windows(market);
    let tally_key = TallyKey { repository: object::id(repo), commit, build_key };
    let uid = market.market_uid_mut();
    if (!df::exists_(uid, tally_key)) {
        let commit_until_ms = now + windows.commit_ms;
        let tally = Tally { commit_until_ms, reveal_until_ms: commit_until_ms + windows.reveal_ms, commitments: vector[], reveals: vector[] };
        df::add(uid, tally_key, tally);
    };
    let tally: &mut Tally = df::borrow_mut(uid, tally_key);
    assert!(now < tally.commit_until_ms, ECommitClosed);
    let id = object::id(provider);
    assert!(!tally.commitments.any!(|c| &c.provider == &id), EAlreadyCommitted);
    assert!(tally.commitments.length() < MAX_ATTESTERS, ETallyFull);
    tally.commitments.push_back(Commitment { provider: id, hash: commitment });
    event::emit(BuildCommitted {
        repository: tally_key.repository,
        commit: tally_key.commit,
        build_key: tally_key.build_key,
        provider: id,
        commit_until_ms: tally.commit_until_ms,
        reveal_until_ms: tally.reveal_until_ms,
    });
}

/// Reveals the digests `provider` committed to; they count in the tally.
public fun reveal_build(
    market: &mut Market,
    provider: &Provider,
    cap: &ProviderCap,
    repo: &Repository,
    commit: vector<u8>,
    build_key: vector<u8>,
    tar_sha256: vector<u8>,
    manifest_root: vector<u8>,
    nonce: vector<u8>,
    clock: &Clock,
) {
    assert!(cap.cap_provider() == object::id(provider), ENotProvider);
    let tally_key = TallyKey { repository: object::id(repo), commit, build_key };
    let uid = market.market_uid_mut();
    assert!(df::exists_(uid, tally_key), ENoCommitment);
    let tally: &mut Tally = df::borrow_mut(uid, tally_key);
    let id = object::id(provider);
    let found = tally.commitments.find_index!(|c| &c.provider == &id);
    assert!(found.is_some(), ENoCommitment);
    let now = clock.timestamp_ms();
    assert!(now >= tally.commit_until_ms, ERevealTooEarly);
    assert!(now < tally.reveal_until_ms, ERevealTooLate);
    assert!(!tally.reveals.any!(|r| &r.provider == &id), EAlreadyRevealed);
    assert!(tar_sha256.length() == 32 && manifest_root.length() == 32, EInvalidDigest);
    let hash = tally.commitments[found.destroy_some()].hash;
    assert!(commitment_of(tar_sha256, manifest_root, id, nonce) == hash, EWrongReveal);
    tally.reveals.push_back(Reveal { provider: id, tar_sha256, manifest_root });
    let agreeing = tally.reveals.count!(|r| &r.tar_sha256 == &tar_sha256 && &r.manifest_root == &manifest_root);
    event::emit(BuildRevealed {
        repository: tally_key.repository,
        commit: tally_key.commit,
        build_key: tally_key.build_key,
        provider: id,
        tar_sha256,
        manifest_root,
        agreeing,
        reveals: tally.reveals.length(),
        status: status_of(tally),
    });
}

/// The tenant requires `required` providers other than the lease's own to reveal the digest its provider built
/// before a release rolls out (0: no requirement).
public fun require_reproduced(lease: &mut Lease, required: u64, clock: &Clock, ctx: &TxContext) {
    assert!(ctx.sender() == lease.tenant(), ENotTenant);
    assert!(lease.lease_state_at(clock.timestamp_ms()) != STATE_CLOSED, ELeaseClosed);
    assert!(required <= MAX_REQUIRED, ETooManyRequired);
    let uid = lease.lease_uid_mut();
    if (df::exists_(uid, RequiredKey())) *df::borrow_mut(uid, RequiredKey()) = required
    else df::add(uid, RequiredKey(), required);
    event::emit(ReproductionRequired { lease: object::id(lease), required });
}

/// How many other providers must agree before the lease's provider rolls a release out; 0 when never set.
public fun required_reproductions(lease: &Lease): u64 {
    let uid = lease.lease_uid();
    if (df::exists_(uid, RequiredKey())) *df::borrow(uid, RequiredKey()) else 0
}

/// A tally's state, commitments and reveals; (STATUS_PENDING, 0, 0) when nobody committed.
public fun tally_summary(market: &Market, repository: ID, commit: vector<u8>, build_key: vector<u8>): (u8, u64, u64) {
    let tally_key = TallyKey { repository, commit, build_key };
    let uid = market.market_uid();
    if (!df::exists_(uid, tally_key)) return (STATUS_PENDING, 0, 0);
    let tally: &Tally = df::borrow(uid, tally_key);
    (status_of(tally), tally.commitments.length(), tally.reveals.length())
}

/// The commitment an attester computes before it commits (and the reveal recomputes).
public fun commitment_of(tar_sha256: vector<u8>, manifest_root: vector<u8>, provider: ID, nonce: vector<u8>): vector<u8> {
    let mut preimage = tar_sha256;
    preimage.append(manifest_root);
    preimage.append(provider.to_bytes());
    preimage.append(nonce);
    sha2_256(preimage)
}

// === Internals ===

fun windows(market: &Market): Windows {
    let uid = market.market_uid();
    if (df::exists_(uid, WindowsKey())) *df::borrow(uid, WindowsKey())
    else Windows { commit_ms: DEFAULT_COMMIT_MS, reveal_ms: DEFAULT_REVEAL_MS }
}

/// Disputed once two different digest pairs were revealed, Agreed once two providers revealed the same one, else
/// Pending.
fun status_of(tally: &Tally): u8 {
    let reveals = &tally.reveals;
    if (reveals.is_empty()) return STATUS_PENDING;
    let first = &reveals[0];
    if (reveals.any!(|r| &r.tar_sha256 != &first.tar_sha256 || &r.manifest_root != &first.manifest_root)) STATUS_DISPUTED
    else if (reveals.length() >= 2) STATUS_AGREED
    else STATUS_PENDING
}
