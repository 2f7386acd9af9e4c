import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { deriveDynamicFieldID, toBase58, toBase64, fromBase64 } from '@mysten/sui/utils';
import type { SuiClientTypes } from '@mysten/sui/client';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { DevnetCoreClient } from '../../../src/devnet/chain/core-client.ts';
import { TransactionRejectedError } from '../../../src/devnet/chain/errors.ts';
import { nativeEd25519Signer } from '../../../src/devnet/chain/checks.ts';
import { deriveObjectId } from '../../../src/devnet/chain/objects.ts';
import { FAUCET_AMOUNT } from '../../../src/devnet/chain/limits.ts';
import { hashTyped } from '../../../src/light-client/digests.ts';
import { SuiLedger } from '../../../src/sui/ledger.ts';
import { Pushed, Registry, RegistryKey, Repository, eventType, packEntryType } from '../../../src/contract/bcs.ts';
import { bcs, TypeTagSerializer } from '@mysten/sui/bcs';

interface Context { dir: string; engine: ChainEngine; client: DevnetCoreClient; key: Ed25519Keypair; ledger: SuiLedger; repo: string }

const engineSuite = suite<Context>('ChainEngine');

engineSuite.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'walrus-git-chain-'));
  context.engine = await ChainEngine.open(context.dir);
  context.client = new DevnetCoreClient(context.engine);
  context.key = Ed25519Keypair.generate();
  await context.engine.faucet(context.key.toSuiAddress());
  const { packageId, registryId } = context.engine.genesis;
  context.ledger = new SuiLedger({ client: context.client, signer: context.key, packageId, registryId });
  context.repo = (await context.ledger.createRepository('faithful')).id;
});

engineSuite.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

const oid = (n: number) => [...Buffer.from(n.toString(16).padStart(40, '0'), 'hex')];

/** A push transaction with everything set, so the SDK sends it as is (no simulation). */
function pushTx(context: Context, news: number[], options: { budget?: number } = {}): Transaction {
  const pkg = context.engine.genesis.packageId;
  const tx = new Transaction();
  const none = tx.moveCall({ target: '0x1::option::none', typeArguments: [packEntryType(pkg)] });
  tx.moveCall({
    target: `${pkg}::repository::push`,
    arguments: [
      tx.object(context.repo), tx.pure.vector('string', news.map((n) => `refs/heads/t${n}`)), tx.pure.vector('option<vector<u8>>', news.map(() => null)),
      tx.pure.vector('option<vector<u8>>', news.map(oid)), tx.pure.vector('bool', news.map(() => false)), none, tx.object.clock(),
    ],
  });
  tx.setGasBudget(options.budget ?? 50_000_000);
  return tx;
}

async function signedBytes(context: Context, tx: Transaction, signer = context.key): Promise<{ bytes: Uint8Array; signature: string }> {
  tx.setSenderIfNotSet(context.key.toSuiAddress());
  const bytes = await tx.build({ client: context.client });
  return { bytes, signature: (await signer.signTransaction(bytes)).signature };
}

async function rejection(promise: Promise<unknown>): Promise<TransactionRejectedError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, TransactionRejectedError);
    return error as TransactionRejectedError;
  }
  throw new assert.Assertion({ message: 'the transaction was accepted', operator: 'rejects', expects: 'rejection', actual: 'accepted' });
}

function failure(result: SuiClientTypes.TransactionResult<any>): SuiClientTypes.ExecutionError {
  assert.is(result.$kind, 'FailedTransaction');
  return result.FailedTransaction!.status.error!;
}

engineSuite('the faucet pays from its richest coin: after funding its own address it still gives every requester a coin', async (context) => {
  // A test's admin is funded from the faucet's own key, leaving the faucet small coins that sort anywhere by id.
  const faucet = await context.engine.faucetAddress();
  for (let i = 0; i < 5; i++) await context.engine.faucet(faucet);
  for (let i = 0; i < 4; i++) {
    const address = Ed25519Keypair.generate().toSuiAddress();
    await context.engine.faucet(address);
    const coins = (await context.client.listCoins({ owner: address })).objects;
    assert.equal(coins.map((coin) => coin.balance), [FAUCET_AMOUNT.toString()], `request ${i}: one coin of the faucet's amount`);
  }
});

