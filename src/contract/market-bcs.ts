/**
 * BCS layouts of the `market` and `market_events` modules, defined once here and mirrored field by field (same
 * names, same order) by contracts/sources/market.move and market_events.move. Values follow the conventions of
 * bcs.ts (u64 → bigint, address/ID → 0x + 64 hex, Option → value or null, vector<u8> → Uint8Array).
 */
import { bcs } from '@mysten/bcs';
import { Address, Balance, Bytes, Coin, ID, MoveString, U256, U64, UID } from './bcs.ts';
import type { AnyLayout } from './bcs.ts';

/** `0x2::vec_map::VecMap<String, String>`. */
export const StringMap = bcs.struct('VecMap', { contents: bcs.vector(bcs.struct('Entry', { key: MoveString, value: MoveString })) });

export const Market = bcs.struct('Market', { id: UID, version: U64, min_stake: U64, unbonding_ms: U64, min_lease_ms: U64 });
export const AdminCap = bcs.struct('AdminCap', { id: UID });
export const Provider = bcs.struct('Provider', {
  id: UID,
  version: U64,
  owner: Address,
  stake: Balance,
  price_per_ms: U64,
  endpoint: MoveString,
  attributes: StringMap,
  active_leases: U64,
  unbonds_at_ms: bcs.option(U64),
  completed_leases: U64,
  provider_closed_leases: U64,
  slashed: U64,
});
export const ProviderCap = bcs.struct('ProviderCap', { id: UID, provider: ID });
export const Deployment = bcs.struct('Deployment', { commit: Bytes, artifact: U256, sha256: Bytes, at_ms: U64 });
export const Lease = bcs.struct('Lease', {
  id: UID,
  version: U64,
  tenant: Address,
  provider: ID,
  repository: ID,
  ref_name: MoveString,
  price_per_ms: U64,
  escrow: Balance,
  earned: Balance,
  settled_until_ms: U64,
  state: bcs.u8(),
  last_deploy: bcs.option(Deployment),
  url: MoveString,
});

/** `Lease.state`. */
export const LeaseState = { open: 0, exhausted: 1, closed: 2 } as const;

/** `EndKey()`, the name of a closed lease's dynamic field: a struct without fields, stored with one `dummy_field`. */
export const EndKey = bcs.struct('EndKey', { dummy_field: bcs.bool() });
/** The BCS of `EndKey()`. */
export const END_KEY_BCS = EndKey.serialize({ dummy_field: false }).toBytes();
/** How a lease ended (the value of its `EndKey` field): why (`LeaseEndReason`), who closed it, when by the Clock. */
export const LeaseEnd = bcs.struct('LeaseEnd', { reason: bcs.u8(), by: Address, at_ms: U64 });
export type LeaseEndValue = ReturnType<typeof LeaseEnd.parse>;

/** `LeaseEnd.reason`: market.move's `END_*` constants. */
export const LeaseEndReason = { closed_by_tenant: 1, closed_by_provider: 2, funds_ran_out: 3, provider_unbonding: 4 } as const;
export type LeaseEndReasonName = keyof typeof LeaseEndReason;

export const MarketParamsSet = bcs.struct('MarketParamsSet', { market: ID, min_stake: U64, unbonding_ms: U64, min_lease_ms: U64 });
export const ProviderRegistered = bcs.struct('ProviderRegistered', { provider: ID, owner: Address, stake: U64, price_per_ms: U64, endpoint: MoveString });
export const StakeAdded = bcs.struct('StakeAdded', { provider: ID, amount: U64, stake: U64 });
export const UnbondRequested = bcs.struct('UnbondRequested', { provider: ID, at_ms: U64, withdrawable_at_ms: U64 });
export const StakeWithdrawn = bcs.struct('StakeWithdrawn', { provider: ID, owner: Address, amount: U64 });
export const Slashed = bcs.struct('Slashed', { provider: ID, lease: ID, tenant: Address, amount: U64, stake: U64 });
export const LeaseOpened = bcs.struct('LeaseOpened', {
  lease: ID,
  provider: ID,
  tenant: Address,
  repository: ID,
  ref_name: MoveString,
  price_per_ms: U64,
  deposit: U64,
  at_ms: U64,
});
export const ToppedUp = bcs.struct('ToppedUp', { lease: ID, from: Address, amount: U64, escrow: U64 });
export const LeaseSettled = bcs.struct('LeaseSettled', { lease: ID, amount: U64, settled_until_ms: U64, state: bcs.u8() });
export const Claimed = bcs.struct('Claimed', { lease: ID, provider: ID, owner: Address, amount: U64 });
export const LeaseClosed = bcs.struct('LeaseClosed', { lease: ID, provider: ID, by_provider: bcs.bool(), refund: U64, payout: U64, at_ms: U64 });
export const LeaseEnded = bcs.struct('LeaseEnded', { lease: ID, provider: ID, reason: bcs.u8(), by: Address, at_ms: U64 });
export const Deployed = bcs.struct('Deployed', {
  lease: ID,
  provider: ID,
  repository: ID,
  ref_name: MoveString,
  commit: Bytes,
  artifact: U256,
  sha256: Bytes,
  at_ms: U64,
});

