/**
 * A transaction's `ValidDuring` expiration on every front of the devnet, checked as Sui checks it: accepted when the
 * window holds the current epoch (a gRPC client resolves it through the structured API, and reads it back); refused
 * before execution, changing nothing, for a timestamp bound, a missing epoch, a window over two epochs, another
 * chain, and a window the current epoch is outside of.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Transaction } from '@mysten/sui/transactions';
import { toBase58 } from '@mysten/sui/utils';
import { FRONTS, type Front } from './fronts.ts';

interface Window {
  minEpoch: string | null;
  maxEpoch: string | null;
  minTimestamp: string | null;
  maxTimestamp: string | null;
  chain: string;
  nonce: number;
}

interface Context {
  front: Front;
  key: Ed25519Keypair;
  chain: string;
  epoch: bigint;
}

/** A transfer of 1 MIST to oneself, valid during `window`. */
function transfer(context: Context, window: Partial<Window>): Transaction {
  const tx = new Transaction();
  const sender = context.key.toSuiAddress();
  const [coin] = tx.splitCoins(tx.gas, [1]);
  tx.transferObjects([coin], sender);
  tx.setSender(sender);
  const epoch = String(context.epoch);
  tx.setExpiration({ ValidDuring: { minEpoch: epoch, maxEpoch: epoch, minTimestamp: null, maxTimestamp: null, chain: context.chain, nonce: 7, ...window } });
  return tx;
}

/** Builds `tx` without the client (gas set by hand), so that the bytes reach the execution unchanged, and executes them. */
async function executeOffline(context: Context, tx: Transaction) {
  const { objects: [coin] } = await context.front.client.core.listCoins({ owner: context.key.toSuiAddress() });
  tx.setGasPrice(1000);
  tx.setGasBudget(10_000_000);
  tx.setGasPayment([{ objectId: coin.objectId, version: coin.version, digest: coin.digest }]);
  const bytes = await tx.build();
  const { signature } = await context.key.signTransaction(bytes);
  return context.front.client.core.executeTransaction({ transaction: bytes, signatures: [signature], include: { effects: true } });
}

for (const factory of FRONTS) {
  const test = suite<Context>(`ValidDuring expiration on the devnet (${factory.name})`);

  test.before(async (context) => {
    context.front = await factory.open();
    context.key = Ed25519Keypair.generate();
    await context.front.faucet(context.key.toSuiAddress());
    context.chain = (await context.front.client.core.getChainIdentifier()).chainIdentifier;
    context.epoch = BigInt((await context.front.client.core.getCurrentSystemState()).systemState.epoch);
  });

  test.after(async ({ front }) => {
    await front.close();
  });

  test('a window of the current epoch, or of it and the next, is accepted, resolved through the client and read back', async (context) => {
    const next = String(context.epoch + 1n);
    for (const window of [{}, { maxEpoch: next, nonce: 8 }]) {
      const result = await context.front.client.core.signAndExecuteTransaction({ transaction: transfer(context, window), signer: context.key, include: { effects: true } });
      assert.is(result.$kind, 'Transaction', JSON.stringify(result.FailedTransaction?.effects?.status));
      const read = await context.front.client.core.waitForTransaction({ result, include: { transaction: true } });
      const expiration = read.Transaction!.transaction!.expiration;
      assert.equal(expiration, { $kind: 'ValidDuring', ValidDuring: { minEpoch: String(context.epoch), maxEpoch: String(context.epoch), minTimestamp: null, maxTimestamp: null, chain: context.chain, nonce: 7, ...window } });
    }
  });

  test('refusals, in Sui\'s words, before anything executes', async (context) => {
    const epoch = context.epoch;
    const otherChain = toBase58(new Uint8Array(32).fill(9));
    const cases: [string, Partial<Window>, RegExp][] = [
      ['a timestamp bound', { maxTimestamp: String(Date.now() + 60_000) }, /Feature is not supported: Timestamp-based transaction expiration is not yet supported/],
      ['a minimum timestamp alone', { minEpoch: null, maxEpoch: null, minTimestamp: '1' }, /Timestamp-based transaction expiration is not yet supported/],
      ['no max_epoch', { maxEpoch: null }, /Feature is not supported: Both min_epoch and max_epoch must be specified/],
      ['no min_epoch', { minEpoch: null }, /Both min_epoch and max_epoch must be specified/],
      ['a window of three epochs', { maxEpoch: String(epoch + 2n) }, /Feature is not supported: max_epoch must be at most min_epoch \+ 1/],
      ['another chain', { chain: otherChain }, new RegExp(`Transaction chain ID ${otherChain} does not match network chain ID ${context.chain}\\.`)],
      ['a window that has not begun', { minEpoch: String(epoch + 1n), maxEpoch: String(epoch + 2n) }, /Transaction Expired/],
    ];
    for (const [what, window, expected] of cases) {
      const before = await context.front.client.core.listCoins({ owner: context.key.toSuiAddress() });
      try {
        await executeOffline(context, transfer(context, window));
        assert.unreachable(`${what}: executed`);
      } catch (error) {
        assert.match((error as Error).message, expected, `${what}: ${(error as Error).message}`);
      }
      const after = await context.front.client.core.listCoins({ owner: context.key.toSuiAddress() });
      assert.equal(after.objects.map((c) => c.version), before.objects.map((c) => c.version), `${what}: nothing charged`);
    }
  });

  test.run();
}
