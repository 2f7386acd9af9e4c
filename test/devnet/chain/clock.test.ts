import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../../src/core/errors.ts';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { Market, AdminCap, marketType, adminCapType } from '../../../src/contract/market-bcs.ts';
import { normalizeStructTag } from '@mysten/sui/utils';
import { ClockContents } from '../../../src/devnet/chain/objects.ts';

const clock = suite<{ dir: string; engine: ChainEngine }>('devnet Clock control and the market at genesis');

clock.before((context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'walrus-git-clock-'));
});
clock.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

clock('a fresh chain has the market: a shared Market and the AdminCap owned by the faucet address, named in genesis.json', async (context) => {
  context.engine = await ChainEngine.open(context.dir);
  const { packageId, marketId, adminCapId } = context.engine.genesis;
  const market = context.engine.object(marketId!)!;
  assert.is(market.type, normalizeStructTag(marketType(packageId)));
  assert.is(market.owner.$kind, 'Shared');
  assert.is(Market.parse(market.contents).min_stake, 10_000_000_000n);
  const admin = context.engine.object(adminCapId!)!;
  assert.is(admin.type, normalizeStructTag(adminCapType(packageId)));
  assert.equal(admin.owner, { $kind: 'AddressOwner', AddressOwner: await context.engine.faucetAddress() });
  assert.is(AdminCap.parse(admin.contents).id, adminCapId);
  const written = JSON.parse(readFileSync(join(context.dir, 'genesis.json'), 'utf8'));
  assert.is(written.marketId, marketId);
});

clock('frozen, the clock stays where it was set; running, it moves on from there at real speed', async ({ engine }) => {
  const start = await engine.clockMs();
  const target = start + 10n * 86_400_000n;
  await engine.setClock(target, { frozen: true });
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.is(await engine.clockMs(), target);
  await engine.setClock(target + 1000n, { frozen: false });
  await new Promise((resolve) => setTimeout(resolve, 30));
  const now = await engine.clockMs();
  assert.ok(now >= target + 1020n && now < target + 60_000n, String(now - target));
});

clock('another engine on the same state directory sees the same clock; it never goes back', async ({ dir, engine }) => {
  await engine.setClock((await engine.clockMs()) + 5000n, { frozen: true });
  const other = await ChainEngine.open(dir);
  assert.is(await other.clockMs(), await engine.clockMs());
  assert.is(other.genesis.marketId, engine.genesis.marketId);
  const earlier = (await engine.clockMs()) - 1n;
  const refused = await other.setClock(earlier, { frozen: true }).then(() => null, (e: unknown) => e);
  assert.instance(refused, UsageError);
  assert.match((refused as Error).message, /never goes back/);
});

clock('a read of the Clock object moves with time though no transaction ran, as consensus commits move it on Sui', async ({ engine }) => {
  const clockOf = () => ClockContents.parse(engine.object('0x6')!.contents).timestamp_ms;
  await engine.setClock((await engine.clockMs()) + 1000n, { frozen: false });
  const before = BigInt(clockOf());
  await new Promise((resolve) => setTimeout(resolve, 30));
  const after = BigInt(clockOf());
  assert.ok(after >= before + 30n, `${before} → ${after}`);
  assert.is(after <= (await engine.clockMs()), true);
  await engine.setClock(after + 5000n, { frozen: true });
  assert.is(BigInt(clockOf()), after + 5000n);
});

clock.run();
