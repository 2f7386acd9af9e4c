/**
 * One Seal identity per access state (src/remote/pack-identity.ts), with the stock SealClient against the embedded
 * devnet's key servers and its chain: a pusher's packs share an identity while nobody lost access, and a reader opens
 * them all with one key per key server; after each way of losing access (a reader or a writer removed, the ownership
 * transferred, a lease closed, a lease out of funds by the clock with no transaction, a lease's tenant removed as a
 * reader) the next pack gets an identity nobody held, the one who lost access is refused its key, and those still
 * allowed read the history and the new pack.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bcs } from '@mysten/sui/bcs';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { fromBase64 } from '@mysten/sui/utils';
import { newDataKey } from '../../src/core/pack-cipher.ts';
import { silentLog } from '../../src/core/log.ts';
import { accessHistoryOf } from '../../src/main/access-history.ts';
import type { LeaseGrant } from '../../src/ports/key-service.ts';
import type { RepositoryInfo } from '../../src/ports/ledger.ts';
import { choosePackIdentity, LEASE_ENDING_MARGIN_MS } from '../../src/remote/pack-identity.ts';
import { SuiDirectory } from '../../src/sui/directory.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';
import { SuiMarket } from '../../src/sui/market.ts';
import { restoreProcessClock, skewProcessClock } from '../support/process-clock.ts';
import { closePrivateVault, openPrivateVault, vaultKeyService, type PrivateVault } from '../support/private-vault.ts';

const SUI = 1_000_000_000n;
/** One hour at 1 MIST/ms: the market's minimum lease. */
const HOUR_DEPOSIT = 3_600_000n;

interface Context extends PrivateVault {
  pat: Ed25519Keypair;
  provider: string;
}

const ledgerOf = (context: Context, key: Ed25519Keypair) => key === context.ownerKey
  ? context.owner
  : new SuiLedger({ client: context.network.client, signer: key, packageId: context.network.packageId, registryId: context.network.registryId });

const marketOf = (context: Context, key: Ed25519Keypair) => new SuiMarket({
  client: context.network.client, ledger: ledgerOf(context, key), packageId: context.network.packageId, marketId: context.network.marketId,
});

/** The identity `key` (a writer) seals its next pack of the vault under, as a push does. */
async function nextIdentity(context: Context, key: Ed25519Keypair = context.ownerKey): Promise<string> {
  const history = accessHistoryOf({
    directory: async () => new SuiDirectory({ client: context.network.client, packageId: context.network.packageId }),
    market: async () => marketOf(context, key),
    signPersonalMessage: async (message) => ({ address: key.toSuiAddress(), signature: (await key.signPersonalMessage(message)).signature }),
  });
  const info: RepositoryInfo = await context.owner.getRepository(context.repository.id);
  return Buffer.from((await choosePackIdentity(history, info, silentLog)).identity).toString('hex');
}

/** A pack's data key sealed under `identity`, and the key. */
async function sealUnder(context: Context, identity: string) {
  const dataKey = newDataKey();
  const sealed = await vaultKeyService(context, context.ownerKey).seal(Uint8Array.from(Buffer.from(identity, 'hex')), dataKey);
  return { sealed, dataKey: Buffer.from(dataKey).toString('hex') };
}

/** Opens `sealed` as `key` (under `lease` when given): the data keys, and the key requests and keys asked of key servers. */
async function open(context: Context, key: Ed25519Keypair, sealed: string[], lease?: LeaseGrant) {
  let [requests, keysAsked] = [0, 0];
  const service = vaultKeyService(context, key, {
    ...(lease ? { lease } : {}),
    fetch: async (input, init) => {
      const { ptb } = JSON.parse(String(init?.body ?? '{}')) as { ptb?: string };
      if (ptb !== undefined) {
        requests += 1;
        keysAsked += bcs.ProgrammableTransaction.parse(fromBase64(ptb)).commands.length;
      }
      return context.network.keyServerFetch(input, init);
    },
  });
  const opened = await service.open(context.repository, sealed);
  return { keys: await Promise.all(opened.map(async (k) => Buffer.from(await k()).toString('hex'))), requests, keysAsked };
}

