/**
 * The pure TypeScript twin of contracts/sources/market.move: the same checks in the same order, the same abort
 * codes, the same state transitions, payments and events. Objects are the decoded structs of market-bcs.ts and are
 * changed in place; every function checks everything before it changes anything, so an aborted call leaves its
 * inputs untouched. Coins passed in are consumed (their value joins a balance); payments are new coins sent with
 * `ctx.transfer`. Keep each function in step with its Move counterpart (contracts/tests/market_scenarios.json runs
 * against both).
 */
import { END_KEY_BCS, LeaseEnd, LeaseEndReason, MarketEvents, SUI_COIN_TYPE, LeaseState, endKeyType, leaseEndType } from './market-bcs.ts';
import { Coin } from './bcs.ts';
import type { CoinValue, LeaseEndValue, LeaseValue, MarketEventName, MarketValue, ProviderCapValue, ProviderValue, AdminCapValue } from './market-bcs.ts';
import { MarketAbort } from './market-abort-codes.ts';
import type { MarketAbortName } from './market-abort-codes.ts';
import type { MoveContext, TableStore } from './context.ts';
import type { RepositoryValue } from './bcs.ts';
import { canRead, refValue } from './model.ts';
import { accrualAt } from './lease-accrual.ts';
import { isValidRefName } from './ref-name.ts';

export const MARKET_VERSION = 1n;
export const MAX_TEXT_LENGTH = 256;
export const MAX_ATTRIBUTES = 32;
export const DEFAULT_MIN_STAKE = 10_000_000_000n;
export const DEFAULT_UNBONDING_MS = 604_800_000n;
export const DEFAULT_MIN_LEASE_MS = 3_600_000n;

const utf8 = new TextEncoder();
const byteLength = (s: string) => utf8.encode(s).length;

function check(condition: boolean, fn: string, name: MarketAbortName): asserts condition {
  if (!condition) throw new MarketAbort(fn, name);
}

function emit<N extends MarketEventName>(ctx: MoveContext, name: N, value: Parameters<(typeof MarketEvents)[N]['serialize']>[0]): void {
  const layout = MarketEvents[name] as { serialize(v: unknown): { toBytes(): Uint8Array } };
  ctx.emit(`market_events::${name}`, layout.serialize(value).toBytes());
}

/** `pay`: a coin of `amount` to `to`, nothing when it is zero. */
function pay(ctx: MoveContext, amount: bigint, to: string): void {
  if (amount === 0n) return;
  ctx.transfer(SUI_COIN_TYPE, Coin.serialize({ id: ctx.newId(), balance: { value: amount } }).toBytes(), to);
}

function checkCap(fn: string, provider: ProviderValue, cap: ProviderCapValue): void {
  check(provider.version === MARKET_VERSION, fn, 'EWrongVersion');
  check(cap.provider === provider.id, fn, 'ENotProvider');
}

/** `settle_to`: moves what accrued since `settled_until_ms` to `earned`; exhausted when the escrow runs dry. */
function settleTo(ctx: MoveContext, lease: LeaseValue, now: bigint): void {
  if (lease.state !== LeaseState.open || now <= lease.settled_until_ms) return;
  const amount = accrualAt(true, lease.settled_until_ms, lease.price_per_ms, lease.escrow.value, now).accrued;
  lease.escrow.value -= amount;
  lease.earned.value += amount;
  lease.settled_until_ms = now;
  if (lease.escrow.value === 0n) lease.state = LeaseState.exhausted;
  emit(ctx, 'LeaseSettled', { lease: lease.id, amount, settled_until_ms: now, state: lease.state });
}

/** `lease_state_at`: the state settling the lease at `now` would leave (exhausted once the escrow does not outlast it). */
export function leaseStateAt(lease: LeaseValue, now: bigint): number {
  if (lease.state !== LeaseState.open || now <= lease.settled_until_ms) return lease.state;
  return accrualAt(true, lease.settled_until_ms, lease.price_per_ms, lease.escrow.value, now).runsDry ? LeaseState.exhausted : LeaseState.open;
}

