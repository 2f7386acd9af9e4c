/**
 * The functions of the `market` module a transaction can call, in the shape of abi.ts (signature in Sui's normalized
 * spelling, index in the module's declaration order, `run` on the twin in market-model.ts). Coins arrive by value
 * as the decoded `Coin` and are consumed; objects a call creates are shared (`shared`) or sent to an address
 * (`ctx.transfer`), as the Move code does.
 */
import { CLOCK_TYPE, ID_TYPE, STRING_TYPE, TX_CONTEXT_TYPE, repositoryType } from './bcs.ts';
import type { ClockValue, RepositoryValue } from './bcs.ts';
import type { CallResult, MoveFunctionAbi } from './function-abi.ts';
import type { MoveContext } from './context.ts';
import { functionDeclarer } from './function-declarer.ts';
import {
  AdminCap, Lease, Market, Provider, ProviderCap, SUI_COIN_TYPE, adminCapType, leaseType, marketStructLayouts, marketType,
  providerCapType, providerType,
} from './market-bcs.ts';
import type { AdminCapValue, CoinValue, LeaseValue, MarketValue, ProviderCapValue, ProviderValue } from './market-bcs.ts';
import * as model from './market-model.ts';

const REF_MUT = `&mut ${TX_CONTEXT_TYPE}`;
const REF = `&${TX_CONTEXT_TYPE}`;
const CLOCK = `&${CLOCK_TYPE}`;
const done = (...returns: unknown[]): CallResult => ({ returns, shared: [] });
const now = (clock: unknown) => (clock as ClockValue).timestamp_ms;

