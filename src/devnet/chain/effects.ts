/** A transaction's effects: new versions and digests, the effects' object lists, object types, balance changes. */
import { bcs } from '@mysten/sui/bcs';
import { coinBalance, objectDigest, ownerToBcsValue, storeObject, type ChainObject, type Owner } from './objects.ts';
import { parseType } from './move-types.ts';
import { WorkingSet } from './working-set.ts';
import { writtenIds } from './gas.ts';

/** Assigns the lamport version and digests to every written object and builds the effects' object lists. */
export function finalize(working: WorkingSet, inputObjects: Map<string, ChainObject>, mutableInputs: Set<string>, lamport: bigint, digest: string, rebates: Map<string, bigint>) {
  const writes: ReturnType<typeof storeObject>[] = [];
  const deletes: string[] = [];
  const changed: [string, unknown][] = [];
  const unchanged: [string, unknown][] = [];
  const dependencies = new Set<string>();
  const written = writtenIds(working, mutableInputs);
  for (const object of inputObjects.values()) {
    dependencies.add(object.previousTransaction);
    if (!written.has(object.id) && object.owner.$kind === 'Shared') unchanged.push([object.id, { ReadOnlyRoot: [object.version, objectDigest(object)] }]);
  }
  for (const id of [...written].sort()) {
    const before = inputObjects.get(id) ?? working.loaded.get(id);
    const after = working.get(id);
    const inputState = before ? { Exist: [[before.version, objectDigest(before)], ownerToBcsValue(before.owner)] } : { NotExist: true };
    if (after) {
      // A newly shared object's initial shared version is the version it is created at.
      const owner: Owner = after.owner.$kind === 'Shared' && after.owner.Shared.initialSharedVersion === '0'
        ? { $kind: 'Shared', Shared: { initialSharedVersion: lamport.toString() } }
        : after.owner;
      const object: ChainObject = { ...after, owner, version: lamport, previousTransaction: digest, storageRebate: rebates.get(id) ?? after.storageRebate };
      writes.push(storeObject(object));
      changed.push([id, { inputState, outputState: { ObjectWrite: [objectDigest(object), ownerToBcsValue(owner)] }, idOperation: before ? { None: true } : { Created: true } }]);
    } else if (before) {
      deletes.push(id);
      changed.push([id, { inputState, outputState: { NotExist: true }, idOperation: { Deleted: true } }]);
    }
  }
  unchanged.sort(([a], [b]) => (a < b ? -1 : 1));
  dependencies.delete(digest);
  return { writes, deletes, changed, unchanged, dependencies: [...dependencies].sort() };
}

export function parseStruct(type: string) {
  const tag = parseType(type);
  if (!('struct' in tag)) throw new Error(`event type ${type} is not a struct`);
  return tag.struct;
}

export function objectTypes(working: WorkingSet, inputObjects: Map<string, ChainObject>, mutableInputs: Set<string>): Record<string, string> {
  const types: Record<string, string> = {};
  for (const id of writtenIds(working, mutableInputs)) {
    const object = working.get(id) ?? inputObjects.get(id) ?? working.loaded.get(id);
    if (object) types[id] = object.type;
  }
  return types;
}

/** Net change of every address's coin balances, per coin type (what `balanceChanges` reports). */
export function balanceChanges(working: WorkingSet, inputObjects: Map<string, ChainObject>, mutableInputs: Set<string>): { address: string; coinType: string; amount: string }[] {
  const totals = new Map<string, bigint>();
  const add = (object: ChainObject | undefined, sign: bigint) => {
    const coinType = object && COIN_TYPE.exec(object.type)?.[1];
    if (!object || !coinType || object.owner.$kind !== 'AddressOwner') return;
    const key = `${object.owner.AddressOwner}|${coinType}`;
    totals.set(key, (totals.get(key) ?? 0n) + sign * coinBalance(object));
  };
  for (const id of writtenIds(working, mutableInputs)) {
    add(inputObjects.get(id) ?? working.loaded.get(id), -1n);
    add(working.get(id), 1n);
  }
  return [...totals].filter(([, amount]) => amount !== 0n).map(([key, amount]) => {
    const [address, coinType] = key.split('|');
    return { address, coinType, amount: amount.toString() };
  });
}

const COIN_TYPE = /^0x0{63}2::coin::Coin<(.+)>$/;

/** The epoch a transaction ran in, as its effects record it. */
export function executedEpoch(effectsBcs: Uint8Array): bigint {
  return BigInt(bcs.TransactionEffects.parse(effectsBcs).V2!.executedEpoch);
}