/** Module initializer: the shared Market and the AdminCap, sent to the publisher. */
export function init(ctx: MoveContext): { market: MarketValue; admin: AdminCapValue } {
  const market = { id: ctx.newId(), version: MARKET_VERSION, min_stake: DEFAULT_MIN_STAKE, unbonding_ms: DEFAULT_UNBONDING_MS, min_lease_ms: DEFAULT_MIN_LEASE_MS };
  const admin = { id: ctx.newId() };
  return { market, admin };
}

export function setParams(ctx: MoveContext, market: MarketValue, _admin: AdminCapValue, minStake: bigint, unbondingMs: bigint, minLeaseMs: bigint): void {
  check(market.version === MARKET_VERSION, 'set_params', 'EWrongVersion');
  market.min_stake = minStake;
  market.unbonding_ms = unbondingMs;
  market.min_lease_ms = minLeaseMs;
  emit(ctx, 'MarketParamsSet', { market: market.id, min_stake: minStake, unbonding_ms: unbondingMs, min_lease_ms: minLeaseMs });
}

/** `register`: a new Provider (the caller shares it) and its cap (the caller sends it to the sender). */
export function register(
  ctx: MoveContext,
  market: MarketValue,
  stake: CoinValue,
  pricePerMs: bigint,
  endpoint: string,
  keys: string[],
  values: string[],
): { provider: ProviderValue; cap: ProviderCapValue } {
  const fn = 'register';
  check(market.version === MARKET_VERSION, fn, 'EWrongVersion');
  check(stake.balance.value >= market.min_stake, fn, 'EStakeTooLow');
  check(pricePerMs > 0n, fn, 'EInvalidPrice');
  const n = keys.length;
  check(isValidUrl(endpoint) && values.length === n && n <= MAX_ATTRIBUTES, fn, 'EInvalidProviderInfo');
  const attributes: { key: string; value: string }[] = [];
  for (let i = 0; i < n; i++) {
    const key = keys[i]!;
    const value = values[i]!;
    check(byteLength(key) <= MAX_TEXT_LENGTH && byteLength(value) <= MAX_TEXT_LENGTH && !attributes.some((a) => a.key === key), fn, 'EInvalidProviderInfo');
    check(isFreeOfControls(key) && isFreeOfControls(value), fn, 'EInvalidProviderInfo');
    attributes.push({ key, value });
  }
  const provider: ProviderValue = {
    id: ctx.newId(),
    version: MARKET_VERSION,
    owner: ctx.sender,
    stake: { value: stake.balance.value },
    price_per_ms: pricePerMs,
    endpoint,
    attributes: { contents: attributes },
    active_leases: 0n,
    unbonds_at_ms: null,
    completed_leases: 0n,
    provider_closed_leases: 0n,
    slashed: 0n,
  };
  emit(ctx, 'ProviderRegistered', { provider: provider.id, owner: ctx.sender, stake: stake.balance.value, price_per_ms: pricePerMs, endpoint });
  const cap = { id: ctx.newId(), provider: provider.id };
  return { provider, cap };
}

export function addStake(ctx: MoveContext, provider: ProviderValue, cap: ProviderCapValue, coin: CoinValue): void {
  const fn = 'add_stake';
  checkCap(fn, provider, cap);
  check(coin.balance.value > 0n, fn, 'EZeroAmount');
  provider.stake.value += coin.balance.value;
  emit(ctx, 'StakeAdded', { provider: provider.id, amount: coin.balance.value, stake: provider.stake.value });
}

export function requestUnbond(ctx: MoveContext, market: MarketValue, provider: ProviderValue, cap: ProviderCapValue, now: bigint): void {
  const fn = 'request_unbond';
  check(market.version === MARKET_VERSION, fn, 'EWrongVersion');
  checkCap(fn, provider, cap);
  check(provider.unbonds_at_ms === null, fn, 'EAlreadyUnbonding');
  const at = now + market.unbonding_ms;
  provider.unbonds_at_ms = at;
  emit(ctx, 'UnbondRequested', { provider: provider.id, at_ms: now, withdrawable_at_ms: at });
}

