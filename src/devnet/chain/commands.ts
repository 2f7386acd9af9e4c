/** The command interpreter: Move calls into the packages, and the built-in coin and transfer commands. */
import { bcs } from '@mysten/sui/bcs';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { CoinContents, coinBalance, deriveObjectId, withCoinBalance, type Owner } from './objects.ts';
import { decodePure, normalizeType, parseSignature, pureSchema, TX_CONTEXT } from './move-types.ts';
import { typeExists, type CallContext, type MoveArg, type MoveValue } from './packages.ts';
import { WorkingSet, tableStore } from './working-set.ts';
import { MAX_ARGUMENTS } from './limits.ts';
import type { StoredEvent } from './store.ts';
import { toStoredBase64 } from './stored-base64.ts';
import { ExecutionFailure, argumentError, type ExecutionRequest, type Slot, type Command, type Argument } from './execution.ts';

export interface RunState {
  slots: Slot[];
  commandResults: MoveValue[][];
  working: WorkingSet;
  sender: string;
  digest: string;
  created: { count: number };
  events: StoredEvent[];
  request: ExecutionRequest;
  gasId: string | null;
  budget: bigint;
}

export function runCommand(command: Command, state: RunState): MoveValue[] {
  if (command.MoveCall) return runMoveCall(command.MoveCall, state);
  if (command.SplitCoins) return splitCoins(command.SplitCoins.coin, command.SplitCoins.amounts, state);
  if (command.MergeCoins) return mergeCoins(command.MergeCoins.destination, command.MergeCoins.sources, state);
  if (command.TransferObjects) return transferObjects(command.TransferObjects.objects, command.TransferObjects.address, state);
  throw new ExecutionFailure({ FeatureNotYetSupported: true }, `${command.$kind} is not supported by the devnet`);
}

function newObjectId(state: RunState): string {
  return deriveObjectId(state.digest, state.created.count++);
}

function resolveArgument(argument: Argument, state: RunState, argIdx: number): Slot {
  if (argument.$kind === 'GasCoin') {
    if (!state.gasId) throw argumentError(argIdx, 'InvalidGasCoinUsage');
    return { kind: 'object', id: state.gasId, mutable: true, shared: false };
  }
  if (argument.$kind === 'Input') {
    const slot = state.slots[argument.Input];
    if (!slot) throw argumentError(argIdx, 'IndexOutOfBounds');
    return slot;
  }
  const [resultIdx, secondary] = argument.$kind === 'Result' ? [argument.Result, null] : argument.NestedResult;
  const results = state.commandResults[resultIdx] as (MoveValue & { slot?: Slot })[] | undefined;
  if (!results) throw argumentError(argIdx, 'IndexOutOfBounds');
  if (secondary === null && results.length !== 1) throw argumentError(argIdx, 'InvalidResultArity');
  const value = results[secondary ?? 0];
  if (!value) throw argumentError(argIdx, 'SecondaryIndexOutOfBounds');
  return (value.slot ??= { kind: 'value', value, moved: false });
}