export const UrlStated = bcs.struct('UrlStated', { lease: ID, provider: ID, url: MoveString, at_ms: U64 });
export const UrlWithdrawn = bcs.struct('UrlWithdrawn', { lease: ID, provider: ID, at_ms: U64 });

/** Every event of the `market_events` module, by struct name. */
export const MarketEvents = {
  MarketParamsSet,
  ProviderRegistered,
  StakeAdded,
  UnbondRequested,
  StakeWithdrawn,
  Slashed,
  LeaseOpened,
  ToppedUp,
  LeaseSettled,
  Claimed,
  LeaseClosed,
  LeaseEnded,
  Deployed,
  UrlStated,
  UrlWithdrawn,
} as const;
export type MarketEventName = keyof typeof MarketEvents;

export type MarketValue = ReturnType<typeof Market.parse>;
export type AdminCapValue = ReturnType<typeof AdminCap.parse>;
export type ProviderValue = ReturnType<typeof Provider.parse>;
export type ProviderCapValue = ReturnType<typeof ProviderCap.parse>;
export type LeaseValue = ReturnType<typeof Lease.parse>;
export type CoinValue = ReturnType<typeof Coin.parse>;
export type DeploymentValue = ReturnType<typeof Deployment.parse>;

export const SUI_COIN_TYPE = '0x2::coin::Coin<0x2::sui::SUI>';

export function marketType(pkg: string): string {
  return `${pkg}::market::Market`;
}
export function adminCapType(pkg: string): string {
  return `${pkg}::market::AdminCap`;
}
export function providerType(pkg: string): string {
  return `${pkg}::market::Provider`;
}
export function providerCapType(pkg: string): string {
  return `${pkg}::market::ProviderCap`;
}
export function leaseType(pkg: string): string {
  return `${pkg}::market::Lease`;
}
export function endKeyType(pkg: string): string {
  return `${pkg}::market::EndKey`;
}
export function leaseEndType(pkg: string): string {
  return `${pkg}::market::LeaseEnd`;
}
export function marketEventType(pkg: string, name: MarketEventName): string {
  return `${pkg}::market_events::${name}`;
}

/** Layouts of the market's key objects by Move type (the engine encodes and decodes object contents with them). */
export function marketObjectLayouts(pkg: string): [string, AnyLayout][] {
  return [
    [marketType(pkg), Market],
    [adminCapType(pkg), AdminCap],
    [providerType(pkg), Provider],
    [providerCapType(pkg), ProviderCap],
    [leaseType(pkg), Lease],
  ];
}

/** Layouts of every struct of the two modules by `module::Name` (pure arguments, return values, events). */
export function marketStructLayouts(): Record<string, AnyLayout> {
  const out: Record<string, AnyLayout> = {
    'market::Market': Market,
    'market::AdminCap': AdminCap,
    'market::Provider': Provider,
    'market::ProviderCap': ProviderCap,
    'market::Lease': Lease,
    'market::Deployment': Deployment,
    'market::EndKey': EndKey,
    'market::LeaseEnd': LeaseEnd,
  };
  for (const [name, layout] of Object.entries(MarketEvents)) out[`market_events::${name}`] = layout;
  return out;
}
