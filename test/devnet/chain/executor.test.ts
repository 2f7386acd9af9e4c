import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bcs } from '@mysten/sui/bcs';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { extractStatusFromEffectsBcs } from '@mysten/sui/client';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { executeTransaction } from '../../../src/devnet/chain/executor.ts';
import { objectDigest } from '../../../src/devnet/chain/objects.ts';
import { TransactionRejectedError } from '../../../src/devnet/chain/errors.ts';
import type { MovePackage, MoveFunction } from '../../../src/devnet/chain/packages.ts';

/** A package made up for the test: `big::make(n)` shares an object of n bytes; `big::hidden` is private. */
const BIG = normalizeSuiAddress('0xb16');
function bigPackage(): MovePackage {
  const make: MoveFunction = {
    module: 'big', name: 'make', index: 0, visibility: 'public', isEntry: false, typeParameters: [], parameters: ['u64', '&mut 0x2::tx_context::TxContext'], returns: [],
    run: (ctx, [size]) => {
      const id = ctx.newId();
      ctx.share(`${BIG}::big::Blob`, new Uint8Array([...bcs.Address.serialize(id).toBytes(), ...bcs.byteVector().serialize(new Uint8Array(Number(bcs.u64().parse(size.bcs)))).toBytes()]));
      return [];
    },
  };
  const hidden: MoveFunction = { ...make, name: 'hidden', index: 1, visibility: 'private', parameters: [], run: () => [] };
  return { id: BIG, modules: new Map([['big', new Map([['make', make], ['hidden', hidden]])]]), structs: new Set([`${BIG}::big::Blob`]) };
}

interface Context { dir: string; engine: ChainEngine; key: Ed25519Keypair }
const executor = suite<Context>('executeTransaction');

executor.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'walrus-git-exec-'));
  context.engine = await ChainEngine.open(context.dir);
  context.key = Ed25519Keypair.generate();
  await context.engine.faucet(context.key.toSuiAddress());
});
executor.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

async function execute(context: Context, build: (tx: Transaction) => void, epoch = 0) {
  const [coin] = context.engine.coins(context.key.toSuiAddress(), '0x2::sui::SUI');
  const tx = new Transaction();
  build(tx);
  tx.setSender(context.key.toSuiAddress());
  tx.setGasPrice(1000);
  // Storing 250 KiB costs about 2 SUI, as on Sui.
  tx.setGasBudget(5_000_000_000);
  tx.setGasPayment([{ objectId: coin.id, version: coin.version.toString(), digest: objectDigest(coin) }]);
  const txBytes = await tx.build();
  const { signature } = await context.key.signTransaction(txBytes);
  const packages = new Map(await context.engine.packages());
  packages.set(BIG, bigPackage());
  const result = await executeTransaction({
    objects: context.engine.store.objects, packages, chainId: context.engine.genesis.chainId, epoch, checkpoint: 1, txBytes, signatures: [signature], simulate: false, now: Date.now(),
  });
  return { result, status: extractStatusFromEffectsBcs(result.effects) };
}

executor('an object over 250 KiB fails the transaction with MoveObjectTooBig; one under the limit is written', async (context) => {
  const small = await execute(context, (tx) => tx.moveCall({ target: `${BIG}::big::make`, arguments: [tx.pure.u64(250 * 1024 - 64)] }));
  assert.is(small.status.success, true);
  assert.ok(small.result.commit.writes.some((w) => w.type === `${BIG}::big::Blob`));
  const big = await execute(context, (tx) => tx.moveCall({ target: `${BIG}::big::make`, arguments: [tx.pure.u64(250 * 1024)] }));
  assert.is(big.status.success, false);
  assert.equal(big.status.error, { $kind: 'SizeError', message: big.status.error!.message, command: undefined, SizeError: { name: 'ObjectTooBig', size: 250 * 1024 + 32 + 3, maxSize: 250 * 1024 } });
  assert.ok(big.result.commit.writes.every((w) => w.type !== `${BIG}::big::Blob`), 'nothing but gas is written');
});

executor('a ValidDuring window the current epoch has passed is refused as expired; one that holds it executes', async (context) => {
  const during = (min: number, max: number) => (tx: Transaction) => {
    tx.splitCoins(tx.gas, [1]);
    tx.setExpiration({ ValidDuring: { minEpoch: String(min), maxEpoch: String(max), minTimestamp: null, maxTimestamp: null, chain: context.engine.genesis.chainId, nonce: 1 } });
  };
  try {
    await execute(context, during(1, 2), 3);
    assert.unreachable('a window of epochs 1-2 executed in epoch 3');
  } catch (error) {
    assert.instance(error, TransactionRejectedError);
    assert.is((error as TransactionRejectedError).reason, 'TransactionExpired');
  }
  assert.is((await execute(context, during(2, 3), 3)).status.success, true);
});

executor('private functions, unknown type arguments and moved values are refused like the Move VM does', async (context) => {
  const hidden = await execute(context, (tx) => tx.moveCall({ target: `${BIG}::big::hidden`, arguments: [] }));
  assert.match(hidden.status.error!.message, /NonEntryFunctionInvoked/);
  const unknownType = await execute(context, (tx) => tx.moveCall({ target: '0x1::option::none', typeArguments: [`${BIG}::big::Nope`] }));
  assert.is(unknownType.status.error!.$kind, 'TypeArgumentError');
  const moved = await execute(context, (tx) => {
    const pkg = context.engine.genesis.packageId;
    const entry = tx.moveCall({ target: `${pkg}::repository::new_pack_entry`, arguments: [tx.pure.vector('u256', [1n]), tx.pure.u64(1), tx.pure.vector('u8', new Array(32).fill(1))] });
    tx.moveCall({ target: '0x1::option::some', typeArguments: [`${pkg}::pack::PackEntry`], arguments: [entry] });
    tx.moveCall({ target: '0x1::option::some', typeArguments: [`${pkg}::pack::PackEntry`], arguments: [entry] });
  });
  assert.equal(moved.status.error!.CommandArgumentError, { argument: 0, name: 'ArgumentWithoutValue' });
});

executor('coins: split from the gas coin, transfer, and the budget stays reserved', async (context) => {
  const friend = Ed25519Keypair.generate().toSuiAddress();
  const sent = await execute(context, (tx) => {
    const [a, b] = tx.splitCoins(tx.gas, [tx.pure.u64(5), tx.pure.u64(7)]);
    tx.mergeCoins(a, [b]);
    tx.transferObjects([a], tx.pure.address(friend));
  });
  assert.is(sent.status.success, true);
  assert.equal(sent.result.commit.tx!.balanceChanges.find((c) => c.address === normalizeSuiAddress(friend))?.amount, '12');
  const balance = context.engine.balance(context.key.toSuiAddress(), '0x2::sui::SUI');
  const greedy = await execute(context, (tx) => {
    const [all] = tx.splitCoins(tx.gas, [tx.pure.u64(balance)]);
    tx.transferObjects([all], tx.pure.address(friend));
  });
  assert.match(greedy.status.error!.message, /InsufficientCoinBalance/);
});

executor.run();
