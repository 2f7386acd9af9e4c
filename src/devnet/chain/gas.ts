/** Gas: the payment's checks and smashing, and the charge of computation and storage, with rebates. */
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { GAS_COIN_TYPE, CoinContents, coinBalance, objectDigest, withCoinBalance, type ChainObject } from './objects.ts';
import { TransactionRejectedError } from './errors.ts';
import { WorkingSet } from './working-set.ts';
import { REBATE_BASIS_POINTS, MIN_COMPUTATION_UNITS, computationUnits, storageCost } from './limits.ts';
import type { Input } from './execution.ts';

/** Checks the gas payment and smashes all payment coins into the first; returns the gas coin id (null = address balance). */
export function prepareGas(payment: { objectId: string; version: string | number; digest: string }[], gasOwner: string, budget: bigint, working: WorkingSet, inputs: Input[], simulate: boolean): string | null {
  if (payment.length === 0) {
    // A dry run without gas payment (the SDK's gas selection) still lets the commands use the gas coin, as Sui's
    // simulation does with a mock coin; it is never committed.
    if (simulate) {
      working.write({
        id: SIMULATION_GAS_COIN_ID, version: 0n, owner: { $kind: 'AddressOwner', AddressOwner: gasOwner }, type: GAS_COIN_TYPE,
        contents: CoinContents.serialize({ id: SIMULATION_GAS_COIN_ID, balance: SIMULATION_GAS_COIN_VALUE }).toBytes(), hasPublicTransfer: true,
        previousTransaction: '11111111111111111111111111111111', storageRebate: 0n,
      });
      return SIMULATION_GAS_COIN_ID;
    }
    // Paying from the address balance: the devnet's faucet funds coins only, so that balance is zero.
    throw new TransactionRejectedError('GasBalanceTooLow', `Available address balance for gas 0 is lower than the needed amount: ${budget}`, { needed: budget.toString() });
  }
  let total = 0n;
  const coins = payment.map((ref) => {
    const id = normalizeSuiAddress(ref.objectId);
    const coin = working.get(id);
    if (!coin) throw new TransactionRejectedError('ObjectNotFound', `Could not find the referenced object ${id} at version ${ref.version}`, { objectId: id });
    if (coin.type !== GAS_COIN_TYPE) throw new TransactionRejectedError('GasObjectNotOwnedObject', `Gas object ${id} is not a Coin<SUI>`);
    if (coin.owner.$kind !== 'AddressOwner' || coin.owner.AddressOwner !== gasOwner) throw new TransactionRejectedError('GasObjectNotOwnedObject', `Gas object ${id} is not owned by the gas owner ${gasOwner}`);
    if (String(coin.version) !== String(ref.version) || objectDigest(coin) !== ref.digest) {
      throw new TransactionRejectedError('ObjectVersionUnavailableForConsumption', `Object ${id} at version ${ref.version} is not available for consumption, its current version: ${coin.version}`, { objectId: id });
    }
    if (inputs.some((input) => input.Object?.ImmOrOwnedObject && normalizeSuiAddress(input.Object.ImmOrOwnedObject.objectId) === id)) {
      throw new TransactionRejectedError('MutableObjectUsedMoreThanOnce', `Mutable object ${id} cannot appear more than one in one transaction`);
    }
    total += coinBalance(coin);
    return coin;
  });
  if (total < budget) {
    throw new TransactionRejectedError('GasBalanceTooLow', `Balance of gas object ${total} is lower than the needed amount: ${budget}`, { balance: total.toString(), needed: budget.toString() });
  }
  const [first, ...rest] = coins;
  for (const coin of rest) working.delete(coin.id);
  working.write(withCoinBalance(first, total));
  return first.id;
}

/** The mock gas coin of a dry run without payment: an id no transaction derives, and more SUI than any budget. */
const SIMULATION_GAS_COIN_ID = normalizeSuiAddress('0x5177');
const SIMULATION_GAS_COIN_VALUE = 1_000_000_000n * 1_000_000_000n;

export interface GasCharge {
  computationCost: bigint; storageCost: bigint; storageRebate: bigint; nonRefundableStorageFee: bigint;
  /** Storage fee each written object now holds (its future rebate). */
  rebates: Map<string, bigint>;
  exceeded: boolean;
}

export interface GasOptions {
  gasId: string | null; price: bigint; budget: bigint; work: bigint;
  mutableInputs: Set<string>; inputObjects: Map<string, ChainObject>;
  /** Charging a transaction that ran out of gas: computation takes what the budget leaves. */
  outOfGas: boolean;
}

/** Ids the transaction writes: mutable inputs (always bumped), and objects created, changed or deleted. */
export function writtenIds(working: WorkingSet, mutableInputs: Set<string>): Set<string> {
  return new Set([...mutableInputs, ...working.written.keys(), ...working.deleted]);
}

/** Computation in buckets plus storage of every written object, minus 99% of what the overwritten ones had paid. */
export function chargeGas(working: WorkingSet, options: GasOptions): GasCharge {
  let storage = 0n;
  let previous = 0n;
  const rebates = new Map<string, bigint>();
  for (const id of writtenIds(working, options.mutableInputs)) {
    const before = options.inputObjects.get(id) ?? working.loaded.get(id);
    if (before) previous += before.storageRebate;
    const after = working.get(id);
    if (after) {
      const fee = storageCost(after.contents.length);
      rebates.set(id, fee);
      storage += fee;
    }
  }
  const storageRebate = (previous * REBATE_BASIS_POINTS) / 10_000n;
  const nonRefundableStorageFee = previous - storageRebate;
  let computationCost = computationUnits(MIN_COMPUTATION_UNITS + options.work) * options.price;
  const exceeded = !options.outOfGas && computationCost + storage - storageRebate > options.budget;
  if (options.outOfGas) {
    const netStorage = storage > storageRebate ? storage - storageRebate : 0n;
    computationCost = options.budget > netStorage ? options.budget - netStorage : 0n;
  }
  if (options.gasId && !exceeded) {
    const gas = working.get(options.gasId)!;
    const net = computationCost + storage - storageRebate;
    const balance = coinBalance(gas) - net;
    working.write(withCoinBalance(gas, balance < 0n ? 0n : balance));
  }
  return { computationCost, storageCost: storage, storageRebate, nonRefundableStorageFee, rebates, exceeded };
}