engineSuite('a tampered signature, tampered bytes, a missing signature and a foreign signer are refused', async (context) => {
  const { bytes, signature } = await signedBytes(context, pushTx(context, [1]));
  const raw = fromBase64(signature);
  raw[5] ^= 0x01;
  assert.is((await rejection(context.client.executeTransaction({ transaction: bytes, signatures: [toBase64(raw)] }))).reason, 'InvalidSignature');
  const altered = bytes.slice();
  altered[altered.length - 3] ^= 0x01;
  assert.is((await rejection(context.client.executeTransaction({ transaction: altered, signatures: [signature] }))).reason, 'InvalidSignature');
  assert.is((await rejection(context.client.executeTransaction({ transaction: bytes, signatures: [] }))).reason, 'SignerSignatureNumberMismatch');
  const stranger = Ed25519Keypair.generate();
  const foreign = (await stranger.signTransaction(bytes)).signature;
  const absent = await rejection(context.client.executeTransaction({ transaction: bytes, signatures: [foreign] }));
  assert.is(absent.reason, 'SignerSignatureAbsent');
  assert.is((absent.data as { signer?: string }).signer, stranger.toSuiAddress(), 'the signer is recovered as the SDK derives its address');
  // An Ed25519 signature is checked natively (the SDK is the fallback only): it gives the signer, a tampered one nothing.
  assert.is(nativeEd25519Signer(bytes, foreign), stranger.toSuiAddress());
  assert.is(nativeEd25519Signer(altered, signature), undefined);
  assert.is(nativeEd25519Signer(bytes, toBase64(raw)), undefined);
  // The other schemes are judged by the SDK's verifier: their signers are recovered too.
  for (const other of [Secp256k1Keypair.generate(), Secp256r1Keypair.generate()]) {
    const refused = await rejection(context.client.executeTransaction({ transaction: bytes, signatures: [(await other.signTransaction(bytes)).signature] }));
    assert.is(refused.reason, 'SignerSignatureAbsent');
    assert.is((refused.data as { signer?: string }).signer, other.toSuiAddress());
  }
  // Nothing was recorded: the same transaction, properly signed, still executes.
  const ok = await context.client.executeTransaction({ transaction: bytes, signatures: [signature] });
  assert.is(ok.$kind, 'Transaction');
});

engineSuite('digests and ids are derived like Sui: tx digest, created ids, object digests, lamport versions', async (context) => {
  const tx = new Transaction();
  tx.moveCall({ target: `${context.engine.genesis.packageId}::repository::create`, arguments: [tx.object(context.engine.genesis.registryId), tx.pure.string('ids'), tx.pure.string('refs/heads/main')] });
  const { bytes, signature } = await signedBytes(context, tx);
  const result = await context.client.executeTransaction({ transaction: bytes, signatures: [signature], include: { effects: true } });
  const effects = result.Transaction!.effects!;
  assert.is(result.Transaction!.digest, TransactionDataBuilder.getDigestFromBytes(bytes));
  const derived = new Set(Array.from({ length: 8 }, (_, i) => deriveObjectId(result.Transaction!.digest, i)));
  const created = effects.changedObjects.filter((c) => c.idOperation === 'Created');
  const fresh = created.filter((c) => c.outputOwner?.$kind !== 'ObjectOwner');
  assert.ok(fresh.length === 1 && derived.has(fresh[0].objectId), 'new object ids come from the tx digest');
  assert.ok(created.length === 2, 'the registry entry is a dynamic field object');
  for (const change of effects.changedObjects.filter((c) => c.outputState === 'ObjectWrite')) {
    assert.is(change.outputVersion, effects.lamportVersion);
    const { object } = await context.client.getObject({ objectId: change.objectId, include: { objectBcs: true } });
    assert.is(object.digest, change.outputDigest);
    assert.is(object.digest, toBase58(hashTyped('Object', object.objectBcs!)));
  }
  const repo = created.find((c) => c.outputOwner?.$kind === 'Shared')!;
  assert.equal(repo.outputOwner, { $kind: 'Shared', Shared: { initialSharedVersion: effects.lamportVersion } });
});

