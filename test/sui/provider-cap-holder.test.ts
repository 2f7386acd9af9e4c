/**
 * Who holds a provider's ProviderCap, read from the chain on every front: the registering address, then whoever the
 * cap is sent to (a key rotation), never the provider's `owner` record, which stays the address paid.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SuiMarket } from '../../src/sui/market.ts';
import { FRONTS, openWithTwoLedgers } from './fronts.ts';

for (const factory of FRONTS) {
  const test = suite(`the ProviderCap's holder (${factory.name})`);
  test('the registering key, then the key the cap is sent to; unknown providers are refused', async () => {
    const context = await openWithTwoLedgers(factory);
    try {
      const market = new SuiMarket({ client: context.front.client, ledger: context.owner, packageId: context.front.packageId, marketId: context.front.marketId });
      const { providerId } = await market.register(20_000_000_000n, 1n, 'https://p.example', {});
      const ownerAddress = await market.signerAddress();
      assert.is(await market.providerCapHolder(providerId), ownerAddress);
      const cap = await market.providerCapId(providerId);
      await context.owner.submit((tx) => tx.transferObjects([tx.object(cap)], context.otherAddress), 'sending the ProviderCap to a new key', () => undefined);
      assert.is(await market.providerCapHolder(providerId), context.otherAddress);
      assert.is((await market.getProvider(providerId)).owner, ownerAddress, 'the owner paid stays');
      const unknown = await market.providerCapHolder(`0x${'99'.repeat(32)}`).then(() => null, (error: Error) => error);
      assert.match(String(unknown?.message), /provider/);
    } finally {
      await context.front.close();
    }
  });
  test.run();
}