export function withdrawStake(ctx: MoveContext, provider: ProviderValue, cap: ProviderCapValue, now: bigint): void {
  const fn = 'withdraw_stake';
  checkCap(fn, provider, cap);
  check(provider.unbonds_at_ms !== null, fn, 'ENotUnbonding');
  check(provider.active_leases === 0n, fn, 'EActiveLeases');
  check(now >= provider.unbonds_at_ms, fn, 'ETooEarly');
  const amount = provider.stake.value;
  provider.stake.value = 0n;
  pay(ctx, amount, provider.owner);
  emit(ctx, 'StakeWithdrawn', { provider: provider.id, owner: provider.owner, amount });
}

export function slash(ctx: MoveContext, _admin: AdminCapValue, provider: ProviderValue, lease: LeaseValue, amount: bigint): void {
  const fn = 'slash';
  check(provider.version === MARKET_VERSION && lease.version === MARKET_VERSION, fn, 'EWrongVersion');
  check(lease.provider === provider.id, fn, 'EWrongProvider');
  check(amount > 0n, fn, 'EZeroAmount');
  check(amount <= provider.stake.value, fn, 'ESlashExceedsStake');
  provider.stake.value -= amount;
  pay(ctx, amount, lease.tenant);
  provider.slashed += amount;
  emit(ctx, 'Slashed', { provider: provider.id, lease: lease.id, tenant: lease.tenant, amount, stake: provider.stake.value });
}

/** `open_lease`: a new Lease (the caller shares it). */
export function openLease(ctx: MoveContext, market: MarketValue, provider: ProviderValue, repo: RepositoryValue, refName: string, deposit: CoinValue, now: bigint): LeaseValue {
  const fn = 'open_lease';
  check(market.version === MARKET_VERSION && provider.version === MARKET_VERSION, fn, 'EWrongVersion');
  check(provider.unbonds_at_ms === null, fn, 'ENotAccepting');
  check(provider.stake.value >= market.min_stake, fn, 'EStakeTooLow');
  check(isValidRefName(refName), fn, 'EInvalidRefName');
  check(!repo.private || canRead(repo, ctx.sender), fn, 'ECannotRead');
  const amount = deposit.balance.value;
  check(amount > 0n && amount >= provider.price_per_ms * market.min_lease_ms, fn, 'EDepositTooSmall');
  const lease: LeaseValue = {
    id: ctx.newId(),
    version: MARKET_VERSION,
    tenant: ctx.sender,
    provider: provider.id,
    repository: repo.id,
    ref_name: refName,
    price_per_ms: provider.price_per_ms,
    escrow: { value: amount },
    earned: { value: 0n },
    settled_until_ms: now,
    state: LeaseState.open,
    last_deploy: null,
    url: '',
  };
  provider.active_leases += 1n;
  emit(ctx, 'LeaseOpened', {
    lease: lease.id,
    provider: lease.provider,
    tenant: lease.tenant,
    repository: lease.repository,
    ref_name: refName,
    price_per_ms: lease.price_per_ms,
    deposit: amount,
    at_ms: now,
  });
  return lease;
}

export function topUp(ctx: MoveContext, lease: LeaseValue, coin: CoinValue, now: bigint): void {
  const fn = 'top_up';
  check(lease.version === MARKET_VERSION, fn, 'EWrongVersion');
  check(lease.state !== LeaseState.closed, fn, 'ELeaseClosed');
  check(coin.balance.value > 0n, fn, 'EZeroAmount');
  // Move aborts after settling and undoes it; here the check comes first so an abort leaves the lease untouched.
  check(!exhaustsBy(lease, now), fn, 'ELeaseExhausted');
  settleTo(ctx, lease, now);
  lease.escrow.value += coin.balance.value;
  emit(ctx, 'ToppedUp', { lease: lease.id, from: ctx.sender, amount: coin.balance.value, escrow: lease.escrow.value });
}