engineSuite('shared objects must come with their initial shared version', async (context) => {
  const { object } = await context.client.getObject({ objectId: context.repo });
  const pkg = context.engine.genesis.packageId;
  const bad = (ref: (tx: Transaction) => ReturnType<Transaction['object']>) => {
    const tx = new Transaction();
    tx.moveCall({ target: `${pkg}::repository::set_head`, arguments: [ref(tx), tx.pure.string('refs/heads/x')] });
    tx.setGasBudget(50_000_000);
    return tx;
  };
  const asOwned = bad((tx) => tx.objectRef({ objectId: object.objectId, version: object.version, digest: object.digest }));
  const { bytes, signature } = await signedBytes(context, asOwned);
  assert.is((await rejection(context.client.executeTransaction({ transaction: bytes, signatures: [signature] }))).reason, 'NotOwnedObjectError');
  const wrongVersion = bad((tx) => tx.sharedObjectRef({ objectId: object.objectId, initialSharedVersion: 1, mutable: true }));
  const signed = await signedBytes(context, wrongVersion);
  assert.is((await rejection(context.client.executeTransaction({ transaction: signed.bytes, signatures: [signed.signature] }))).reason, 'SharedObjectStartingVersionMismatch');
});

engineSuite('unknown package, module and function; wrong argument types', async (context) => {
  const pkg = context.engine.genesis.packageId;
  const call = async (build: (tx: Transaction) => void) => {
    const tx = new Transaction();
    build(tx);
    tx.setGasBudget(50_000_000);
    const { bytes, signature } = await signedBytes(context, tx);
    return context.client.executeTransaction({ transaction: bytes, signatures: [signature] });
  };
  const unknownPackage = call((tx) => tx.moveCall({ target: `0x${'42'.repeat(32)}::repository::push`, arguments: [tx.pure.u64(1)] }));
  assert.is((await rejection(unknownPackage)).reason, 'DependentPackageNotFound');
  assert.match(failure(await call((tx) => tx.moveCall({ target: `${pkg}::repository::no_such_function`, arguments: [] }))).message, /FunctionNotFound/);
  assert.match(failure(await call((tx) => tx.moveCall({ target: `${pkg}::nope::f`, arguments: [] }))).message, /VMVerificationOrDeserializationError/);
  const typeMismatch = failure(await call((tx) => tx.moveCall({ target: `${pkg}::repository::set_head`, arguments: [tx.object(context.repo), tx.object.clock()] })));
  assert.equal([typeMismatch.$kind, typeMismatch.CommandArgumentError], ['CommandArgumentError', { argument: 1, name: 'TypeMismatch' }]);
  const badBytes = failure(await call((tx) => tx.moveCall({ target: `${pkg}::repository::set_head`, arguments: [tx.object(context.repo), tx.pure.u64(5)] })));
  assert.equal(badBytes.CommandArgumentError, { argument: 1, name: 'InvalidBCSBytes' });
  const invalidUtf8 = failure(await call((tx) => tx.moveCall({ target: `${pkg}::repository::set_head`, arguments: [tx.object(context.repo), tx.pure.vector('u8', [0xff, 0xfe])] })));
  assert.equal(invalidUtf8.CommandArgumentError, { argument: 1, name: 'InvalidBCSBytes' });
  const { object } = await context.client.getObject({ objectId: context.repo });
  const shared = (tx: Transaction) => tx.sharedObjectRef({ objectId: context.repo, initialSharedVersion: (object.owner as { Shared: { initialSharedVersion: string } }).Shared.initialSharedVersion, mutable: true });
  const arity = failure(await call((tx) => tx.moveCall({ target: `${pkg}::repository::set_head`, arguments: [shared(tx)] })));
  assert.match(arity.message, /ArityMismatch/);
});

