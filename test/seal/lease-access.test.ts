/**
 * The provider of a lease reads a private repository through `lease_access::seal_approve_lease`, with the stock
 * SealClient against the embedded devnet's key servers: granted while the lease is open and funded; refused, each with
 * its reason, once it is closed or exhausted, for another repository's lease, for a stranger's own cap and for a cap
 * the stranger does not hold; a provider is no reader (as a member it is refused as before).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { newDataKey, newPackIdentity } from '../../src/core/pack-cipher.ts';
import { NotReaderError } from '../../src/core/read-access.ts';
import type { LeaseGrant } from '../../src/ports/key-service.ts';
import type { SealKeyService } from '../../src/seal/key-service.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { restoreProcessClock, skewProcessClock } from '../support/process-clock.ts';
import { closePrivateVault, openPrivateVault, vaultKeyService, type PrivateVault } from '../support/private-vault.ts';

const SUI = 1_000_000_000n;
/** One hour at 1 MIST/ms: the market's minimum lease. */
const HOUR_DEPOSIT = 3_600_000n;

interface Context extends PrivateVault {
  pat: Ed25519Keypair;
  mallory: Ed25519Keypair;
  market: (key: Ed25519Keypair) => SuiMarket;
  provider: string;
}

const service = (context: Context, key: Ed25519Keypair, lease?: LeaseGrant) => vaultKeyService(context, key, lease ? { lease } : {});

/** The code, message and data of what opening `sealed` under `keys` threw. */
async function refusal(keys: SealKeyService, context: Context, sealed: string) {
  try {
    await keys.open(context.repository, [sealed]);
  } catch (error) {
    const e = error as { code: string; message: string; data: Record<string, unknown> };
    return { code: e.code, message: e.message, data: e.data, error };
  }
  assert.unreachable('the key servers gave the key');
  throw new Error('unreachable');
}

const test = suite<Context>('seal_approve_lease on the devnet key servers');

test.before(async (context) => {
  await openPrivateVault(context, 'walrus-lease-access-');
  context.pat = Ed25519Keypair.generate();
  context.mallory = Ed25519Keypair.generate();
  for (const key of [context.pat, context.mallory]) await context.network.faucet(key.toSuiAddress());
  const { network } = context;
  context.market = (key) => new SuiMarket({
    client: network.client,
    ledger: key === context.ownerKey ? context.owner : new SuiLedger({ client: network.client, signer: key, packageId: network.packageId, registryId: network.registryId }),
    packageId: network.packageId,
    marketId: network.marketId,
  });
  context.provider = (await context.market(context.pat).register(20n * SUI, 1n, 'https://pat.example', {})).providerId;
});

test.after(async (context) => {
  restoreProcessClock();
  await closePrivateVault(context);
});

test('the provider of an open lease gets the keys of its repository; as a member it is no reader', async (context) => {
  const dataKey = newDataKey();
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), dataKey);
  const { leaseId } = await context.market(context.ownerKey).openLease(context.provider, context.repository.id, 'refs/heads/main', HOUR_DEPOSIT * 4n);
  const cap = await context.market(context.pat).providerCapId(context.provider);
  const [key] = await service(context, context.pat, { lease: leaseId, cap }).open(context.repository, [sealed]);
  assert.equal(Buffer.from(await key!()).toString('hex'), Buffer.from(dataKey).toString('hex'));

  const asMember = await refusal(service(context, context.pat), context, sealed);
  assert.instance(asMember.error, NotReaderError);
  assert.match(asMember.message, new RegExp(`ask its owner ${context.repository.owner}`));
});

test('the provider\'s cap moves under the approval (its controller states a URL meanwhile): built again, the keys come', async (context) => {
  const dataKey = newDataKey();
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), dataKey);
  const { leaseId } = await context.market(context.ownerKey).openLease(context.provider, context.repository.id, 'refs/heads/main', HOUR_DEPOSIT * 4n);
  const pat = context.market(context.pat);
  const cap = await pat.providerCapId(context.provider);
  let moved = false;
  const keys = vaultKeyService(context, context.pat, {
    lease: { lease: leaseId, cap },
    // The approval is built by now: a transaction with the cap moves it to a new version before the servers see it.
    fetch: async (input, init) => {
      if (!moved) {
        moved = true;
        await pat.stateUrl(leaseId, 'https://app.pat.example/');
      }
      return context.network.keyServerFetch(input, init);
    },
  });
  const [key] = await keys.open(context.repository, [sealed]);
  assert.ok(moved);
  assert.is((await pat.getLease(leaseId)).url, 'https://app.pat.example/');
  assert.equal(Buffer.from(await key!()).toString('hex'), Buffer.from(dataKey).toString('hex'));
});