/** Whether the lease is exhausted once settled up to `now`. */
function exhaustsBy(lease: LeaseValue, now: bigint): boolean {
  if (lease.state !== LeaseState.open) return lease.state === LeaseState.exhausted;
  if (now <= lease.settled_until_ms) return false;
  return (now - lease.settled_until_ms) * lease.price_per_ms >= lease.escrow.value;
}

export function settle(ctx: MoveContext, lease: LeaseValue, now: bigint): void {
  check(lease.version === MARKET_VERSION, 'settle', 'EWrongVersion');
  settleTo(ctx, lease, now);
}

export function claim(ctx: MoveContext, lease: LeaseValue, provider: ProviderValue, cap: ProviderCapValue, now: bigint): void {
  const fn = 'claim';
  check(lease.version === MARKET_VERSION, fn, 'EWrongVersion');
  checkCap(fn, provider, cap);
  check(lease.provider === provider.id, fn, 'EWrongProvider');
  settleTo(ctx, lease, now);
  const amount = lease.earned.value;
  if (amount > 0n) {
    lease.earned.value = 0n;
    pay(ctx, amount, provider.owner);
    emit(ctx, 'Claimed', { lease: lease.id, provider: lease.provider, owner: provider.owner, amount });
  }
}

export function close(ctx: MoveContext, lease: LeaseValue, provider: ProviderValue, now: bigint): void {
  const fn = 'close';
  check(lease.version === MARKET_VERSION && provider.version === MARKET_VERSION, fn, 'EWrongVersion');
  check(lease.provider === provider.id, fn, 'EWrongProvider');
  check(ctx.sender === lease.tenant, fn, 'ENotTenant');
  closeLease(ctx, fn, lease, provider, false, now);
}

export function providerClose(ctx: MoveContext, lease: LeaseValue, provider: ProviderValue, cap: ProviderCapValue, now: bigint): void {
  const fn = 'provider_close';
  check(lease.version === MARKET_VERSION, fn, 'EWrongVersion');
  checkCap(fn, provider, cap);
  check(lease.provider === provider.id, fn, 'EWrongProvider');
  closeLease(ctx, fn, lease, provider, true, now);
}

function closeLease(ctx: MoveContext, fn: string, lease: LeaseValue, provider: ProviderValue, byProvider: boolean, now: bigint): void {
  check(lease.state !== LeaseState.closed, fn, 'ELeaseClosed');
  settleTo(ctx, lease, now);
  const exhausted = lease.state === LeaseState.exhausted;
  const refund = lease.escrow.value;
  const payout = lease.earned.value;
  lease.escrow.value = 0n;
  lease.earned.value = 0n;
  pay(ctx, refund, lease.tenant);
  pay(ctx, payout, provider.owner);
  lease.state = LeaseState.closed;
  provider.active_leases -= 1n;
  if (byProvider && !exhausted) provider.provider_closed_leases += 1n;
  else provider.completed_leases += 1n;
  const reason = exhausted ? LeaseEndReason.funds_ran_out
    : !byProvider ? LeaseEndReason.closed_by_tenant
    : provider.unbonds_at_ms !== null ? LeaseEndReason.provider_unbonding : LeaseEndReason.closed_by_provider;
  const end = { reason, by: ctx.sender, at_ms: now };
  ctx.tables.add(lease.id, endKeyType(ctx.packageId), END_KEY_BCS, leaseEndType(ctx.packageId), LeaseEnd.serialize(end).toBytes());
  emit(ctx, 'LeaseClosed', { lease: lease.id, provider: lease.provider, by_provider: byProvider, refund, payout, at_ms: now });
  emit(ctx, 'LeaseEnded', { lease: lease.id, provider: lease.provider, ...end });
}