engineSuite('size limits: a pure argument over 16 KiB and a transaction over 128 KiB are refused', async (context) => {
  const pkg = context.engine.genesis.packageId;
  const withPure = async (sizes: number[]) => {
    const tx = new Transaction();
    for (const size of sizes) tx.moveCall({ target: `${pkg}::repository::set_head`, arguments: [tx.object(context.repo), tx.pure.string('r'.repeat(size))] });
    tx.setGasBudget(50_000_000);
    const { bytes, signature } = await signedBytes(context, tx);
    return context.client.executeTransaction({ transaction: bytes, signatures: [signature] });
  };
  const pure = await rejection(withPure([16 * 1024 + 1]));
  assert.equal([pure.reason, pure.data.limit], ['SizeLimitExceeded', 'max_pure_argument_size']);
  const big = await rejection(withPure(Array.from({ length: 9 }, () => 15 * 1024)));
  assert.equal([big.reason, big.data.limit], ['SizeLimitExceeded', 'max_tx_size_bytes']);
});

engineSuite('gas: a budget above the balance is refused; running out of gas fails and charges the budget', async (context) => {
  const poor = Ed25519Keypair.generate();
  await context.engine.faucet(poor.toSuiAddress(), 20_000_000n);
  const tooBig = pushTx(context, [7], { budget: 30_000_000 });
  tooBig.setSender(poor.toSuiAddress());
  const signed = await signedBytes(context, tooBig, poor);
  assert.is((await rejection(context.client.executeTransaction({ transaction: signed.bytes, signatures: [signed.signature] }))).reason, 'GasBalanceTooLow');

  const before = BigInt((await context.client.getBalance({ owner: context.key.toSuiAddress() })).balance.balance);
  const result = await context.client.signAndExecuteTransaction({ transaction: pushTx(context, [8], { budget: 1_000_000 }), signer: context.key, include: { effects: true } });
  assert.match(failure(result).message, /InsufficientGas/);
  const after = BigInt((await context.client.getBalance({ owner: context.key.toSuiAddress() })).balance.balance);
  const gas = result.FailedTransaction!.effects!.gasUsed;
  assert.is(before - after, BigInt(gas.computationCost) + BigInt(gas.storageCost) - BigInt(gas.storageRebate));
  assert.ok(before - after <= 1_000_000n && before - after > 900_000n, 'about the whole budget is charged');
  assert.is((await context.ledger.listRefs(context.repo)).has('refs/heads/t8'), false);
});

engineSuite('a Move abort is a failed transaction at our function with the code', async (context) => {
  await context.client.signAndExecuteTransaction({ transaction: pushTx(context, [20]), signer: context.key });
  const result = await context.client.signAndExecuteTransaction({ transaction: pushTx(context, [20]), signer: context.key, include: { effects: true } });
  const error = failure(result);
  assert.is(error.$kind, 'MoveAbort');
  assert.equal(error.MoveAbort!.location, { package: context.engine.genesis.packageId, module: 'repository', function: 3, functionName: 'push', instruction: 0 });
  assert.is(error.MoveAbort!.abortCode, '14');
  assert.is(error.command, 1);
  assert.ok(BigInt(result.FailedTransaction!.effects!.gasUsed.computationCost) > 0n, 'gas charged');
});

