/**
 * The devnet's gRPC simulation honours `checks`: the SDK resolves a transaction kind by simulating it with sender 0x0
 * and transaction checks disabled, as a fullnode allows, so a kind that passes an owned object (a Seal policy taking
 * a ProviderCap) builds over gRPC; with checks enabled, an owned input must still be the sender's.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Transaction } from '@mysten/sui/transactions';
import { SuiMarket } from '../../src/sui/market.ts';
import { grpcWebServer, openWithTwoLedgers, type TwoLedgers } from './fronts.ts';

const test = suite<TwoLedgers & { cap: string; providerId: string }>('devnet gRPC simulation and transaction checks');

test.before(async (context) => {
  Object.assign(context, await openWithTwoLedgers(grpcWebServer));
  const market = new SuiMarket({ client: context.front.client, ledger: context.owner, packageId: context.front.packageId, marketId: context.front.marketId });
  context.providerId = (await market.register(20_000_000_000n, 1n, 'https://p.example', {})).providerId;
  context.cap = await market.providerCapId(context.providerId);
});

test.after(async ({ front }) => {
  await front.close();
});

/** `market::request_unbond` with the owner's ProviderCap (an owned object input). */
const unbond = ({ front, providerId, cap }: TwoLedgers & { cap: string; providerId: string }) => {
  const tx = new Transaction();
  tx.moveCall({ target: `${front.packageId}::market::request_unbond`, arguments: [tx.object(front.marketId), tx.object(providerId), tx.object(cap), tx.object.clock()] });
  return tx;
};

test('a transaction kind with an owned input builds without a sender (checks disabled)', async (context) => {
  const kind = await unbond(context).build({ client: context.front.client, onlyTransactionKind: true });
  assert.ok(kind.length > 0);
});

test('with checks, an owned input of another address is refused', async (context) => {
  const tx = unbond(context);
  tx.setSender(context.otherAddress);
  const refused = await tx.build({ client: context.front.client }).then(() => null, (error: Error) => error);
  assert.ok(refused, 'built for a sender who does not own the cap');
  assert.match(refused!.message, new RegExp(`is owned by account address .*, but given owner/signer address is ${context.otherAddress}`));
});

test.run();