/** The identity `sealed` was sealed under, hex. */
async function identityOf(context: Context, sealed: string): Promise<string> {
  return Buffer.from(await vaultKeyService(context, context.ownerKey).identityOf(sealed)).toString('hex');
}

/** The error code of opening `sealed` as `key` (the key servers' refusal). */
async function refusedCode(context: Context, key: Ed25519Keypair, sealed: string, lease?: LeaseGrant): Promise<string> {
  try {
    await (await vaultKeyService(context, key, lease ? { lease } : {}).open(context.repository, [sealed]))[0]!();
  } catch (error) {
    return (error as { code: string }).code;
  }
  assert.unreachable('the key servers gave the key');
  return '';
}

const test = suite<Context>('one Seal identity per access state (devnet key servers and chain)');

test.before(async (context) => {
  await openPrivateVault(context, 'walrus-shared-identity-');
  context.pat = Ed25519Keypair.generate();
  await context.network.faucet(context.pat.toSuiAddress());
  context.provider = (await marketOf(context, context.pat).register(20n * SUI, 1n, 'https://pat.example', {})).providerId;
});

test.after(async (context) => {
  restoreProcessClock();
  await closePrivateVault(context);
});

test('packs share an identity while nobody lost access; a reader added later opens all of them with one key from each key server', async (context) => {
  const identity = await nextIdentity(context);
  assert.is(await nextIdentity(context), identity, 'the same state gives the same identity');
  assert.ok(identity.startsWith(context.repository.id.slice(2)), 'the identity names the repository');
  const packs = [];
  for (let i = 0; i < 5; i++) packs.push(await sealUnder(context, await nextIdentity(context)));
  assert.is(new Set(packs.map((p) => p.sealed)).size, 5, 'each pack has its own data key');

  const reader = Ed25519Keypair.generate();
  await context.owner.addReader(context.repository.id, reader.toSuiAddress());
  // The member set is part of the state (a removal shows there before the event index has it): any change starts anew.
  assert.is.not(await nextIdentity(context), identity);
  const { keys, requests, keysAsked } = await open(context, reader, packs.map((p) => p.sealed));
  assert.equal(keys, packs.map((p) => p.dataKey));
  assert.is(requests, 2, 'one request to each of a quorum of two key servers');
  assert.is(keysAsked, 2, 'one key (the identity\'s) from each');

  // Another writer's identity for the same state is its own: nobody else can compute (and ask for) a pusher's next one.
  const writer = Ed25519Keypair.generate();
  await context.network.faucet(writer.toSuiAddress());
  await context.owner.addWriter(context.repository.id, writer.toSuiAddress());
  const mine = await nextIdentity(context);
  assert.is.not(await nextIdentity(context, writer), mine);
});

for (const way of ['a reader removed', 'a writer removed', 'the ownership transferred'] as const) {
  test(`${way}: the next pack's identity is new, its key is refused to the one who lost access, the others read it all`, async (context) => {
    const member = Ed25519Keypair.generate();
    await context.network.faucet(member.toSuiAddress());
    const before = await sealUnder(context, await nextIdentity(context));
    if (way === 'the ownership transferred') {
      // The owner hands the repository to `member` and back: the first owner is then the owner again, having lost
      // access in between; so `member` stands for the one who lost access by handing it back.
      await context.owner.addReader(context.repository.id, member.toSuiAddress());
      assert.equal((await open(context, member, [before.sealed])).keys, [before.dataKey]);
      await context.owner.transferOwnership(context.repository.id, member.toSuiAddress());
      await ledgerOf(context, member).transferOwnership(context.repository.id, context.ownerKey.toSuiAddress());
    } else {
      await (way === 'a reader removed' ? context.owner.addReader(context.repository.id, member.toSuiAddress()) : context.owner.addWriter(context.repository.id, member.toSuiAddress()));
      assert.equal((await open(context, member, [before.sealed])).keys, [before.dataKey], 'a member reads the history');
      await (way === 'a reader removed' ? context.owner.removeReader(context.repository.id, member.toSuiAddress()) : context.owner.removeWriter(context.repository.id, member.toSuiAddress()));
    }
    const after = await nextIdentity(context);
    assert.is.not(after, await identityOf(context, before.sealed));
    const pushed = await sealUnder(context, after);
    assert.is(await refusedCode(context, member, pushed.sealed), 'NOT_A_READER');
    assert.equal((await open(context, context.ownerKey, [before.sealed, pushed.sealed])).keys, [before.dataKey, pushed.dataKey]);
  });
}