test('refused for a stranger: with its own ProviderCap (not the lease provider\'s), and with a cap it does not hold', async (context) => {
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), newDataKey());
  const { leaseId } = await context.market(context.ownerKey).openLease(context.provider, context.repository.id, 'refs/heads/main', HOUR_DEPOSIT * 4n);
  const { providerId: own } = await context.market(context.mallory).register(20n * SUI, 1n, 'https://mallory.example', {});
  const ownCap = await context.market(context.mallory).providerCapId(own);
  const mallory = context.mallory.toSuiAddress();
  const withOwn = await refusal(service(context, context.mallory, { lease: leaseId, cap: ownCap }), context, sealed);
  assert.is(withOwn.code, 'NOT_LEASE_PROVIDER');
  assert.match(withOwn.message, new RegExp(`^cannot decrypt the packs of repository 'vault' \\(${context.repository.id}\\): not the lease's provider: the Seal key servers give ${mallory} no keys of ${context.repository.owner}'s repository under lease ${leaseId}`));
  assert.equal(withOwn.data.reason, 'not the provider');

  const patCap = await context.market(context.pat).providerCapId(context.provider);
  const withPats = await refusal(service(context, context.mallory, { lease: leaseId, cap: patCap }), context, sealed);
  assert.is(withPats.code, 'SEAL_LEASE_UNREADABLE');
  assert.match(withPats.message, new RegExp(`ProviderCap ${patCap} is not the signer's`));
});

test('refused for another repository\'s lease', async (context) => {
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), newDataKey());
  const { id: other } = await context.owner.createRepository('other', 'refs/heads/main', { private: true });
  const { leaseId } = await context.market(context.ownerKey).openLease(context.provider, other, 'refs/heads/main', HOUR_DEPOSIT * 4n);
  const cap = await context.market(context.pat).providerCapId(context.provider);
  const refused = await refusal(service(context, context.pat, { lease: leaseId, cap }), context, sealed);
  assert.is(refused.code, 'LEASE_OF_OTHER_REPOSITORY');
  assert.match(refused.message, /that lease serves another repository/);
});

test('refused after close ("lease closed") and after the escrow ran out by the clock ("lease exhausted")', async (context) => {
  const sealed = await service(context, context.ownerKey).seal(newPackIdentity(context.repository.id), newDataKey());
  const tenant = context.market(context.ownerKey);
  const cap = await context.market(context.pat).providerCapId(context.provider);
  const { leaseId: closing } = await tenant.openLease(context.provider, context.repository.id, 'refs/heads/main', HOUR_DEPOSIT * 4n);
  await tenant.close(closing);
  const closed = await refusal(service(context, context.pat, { lease: closing, cap }), context, sealed);
  assert.is(closed.code, 'LEASE_CLOSED');
  assert.equal(closed.data.reason, 'lease closed');
  assert.match(closed.message, new RegExp(`lease closed: the Seal key servers give ${context.pat.toSuiAddress()} no keys of ${context.repository.owner}'s repository under lease ${closing}, which is closed`));
  assert.match(closed.message, /what was decrypted before stays decrypted/);

  // Funded for one hour: two hours on, nobody has settled it, and the policy counts it exhausted all the same.
  const { leaseId: running } = await tenant.openLease(context.provider, context.repository.id, 'refs/heads/main', HOUR_DEPOSIT);
  assert.is((await tenant.getLease(running)).state, 'open');
  skewProcessClock(2 * 3_600_000);
  const exhausted = await refusal(service(context, context.pat, { lease: running, cap }), context, sealed);
  assert.is(exhausted.code, 'LEASE_EXHAUSTED');
  assert.equal(exhausted.data.reason, 'lease exhausted');
  assert.is((await tenant.getLease(running)).state, 'open', 'the policy changed nothing on chain');
});

test.run();