function runMoveCall(call: NonNullable<Command['MoveCall']>, state: RunState): MoveValue[] {
  const packageId = normalizeSuiAddress(call.package);
  const pkg = state.request.packages.get(packageId)!;
  const fn = pkg.modules.get(call.module)?.get(call.function);
  if (!pkg.modules.has(call.module)) throw new ExecutionFailure({ VMVerificationOrDeserializationError: true }, `Module ${packageId}::${call.module} not found`);
  if (!fn) throw new ExecutionFailure({ FunctionNotFound: true }, `Could not resolve function '${call.function}' in module ${packageId}::${call.module}`);
  if (fn.visibility !== 'public' && !fn.isEntry) throw new ExecutionFailure({ NonEntryFunctionInvoked: true }, `Can only call entry or public functions (${call.function})`);
  if (call.typeArguments.length !== fn.typeParameters.length) throw new ExecutionFailure({ TypeArityMismatch: true }, 'type argument count mismatch');
  const typeArguments = call.typeArguments.map((type: string, index: number) => {
    const normalized = normalizeType(type);
    if (!typeExists(normalized, state.request.packages)) throw new ExecutionFailure({ TypeArgumentError: { argumentIdx: index, kind: { TypeNotFound: true } } }, `type ${normalized} not found`);
    return normalized;
  });
  const signatures = fn.parameters.map((parameter) => parseSignature(parameter, typeArguments));
  const explicit = signatures.filter((signature) => signature.type !== TX_CONTEXT);
  if (call.arguments.length > MAX_ARGUMENTS || explicit.length !== call.arguments.length) throw new ExecutionFailure({ ArityMismatch: true }, `ArityMismatch: ${call.function} takes ${explicit.length} arguments, got ${call.arguments.length}`);

  const mutatedValues: { arg: MoveArg; value: MoveValue }[] = [];
  const args: MoveArg[] = explicit.map((signature, argIdx) => {
    const slot = resolveArgument(call.arguments[argIdx], state, argIdx);
    if (slot.kind === 'pure') {
      if (!pureSchema(signature.type)) throw argumentError(argIdx, 'TypeMismatch');
      try {
        decodePure(signature.type, slot.bytes);
      } catch {
        throw argumentError(argIdx, 'InvalidBCSBytes');
      }
      return { type: signature.type, bcs: slot.bytes, reference: signature.reference, objectId: null };
    }
    if (slot.kind === 'value') {
      if (slot.value.type !== signature.type) throw argumentError(argIdx, 'TypeMismatch');
      if (slot.moved) throw argumentError(argIdx, 'ArgumentWithoutValue');
      if (signature.reference === null) slot.moved = true;
      const arg: MoveArg = { type: signature.type, bcs: slot.value.bcs, reference: signature.reference, objectId: null };
      // A value borrowed mutably (a coin split off earlier, paying into `&mut Coin`) keeps what the function wrote.
      if (signature.reference === 'mutable') mutatedValues.push({ arg, value: slot.value });
      return arg;
    }
    const object = state.working.get(slot.id);
    if (!object) throw argumentError(argIdx, 'ArgumentWithoutValue');
    if (object.type !== signature.type) throw argumentError(argIdx, 'TypeMismatch');
    if (signature.reference === null) {
      // An owned object taken by value moves into the function, which consumes it (e.g. `system::delete_blob`).
      if (slot.shared || !slot.mutable) throw argumentError(argIdx, slot.shared ? 'SharedObjectOperationNotAllowed' : 'InvalidObjectByValue');
      state.working.delete(object.id);
      return { type: signature.type, bcs: object.contents, reference: null, objectId: null };
    }
    if (signature.reference === 'mutable' && !slot.mutable) throw argumentError(argIdx, 'InvalidObjectByMutRef');
    return { type: signature.type, bcs: object.contents, reference: signature.reference, objectId: object.id };
  });

  const ctx: CallContext = {
    sender: state.sender,
    txDigest: state.digest,
    epoch: state.request.epoch,
    newId: () => newObjectId(state),
    emit: (type, contents) => {
      state.events.push({ packageId, module: call.module, sender: state.sender, type: normalizeType(type), bcs: toStoredBase64(contents) });
    },
    share: (type, contents) => {
      const id = bcs.Address.parse(contents.slice(0, 32));
      state.working.write({
        id, version: 0n, owner: { $kind: 'Shared', Shared: { initialSharedVersion: '0' } }, type: normalizeType(type), contents,
        hasPublicTransfer: false, previousTransaction: state.digest, storageRebate: 0n,
      });
    },
    transfer: (type, contents, recipient) => {
      // Only types with `store` are sent with public_transfer: coins and the market's caps.
      const id = bcs.Address.parse(contents.slice(0, 32));
      state.working.write({
        id, version: 0n, owner: { $kind: 'AddressOwner', AddressOwner: normalizeSuiAddress(recipient) }, type: normalizeType(type), contents,
        hasPublicTransfer: true, previousTransaction: state.digest, storageRebate: 0n,
      });
    },
    tables: tableStore(state.working, state.digest),
  };
  const returned = fn.run(ctx, args, typeArguments);
  for (const { arg, value } of mutatedValues) value.bcs = arg.bcs;
  for (const arg of args) {
    if (arg.objectId && arg.reference === 'mutable') {
      const object = state.working.get(arg.objectId)!;
      if (arg.bcs !== object.contents) state.working.write({ ...object, contents: arg.bcs });
    }
  }
  return returned.map((value) => ({ type: normalizeType(value.type), bcs: value.bcs }));
}