test('a lease closed, and a lease whose tenant is removed as a reader: its provider gets the old identity\'s key, not the next one\'s', async (context) => {
  const cap = await marketOf(context, context.pat).providerCapId(context.provider);
  for (const way of ['closed', 'tenant removed'] as const) {
    const tenant = way === 'closed' ? context.ownerKey : Ed25519Keypair.generate();
    if (tenant !== context.ownerKey) {
      await context.network.faucet(tenant.toSuiAddress());
      await context.owner.addReader(context.repository.id, tenant.toSuiAddress());
    }
    const { leaseId } = await marketOf(context, tenant).openLease(context.provider, context.repository.id, 'refs/heads/main', HOUR_DEPOSIT * 4n);
    const before = await sealUnder(context, await nextIdentity(context));
    assert.equal((await open(context, context.pat, [before.sealed], { lease: leaseId, cap })).keys, [before.dataKey], 'the provider reads while the lease holds');
    if (way === 'closed') await marketOf(context, tenant).close(leaseId);
    else await context.owner.removeReader(context.repository.id, tenant.toSuiAddress());
    const after = await nextIdentity(context);
    assert.is.not(after, await identityOf(context, before.sealed), way);
    const pushed = await sealUnder(context, after);
    assert.is(await refusedCode(context, context.pat, pushed.sealed, { lease: leaseId, cap }), way === 'closed' ? 'LEASE_CLOSED' : 'LEASE_TENANT_NOT_READER');
    assert.equal((await open(context, context.ownerKey, [before.sealed, pushed.sealed])).keys, [before.dataKey, pushed.dataKey]);
  }
});

test('a lease out of funds by the clock, with no transaction: the next identity is new; one running out soon gets each pack a fresh one', async (context) => {
  const cap = await marketOf(context, context.pat).providerCapId(context.provider);
  const tenant = marketOf(context, context.ownerKey);
  const { leaseId } = await tenant.openLease(context.provider, context.repository.id, 'refs/heads/main', HOUR_DEPOSIT);
  const before = await sealUnder(context, await nextIdentity(context));
  assert.equal((await open(context, context.pat, [before.sealed], { lease: leaseId, cap })).keys, [before.dataKey]);

  // Within the margin of its end, every pack gets an identity of its own.
  skewProcessClock(3_600_000 - LEASE_ENDING_MARGIN_MS / 2);
  const [first, second] = [await nextIdentity(context), await nextIdentity(context)];
  assert.is.not(first, second);

  skewProcessClock(2 * 3_600_000);
  assert.is((await tenant.getLease(leaseId)).state, 'open', 'nobody settled it');
  const after = await nextIdentity(context);
  assert.is.not(after, await identityOf(context, before.sealed));
  assert.is(await nextIdentity(context), after, 'once it ended, packs share an identity again');
  const pushed = await sealUnder(context, after);
  assert.is(await refusedCode(context, context.pat, pushed.sealed, { lease: leaseId, cap }), 'LEASE_EXHAUSTED');
  assert.equal((await open(context, context.ownerKey, [before.sealed, pushed.sealed])).keys, [before.dataKey, pushed.dataKey]);
});

test.run();