/** The callable functions of the `market` module of the package published at `pkg`. */
export function marketFunctions(pkg: string): MoveFunctionAbi[] {
  const market = marketType(pkg);
  const provider = providerType(pkg);
  const cap = providerCapType(pkg);
  const lease = leaseType(pkg);
  const admin = adminCapType(pkg);
  const repo = repositoryType(pkg);
  const fn = functionDeclarer('market'); // the functions in the order market.move declares them
  const providerGetter = (name: string, returns: string, get: (p: ProviderValue) => unknown) => fn(name, [`&${provider}`], [returns], (_ctx, [p]) => done(get(p)));
  const leaseGetter = (name: string, returns: string, get: (l: LeaseValue) => unknown) => fn(name, [`&${lease}`], [returns], (_ctx, [l]) => done(get(l)));
  const marketGetter = (name: string, get: (m: MarketValue) => unknown) => fn(name, [`&${market}`], ['u64'], (_ctx, [m]) => done(get(m)));

  return [
    fn('set_params', [`&mut ${market}`, `&${admin}`, 'u64', 'u64', 'u64'], [], (ctx, [m, a, minStake, unbonding, minLease]) => {
      model.setParams(ctx, m, a as AdminCapValue, minStake, unbonding, minLease);
      return done();
    }),
    fn('register', [`&${market}`, SUI_COIN_TYPE, 'u64', STRING_TYPE, `vector<${STRING_TYPE}>`, `vector<${STRING_TYPE}>`, REF_MUT], [ID_TYPE], (ctx, [m, coin, price, endpoint, keys, values]) => {
      const created = model.register(ctx, m, coin as CoinValue, price, endpoint, keys, values);
      ctx.transfer('market::ProviderCap', ProviderCap.serialize(created.cap).toBytes(), ctx.sender);
      return { returns: [created.provider.id], shared: [{ id: created.provider.id, type: provider, bcs: Provider.serialize(created.provider).toBytes() }] };
    }),
    fn('add_stake', [`&mut ${provider}`, `&${cap}`, SUI_COIN_TYPE], [], (ctx, [p, c, coin]) => (model.addStake(ctx, p, c, coin), done())),
    fn('request_unbond', [`&${market}`, `&mut ${provider}`, `&${cap}`, CLOCK], [], (ctx, [m, p, c, clock]) => (model.requestUnbond(ctx, m, p, c, now(clock)), done())),
    fn('withdraw_stake', [`&mut ${provider}`, `&${cap}`, CLOCK, REF_MUT], [], (ctx, [p, c, clock]) => (model.withdrawStake(ctx, p, c, now(clock)), done())),
    fn('slash', [`&${admin}`, `&mut ${provider}`, `&${lease}`, 'u64', REF_MUT], [], (ctx, [a, p, l, amount]) => (model.slash(ctx, a, p, l, amount), done())),
    fn('open_lease', [`&${market}`, `&mut ${provider}`, `&${repo}`, STRING_TYPE, SUI_COIN_TYPE, CLOCK, REF_MUT], [ID_TYPE], (ctx, [m, p, r, ref, coin, clock]) => {
      const created = model.openLease(ctx, m, p, r as RepositoryValue, ref, coin as CoinValue, now(clock));
      return { returns: [created.id], shared: [{ id: created.id, type: lease, bcs: Lease.serialize(created).toBytes() }] };
    }),
    fn('top_up', [`&mut ${lease}`, SUI_COIN_TYPE, CLOCK, REF], [], (ctx, [l, coin, clock]) => (model.topUp(ctx, l, coin, now(clock)), done())),
    fn('settle', [`&mut ${lease}`, CLOCK], [], (ctx, [l, clock]) => (model.settle(ctx, l, now(clock)), done())),
    fn('claim', [`&mut ${lease}`, `&${provider}`, `&${cap}`, CLOCK, REF_MUT], [], (ctx, [l, p, c, clock]) => (model.claim(ctx, l, p, c, now(clock)), done())),
    fn('close', [`&mut ${lease}`, `&mut ${provider}`, CLOCK, REF_MUT], [], (ctx, [l, p, clock]) => (model.close(ctx, l, p, now(clock)), done())),
    fn('provider_close', [`&mut ${lease}`, `&mut ${provider}`, `&${cap}`, CLOCK, REF_MUT], [], (ctx, [l, p, c, clock]) => (model.providerClose(ctx, l, p, c, now(clock)), done())),
    fn('record_deploy', [`&mut ${lease}`, `&${cap}`, `&${repo}`, 'vector<u8>', 'u256', 'vector<u8>', CLOCK], [], (ctx, [l, c, r, commit, artifact, sha256, clock]) => {
      model.recordDeploy(ctx, l, c as ProviderCapValue, r, commit, artifact, sha256, now(clock));
      return done();
    }),
    fn('state_url', [`&mut ${lease}`, `&${provider}`, `&${cap}`, STRING_TYPE, CLOCK], [], (ctx, [l, p, c, url, clock]) => (model.stateUrl(ctx, l, p, c, url, now(clock)), done())),
    fn('withdraw_url', [`&mut ${lease}`, `&${provider}`, `&${cap}`, CLOCK], [], (ctx, [l, p, c, clock]) => (model.withdrawUrl(ctx, l, p, c, now(clock)), done())),
    marketGetter('min_stake', (m) => m.min_stake),
    marketGetter('unbonding_ms', (m) => m.unbonding_ms),
    marketGetter('min_lease_ms', (m) => m.min_lease_ms),
    providerGetter('provider_owner', 'address', (p) => p.owner),
    providerGetter('stake', 'u64', (p) => p.stake.value),
    providerGetter('price_per_ms', 'u64', (p) => p.price_per_ms),
    providerGetter('active_leases', 'u64', (p) => p.active_leases),
    providerGetter('unbonds_at_ms', '0x1::option::Option<u64>', (p) => p.unbonds_at_ms),
    providerGetter('completed_leases', 'u64', (p) => p.completed_leases),
    providerGetter('provider_closed_leases', 'u64', (p) => p.provider_closed_leases),
    providerGetter('slashed', 'u64', (p) => p.slashed),
    leaseGetter('lease_state', 'u8', (l) => l.state),
    leaseGetter('escrow', 'u64', (l) => l.escrow.value),
    leaseGetter('earned', 'u64', (l) => l.earned.value),
    leaseGetter('settled_until_ms', 'u64', (l) => l.settled_until_ms),
    leaseGetter('tenant', 'address', (l) => l.tenant),
    leaseGetter('lease_provider', ID_TYPE, (l) => l.provider),
    leaseGetter('lease_repository', ID_TYPE, (l) => l.repository),
    fn('lease_state_at', [`&${lease}`, 'u64'], ['u8'], (_ctx, [l, nowMs]) => done(model.leaseStateAt(l, nowMs))),
    fn('cap_provider', [`&${cap}`], [ID_TYPE], (_ctx, [c]) => done((c as ProviderCapValue).provider)),
    leaseGetter('lease_url', STRING_TYPE, (l) => l.url),
    leaseGetter('last_deploy_commit', '0x1::option::Option<vector<u8>>', (l) => l.last_deploy?.commit.slice() ?? null),
    fn('lease_end_reason', [`&${lease}`], ['u8'], (ctx, [l]) => done(model.leaseEndOf(ctx.tables, ctx.packageId, l)?.reason ?? 0)),
    fn('lease_ended_by', [`&${lease}`], ['0x1::option::Option<address>'], (ctx, [l]) => done(model.leaseEndOf(ctx.tables, ctx.packageId, l)?.by ?? null)),
    fn('lease_ended_at_ms', [`&${lease}`], ['0x1::option::Option<u64>'], (ctx, [l]) => done(model.leaseEndOf(ctx.tables, ctx.packageId, l)?.at_ms ?? null)),
  ];
}

/** What publishing the `market` module does: `init` shares the Market and sends the AdminCap to the publisher. */
export function initMarket(ctx: MoveContext): CallResult & { marketId: string; adminCapId: string } {
  const { market, admin } = model.init(ctx);
  ctx.transfer('market::AdminCap', AdminCap.serialize(admin).toBytes(), ctx.sender);
  return { returns: [], shared: [{ id: market.id, type: marketType(ctx.packageId), bcs: Market.serialize(market).toBytes() }], marketId: market.id, adminCapId: admin.id };
}

/** The market's modules and struct types (for `getNormalizedMoveModulesByPackage` and type checks). */
export const MARKET_MODULES = ['market', 'market_events'] as const;

export function marketStructs(pkg: string): string[] {
  return Object.keys(marketStructLayouts()).map((name) => `${pkg}::${name}`);
}