/** A coin argument (`&mut Coin<T>`): an owned or gas coin object, or a coin value returned by an earlier command. */
function coinArgument(argument: Argument, state: RunState, argIdx: number): { get(): bigint; set(balance: bigint): void; type: string; gas: boolean } {
  const slot = resolveArgument(argument, state, argIdx);
  if (slot.kind === 'pure') throw argumentError(argIdx, 'TypeMismatch');
  if (slot.kind === 'value') {
    if (!slot.value.type.startsWith(`${'0x' + '0'.repeat(63)}2::coin::Coin<`)) throw argumentError(argIdx, 'TypeMismatch');
    if (slot.moved) throw argumentError(argIdx, 'ArgumentWithoutValue');
    const value = slot.value;
    return {
      type: value.type, gas: false,
      get: () => BigInt(CoinContents.parse(value.bcs).balance),
      set: (balance) => { value.bcs = CoinContents.serialize({ id: CoinContents.parse(value.bcs).id, balance }).toBytes(); },
    };
  }
  const object = state.working.get(slot.id)!;
  if (!object.type.startsWith(`${'0x' + '0'.repeat(63)}2::coin::Coin<`)) throw argumentError(argIdx, 'TypeMismatch');
  if (!slot.mutable) throw argumentError(argIdx, 'InvalidObjectByMutRef');
  const gas = slot.id === state.gasId;
  return {
    type: object.type, gas,
    // The gas budget stays reserved in the gas coin while commands run.
    get: () => coinBalance(state.working.get(slot.id)!) - (gas ? state.budget : 0n),
    set: (balance) => state.working.write(withCoinBalance(state.working.get(slot.id)!, balance + (gas ? state.budget : 0n))),
  };
}

function u64Argument(argument: Argument, state: RunState, argIdx: number): bigint {
  const slot = resolveArgument(argument, state, argIdx);
  try {
    if (slot.kind === 'pure') return BigInt(decodePure('u64', slot.bytes) as string);
    if (slot.kind === 'value' && slot.value.type === 'u64') return BigInt(bcs.u64().parse(slot.value.bcs));
  } catch {
    throw argumentError(argIdx, 'InvalidBCSBytes');
  }
  throw argumentError(argIdx, 'TypeMismatch');
}

function splitCoins(coinArg: Argument, amounts: Argument[], state: RunState): MoveValue[] {
  const coin = coinArgument(coinArg, state, 0);
  return amounts.map((amountArg, index) => {
    const amount = u64Argument(amountArg, state, index + 1);
    const balance = coin.get();
    if (amount > balance) throw new ExecutionFailure({ InsufficientCoinBalance: true }, `InsufficientCoinBalance: ${balance} < ${amount}`);
    coin.set(balance - amount);
    return { type: coin.type, bcs: CoinContents.serialize({ id: newObjectId(state), balance: amount }).toBytes() };
  });
}

function mergeCoins(destination: Argument, sources: Argument[], state: RunState): MoveValue[] {
  const target = coinArgument(destination, state, 0);
  for (const [index, source] of sources.entries()) {
    const slot = resolveArgument(source, state, index + 1);
    const coin = coinArgument(source, state, index + 1);
    if (coin.type !== target.type) throw argumentError(index + 1, 'TypeMismatch');
    if (coin.gas) throw argumentError(index + 1, 'InvalidGasCoinUsage');
    target.set(target.get() + coin.get());
    if (slot.kind === 'object') state.working.delete(slot.id);
    else if (slot.kind === 'value') slot.moved = true;
  }
  return [];
}

function transferObjects(objectArgs: Argument[], addressArg: Argument, state: RunState): MoveValue[] {
  const addressSlot = resolveArgument(addressArg, state, objectArgs.length);
  let recipient: string;
  try {
    if (addressSlot.kind !== 'pure') throw new Error('not pure');
    recipient = normalizeSuiAddress(decodePure('address', addressSlot.bytes) as string);
  } catch {
    throw argumentError(objectArgs.length, 'InvalidBCSBytes');
  }
  const owner: Owner = { $kind: 'AddressOwner', AddressOwner: recipient };
  for (const [index, argument] of objectArgs.entries()) {
    const slot = resolveArgument(argument, state, index);
    if (slot.kind === 'pure') throw argumentError(index, 'InvalidTransferObject');
    if (slot.kind === 'value') {
      if (slot.moved) throw argumentError(index, 'ArgumentWithoutValue');
      slot.moved = true;
      const id = bcs.Address.parse(slot.value.bcs.slice(0, 32));
      state.working.write({ id, version: 0n, owner, type: slot.value.type, contents: slot.value.bcs, hasPublicTransfer: true, previousTransaction: state.digest, storageRebate: 0n });
      continue;
    }
    const object = state.working.get(slot.id)!;
    if (slot.shared || object.owner.$kind === 'Immutable') throw argumentError(index, 'InvalidTransferObject');
    if (slot.id === state.gasId) throw argumentError(index, 'InvalidGasCoinUsage');
    if (!object.hasPublicTransfer) throw argumentError(index, 'InvalidTransferObject');
    state.working.write({ ...object, owner });
  }
  return [];
}