engineSuite('the clock follows real time; events page with cursors in both directions', async (context) => {
  for (const n of [30, 31, 32]) {
    await context.client.signAndExecuteTransaction({ transaction: pushTx(context, [n]), signer: context.key });
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const type = eventType(context.engine.genesis.packageId, 'Pushed');
  const seen: { seq: bigint; ts: bigint }[] = [];
  let after: string | null = null;
  do {
    const page: SuiClientTypes.ListEventsResponse = await context.client.listEvents({ filter: { eventType: type }, limit: 1, after });
    for (const event of page.events) {
      const pushed = Pushed.parse(event.bcs);
      seen.push({ seq: pushed.seq, ts: pushed.timestamp_ms });
    }
    after = page.hasNextPage ? page.endCursor : null;
  } while (after);
  assert.ok(seen.length >= 4, 'every push listed');
  assert.equal(seen.map((s) => s.seq), [...seen.map((s) => s.seq)].sort((a, b) => Number(a - b)));
  assert.ok(seen.every((s, i) => i === 0 || s.ts >= seen[i - 1].ts), 'timestamps never go back');
  assert.ok(seen.at(-1)!.ts - seen.at(-3)!.ts >= 10n, 'the clock advances with real time');
  assert.ok(Math.abs(Number(seen.at(-1)!.ts) - Date.now()) < 5_000, 'the clock is wall time');
  const newestFirst = await context.client.listEvents({ filter: { eventType: type }, limit: 2, order: 'descending' });
  assert.equal(newestFirst.events.map((e) => Pushed.parse(e.bcs).seq), [seen.at(-1)!.seq, seen.at(-2)!.seq]);
});

engineSuite('table entries are dynamic fields, listed in pages', async (context) => {
  const refs = await context.ledger.listRefs(context.repo);
  const { object } = await context.client.getObject({ objectId: context.repo, include: { content: true } });
  const fieldsSeen = new Set<string>();
  const parentId = Repository.parse(object.content!).refs.id;
  let cursor: string | null = null;
  do {
    const page: SuiClientTypes.ListDynamicFieldsResponse = await context.client.listDynamicFields({ parentId, limit: 2, cursor });
    assert.ok(page.dynamicFields.length <= 2);
    for (const field of page.dynamicFields) fieldsSeen.add(field.fieldId);
    cursor = page.hasNextPage ? page.cursor : null;
  } while (cursor);
  assert.is(fieldsSeen.size, refs.size);
  const [anyField] = [...fieldsSeen];
  const { object: field } = await context.client.getObject({ objectId: anyField });
  assert.equal(field.owner, { $kind: 'ObjectOwner', ObjectOwner: parentId });
  assert.match(field.type, /::dynamic_field::Field<0x0+1::string::String,vector<u8>>$/);
});

engineSuite('a dynamic field lists with its name\'s exact BCS, by layout for a pure key and by derived id otherwise', async (context) => {
  const content = async (objectId: string) => (await context.client.getObject({ objectId, include: { content: true } })).object.content!;
  const repository = Repository.parse(await content(context.repo));
  const registry = Registry.parse(await content(context.engine.genesis.registryId));
  // refs: Table<String, vector<u8>>; the registry: Table<RegistryKey, address> (a struct key).
  for (const [parentId, decode] of [
    [repository.refs.id, (bytes: Uint8Array) => bcs.string().parse(bytes)],
    [registry.entries.id, (bytes: Uint8Array) => RegistryKey.parse(bytes).name],
  ] as const) {
    const { dynamicFields } = await context.client.listDynamicFields({ parentId });
    assert.ok(dynamicFields.length > 0, `the table ${parentId} has entries`);
    for (const field of dynamicFields) {
      assert.is(deriveDynamicFieldID(parentId, TypeTagSerializer.parseFromStr(field.name.type, true), field.name.bcs), field.fieldId);
      assert.ok(String(decode(field.name.bcs)).length > 0);
    }
  }
});

engineSuite('our package is an object at version 1; system objects are written once, and versioned when they change', async ({ engine, client, dir }) => {
  const { object } = await client.getObject({ objectId: engine.genesis.packageId });
  assert.equal([object.version, object.type], ['1', 'package']);
  const id = `0x${'5e'.repeat(32)}`;
  const entry = (contents: number[]) => ({ id, type: '0x2::clock::Clock', owner: { $kind: 'Immutable' as const, Immutable: true as const }, contents: Uint8Array.from([...Buffer.from(id.slice(2), 'hex'), ...contents]) });
  const lines = () => readFileSync(join(dir, 'chain.log'), 'utf8').split('\n').length;
  await engine.putSystemObjects([entry([1, 0, 0, 0, 0, 0, 0, 0])]);
  const written = lines();
  await engine.putSystemObjects([entry([1, 0, 0, 0, 0, 0, 0, 0])]);
  assert.is(lines(), written, 'nothing committed when the object is as given');
  assert.is(engine.object(id)!.version, 1n);
  await engine.putSystemObjects([entry([2, 0, 0, 0, 0, 0, 0, 0])]);
  assert.is(engine.object(id)!.version, 2n);
  const reopened = await ChainEngine.open(dir);
  assert.equal([...reopened.object(id)!.contents.slice(32)], [2, 0, 0, 0, 0, 0, 0, 0]);
});

engineSuite.run();