/** How the lease ended (its `EndKey` field), or null while it is not closed. */
export function leaseEndOf(tables: TableStore, pkg: string, lease: LeaseValue): LeaseEndValue | null {
  const value = tables.get(lease.id, endKeyType(pkg), END_KEY_BCS);
  return value === null ? null : LeaseEnd.parse(value);
}

export function recordDeploy(
  ctx: MoveContext,
  lease: LeaseValue,
  cap: ProviderCapValue,
  repo: RepositoryValue,
  commit: Uint8Array,
  artifact: bigint,
  sha256: Uint8Array,
  now: bigint,
): void {
  const fn = 'record_deploy';
  check(lease.version === MARKET_VERSION, fn, 'EWrongVersion');
  check(cap.provider === lease.provider, fn, 'ENotProvider');
  const state = leaseStateAt(lease, now);
  check(state !== LeaseState.closed, fn, 'ELeaseClosed');
  check(state === LeaseState.open, fn, 'ELeaseExhausted');
  check(repo.id === lease.repository, fn, 'EWrongRepository');
  check(!repo.private || canRead(repo, lease.tenant), fn, 'ECannotRead');
  const head = refValue(ctx, repo, lease.ref_name);
  check(head !== null && head.length === commit.length && head.every((b, i) => b === commit[i]), fn, 'ENotHead');
  check(sha256.length === 32, fn, 'EInvalidArtifact');
  lease.last_deploy = { commit: commit.slice(), artifact, sha256: sha256.slice(), at_ms: now };
  emit(ctx, 'Deployed', {
    lease: lease.id,
    provider: lease.provider,
    repository: lease.repository,
    ref_name: lease.ref_name,
    commit,
    artifact,
    sha256,
    at_ms: now,
  });
}

/** `state_url`: the lease's provider states where the app answers, while the lease is open and funded at `now`. */
export function stateUrl(ctx: MoveContext, lease: LeaseValue, provider: ProviderValue, cap: ProviderCapValue, url: string, now: bigint): void {
  const fn = 'state_url';
  check(lease.version === MARKET_VERSION, fn, 'EWrongVersion');
  checkCap(fn, provider, cap);
  check(provider.id === lease.provider, fn, 'EWrongProvider');
  const state = leaseStateAt(lease, now);
  check(state !== LeaseState.closed, fn, 'ELeaseClosed');
  check(state === LeaseState.open, fn, 'ELeaseExhausted');
  check(isValidUrl(url), fn, 'EInvalidUrl');
  lease.url = url;
  emit(ctx, 'UrlStated', { lease: lease.id, provider: lease.provider, url, at_ms: now });
}

/** `withdraw_url`: the lease's provider clears the URL it stated, whatever the lease's state. */
export function withdrawUrl(ctx: MoveContext, lease: LeaseValue, provider: ProviderValue, cap: ProviderCapValue, now: bigint): void {
  const fn = 'withdraw_url';
  check(lease.version === MARKET_VERSION, fn, 'EWrongVersion');
  checkCap(fn, provider, cap);
  check(provider.id === lease.provider, fn, 'EWrongProvider');
  lease.url = '';
  emit(ctx, 'UrlWithdrawn', { lease: lease.id, provider: lease.provider, at_ms: now });
}

/** `is_valid_url`: 1–256 bytes of printable ASCII without spaces, `http://` or `https://`, then a host (none of `/?#:@` first). */
function isValidUrl(url: string): boolean {
  const bytes = utf8.encode(url);
  if (bytes.length === 0 || bytes.length > MAX_TEXT_LENGTH) return false;
  if (bytes.some((b) => b < 0x21 || b > 0x7e)) return false;
  const hostAt = url.startsWith('http://') ? 7 : url.startsWith('https://') ? 8 : -1;
  return hostAt > 0 && url.length > hostAt && !'/?#:@'.includes(url[hostAt]!);
}

/** `is_free_of_controls`: no C0 control, DEL, or C1 control (U+0080..U+009F). */
function isFreeOfControls(text: string): boolean {
  return !/[\u0000-\u001f\u007f-\u009f]/.test(text);
}
