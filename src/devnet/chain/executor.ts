import { bcs } from '@mysten/sui/bcs';
import { fromBase64, toBase58, normalizeSuiAddress } from '@mysten/sui/utils';
import { TransactionDataBuilder } from '@mysten/sui/transactions';
import {
  CLOCK_ID, GAS_COIN_TYPE, SUI_FRAMEWORK, CoinContents, coinBalance, deriveObjectId, hashTyped, objectDigest, ownerToBcsValue, storeObject,
  withCoinBalance, type ChainObject, type Owner,
} from './objects.ts';
import { decodePure, normalizeType, parseSignature, parseType, pureSchema, TX_CONTEXT } from './move-types.ts';
import { MoveAbortFailure, typeExists, type CallContext, type MoveArg, type MovePackage, type MoveValue } from './packages.ts';
import { TransactionRejectedError } from './errors.ts';
import { ObjectRuntimeLimitFailure, WorkingSet, tableStore, type ObjectSource } from './working-set.ts';
import {
  MAX_ARGUMENTS, MAX_COMMANDS, MAX_EVENTS_PER_TX, MAX_GAS_BUDGET, MAX_INPUT_OBJECTS, MAX_MOVE_OBJECT_SIZE, MAX_PURE_ARGUMENT_SIZE,
  MAX_TX_SIZE_BYTES, REBATE_BASIS_POINTS, REFERENCE_GAS_PRICE, MIN_COMPUTATION_UNITS, computationUnits, storageCost,
} from './limits.ts';
import type { CommitRecord, StoredEvent, TxRecord } from './store.ts';
import { fromStoredBase64, toStoredBase64 } from './stored-base64.ts';

/**
 * Executes one signed programmable transaction against the committed objects, the way a Sui validator does:
 * input checks first (a failure there rejects the transaction: nothing charged, nothing recorded), then the
 * commands, then gas. A failing command (Move abort, bad argument) fails the transaction: its object changes are
 * dropped but it is recorded and the gas is charged, exactly like on chain.
 */

export interface ExecutionRequest {
  objects: ObjectSource;
  packages: Map<string, MovePackage>;
  chainId: string;
  epoch: number;
  checkpoint: number;
  txBytes: Uint8Array;
  signatures: string[];
  /** Dry run: no signatures; an empty gas payment is paid by a mock coin holding the budget. */
  simulate: boolean;
  /** A dry run with transaction checks disabled: owned inputs need not be the sender's (default: checked). */
  checks?: boolean;
  now: number;
}

export interface ExecutionResult {
  digest: string;
  success: boolean;
  effects: Uint8Array;
  events: StoredEvent[];
  commit: CommitRecord;
  /** Per command: values returned (simulation reports them). */
  commandResults: MoveValue[][];
}

/** The transaction's failure, in the shape of Sui's `ExecutionFailureStatus` (BCS enum value). */
class ExecutionFailure extends Error {
  readonly status: Record<string, unknown>;
  command: number | null = null;
  constructor(status: Record<string, unknown>, message: string) {
    super(message);
    this.status = status;
  }
}

const argumentError = (argIdx: number, kind: string) => new ExecutionFailure({ CommandArgumentError: { argIdx, kind: { [kind]: true } } }, `CommandArgumentError { arg_idx: ${argIdx}, kind: ${kind} }`);

type Slot =
  | { kind: 'pure'; bytes: Uint8Array }
  | { kind: 'object'; id: string; mutable: boolean; shared: boolean }
  | { kind: 'value'; value: MoveValue; moved: boolean };

const EventBcs = bcs.struct('Event', { packageId: bcs.Address, transactionModule: bcs.string(), sender: bcs.Address, type: bcs.StructTag, contents: bcs.byteVector() });

export async function executeTransaction(request: ExecutionRequest): Promise<ExecutionResult> {
  const { txBytes, objects, simulate } = request;
  if (txBytes.length > MAX_TX_SIZE_BYTES) {
    throw new TransactionRejectedError('SizeLimitExceeded', `Size limit exceeded: serialized transaction size exceeded maximum of ${MAX_TX_SIZE_BYTES} (${txBytes.length})`, { limit: 'max_tx_size_bytes' });
  }
  let data;
  try {
    data = bcs.TransactionData.parse(txBytes).V1;
  } catch (error) {
    throw new TransactionRejectedError('Deserialization', `cannot deserialize TransactionData: ${(error as Error).message}`);
  }
  if (!data || !data.kind.ProgrammableTransaction) throw new TransactionRejectedError('Unsupported', 'only programmable transactions are accepted');
  const digest = TransactionDataBuilder.getDigestFromBytes(txBytes);
  const sender = normalizeSuiAddress(data.sender);
  const gasOwner = normalizeSuiAddress(data.gasData.owner);
  const { inputs, commands } = data.kind.ProgrammableTransaction;

  if (!simulate) await verifySignatures(txBytes, request.signatures, sender === gasOwner ? [sender] : [sender, gasOwner]);
  checkExpiration(data.expiration, request);
  if (commands.length > MAX_COMMANDS) throw new TransactionRejectedError('SizeLimitExceeded', `Size limit exceeded: too many commands (${commands.length} > ${MAX_COMMANDS})`);
  if (inputs.length > MAX_INPUT_OBJECTS) throw new TransactionRejectedError('SizeLimitExceeded', `Size limit exceeded: too many inputs (${inputs.length} > ${MAX_INPUT_OBJECTS})`);

  const working = new WorkingSet(objects);
  const slots = inputs.map((input, index) => checkInput(input, index, sender, working, request.checks !== false));
  for (const command of commands) {
    const call = command.MoveCall;
    if (call && !request.packages.has(normalizeSuiAddress(call.package))) {
      throw new TransactionRejectedError('DependentPackageNotFound', `Dependent package not found on-chain: ${normalizeSuiAddress(call.package)}`, { packageId: normalizeSuiAddress(call.package) });
    }
  }

  const price = BigInt(data.gasData.price);
  const budget = BigInt(data.gasData.budget);
  if (price < REFERENCE_GAS_PRICE) throw new TransactionRejectedError('GasPriceUnderRGP', `Gas price ${price} under reference gas price (RGP) ${REFERENCE_GAS_PRICE}`);
  if (budget > MAX_GAS_BUDGET) throw new TransactionRejectedError('GasBudgetTooHigh', `Gas budget: ${budget} is higher than max: ${MAX_GAS_BUDGET}`);
  if (budget < MIN_COMPUTATION_UNITS * price) throw new TransactionRejectedError('GasBudgetTooLow', `Gas budget: ${budget} is lower than min: ${MIN_COMPUTATION_UNITS * price}`);
  const gasId = prepareGas(data.gasData.payment, gasOwner, budget, working, inputs, simulate);

  // Every object input and gas coin at its pre-transaction state; all but read-only ones get a new version.
  const inputObjects = new Map(working.loaded);
  const mutableInputs = new Set<string>(slots.flatMap((slot) => (slot.kind === 'object' && slot.mutable ? [slot.id] : [])));
  for (const ref of data.gasData.payment) mutableInputs.add(normalizeSuiAddress(ref.objectId));
  const created = { count: 0 };
  const events: StoredEvent[] = [];
  const commandResults: MoveValue[][] = [];
  let failure: { status: Record<string, unknown>; command: number | null } | null = null;
  let work = 0n;
  try {
    for (const [index, command] of commands.entries()) {
      try {
        commandResults.push(runCommand(command, { slots, commandResults, working, sender, digest, created, events, request, gasId, budget }));
        // A Move call of ours costs Sui far less than this; at 1000 units a Seal key request's 100 `seal_approve` calls
        // (plus the key server's staleness check) stay within the key servers' dry-run budget, as on the real network.
        work += command.MoveCall ? 1000n : 500n;
      } catch (error) {
        throw asFailure(error, index);
      }
    }
    if (events.length > MAX_EVENTS_PER_TX) throw new ExecutionFailure({ EffectsTooLarge: { currentSize: events.length, maxSize: MAX_EVENTS_PER_TX } }, 'too many events');
    for (const object of working.written.values()) {
      if (object.contents.length > MAX_MOVE_OBJECT_SIZE) {
        throw new ExecutionFailure({ MoveObjectTooBig: { objectSize: object.contents.length, maxObjectSize: MAX_MOVE_OBJECT_SIZE } }, `Move object with size ${object.contents.length} is larger than the maximum object size ${MAX_MOVE_OBJECT_SIZE}`);
      }
    }
  } catch (error) {
    if (!(error instanceof ExecutionFailure)) throw error;
    failure = { status: error.status, command: error.command };
  }

  // On failure only the gas charge survives (mutable inputs still get their new version).
  const rollback = () => {
    const fresh = new WorkingSet(objects);
    for (const id of inputObjects.keys()) fresh.get(id);
    if (gasId) prepareGas(data.gasData.payment, gasOwner, budget, fresh, inputs, simulate);
    events.length = 0;
    return fresh;
  };
  let outcome = failure ? rollback() : working;
  const gasOptions = { gasId, price, budget, work, mutableInputs, inputObjects };
  let gasUsed = chargeGas(outcome, { ...gasOptions, outOfGas: false });
  if (gasUsed.exceeded) {
    outcome = rollback();
    failure = { status: { InsufficientGas: true }, command: null };
    gasUsed = chargeGas(outcome, { ...gasOptions, outOfGas: true });
  }

  const lamport = [...inputObjects.values()].reduce((max, object) => (object.version > max ? object.version : max), 0n) + 1n;
  const { writes, deletes, changed, unchanged, dependencies } = finalize(outcome, inputObjects, mutableInputs, lamport, digest, gasUsed.rebates);
  const eventsDigest = events.length
    ? toBase58(hashTyped('TransactionEvents', bcs.vector(EventBcs).serialize(events.map((event) => ({
      packageId: event.packageId, transactionModule: event.module, sender: event.sender, type: parseStruct(event.type), contents: fromStoredBase64(event.bcs),
    }))).toBytes()))
    : null;
  const gasIndex = gasId ? changed.findIndex(([id]) => id === gasId) : -1;
  const effects = bcs.TransactionEffects.serialize({
    V2: {
      status: failure ? { Failure: { error: failure.status, command: failure.command } } : { Success: true },
      executedEpoch: BigInt(request.epoch),
      gasUsed: { computationCost: gasUsed.computationCost, storageCost: gasUsed.storageCost, storageRebate: gasUsed.storageRebate, nonRefundableStorageFee: gasUsed.nonRefundableStorageFee },
      transactionDigest: digest,
      gasObjectIndex: gasIndex >= 0 ? gasIndex : null,
      eventsDigest,
      dependencies,
      lamportVersion: lamport,
      changedObjects: changed,
      unchangedConsensusObjects: unchanged,
      auxDataDigest: null,
    },
  } as unknown as Parameters<typeof bcs.TransactionEffects.serialize>[0]).toBytes();

  const tx: TxRecord = {
    digest, txBytes: toStoredBase64(txBytes), signatures: request.signatures, effects: toStoredBase64(effects), events,
    timestampMs: request.now, checkpoint: request.checkpoint,
    objectTypes: objectTypes(outcome, inputObjects, mutableInputs),
    balanceChanges: balanceChanges(outcome, inputObjects, mutableInputs),
  };
  return { digest, success: failure === null, effects, events, commit: { tx, writes, deletes }, commandResults };
}

async function verifySignatures(txBytes: Uint8Array, signatures: string[], signers: string[]): Promise<void> {
  if (signatures.length !== signers.length) {
    throw new TransactionRejectedError('SignerSignatureNumberMismatch', `Expect ${signers.length} signer signatures but got ${signatures.length}`);
  }
  const remaining = new Set(signers);
  for (const signature of signatures) {
    let address: string;
    try {
      // Loaded here, not at the top: it pulls the SDK's whole cryptography, which reading the chain never needs.
      const { verifyTransactionSignature } = await import('@mysten/sui/verify');
      address = normalizeSuiAddress((await verifyTransactionSignature(txBytes, signature)).toSuiAddress());
    } catch (error) {
      throw new TransactionRejectedError('InvalidSignature', `Invalid user signature: ${(error as Error).message}`);
    }
    if (!remaining.delete(address)) {
      throw new TransactionRejectedError('SignerSignatureAbsent', `Signature is not valid: Required Signature from ${[...remaining].join(', ')} is absent (got a signature from ${address})`, { signer: address });
    }
  }
}

interface ValidityWindow {
  minEpoch: string | number | null;
  maxEpoch: string | number | null;
  minTimestamp: string | number | null;
  maxTimestamp: string | number | null;
  chain: string;
}

/**
 * Sui's checks of a transaction's expiration (sui-types `TransactionData::validity_check`, then the epoch check at
 * signing). `ValidDuring` (and `Validity`, which only adds a proposer restriction a one-validator network has no use
 * for): no network accepts a timestamp bound yet; both epochs are required and span at most two epochs (the SDK
 * sets [current, current + 1] for address-balance gas); the chain must be this one, so bytes signed for another
 * network cannot replay here; and the current epoch must lie in the window. The nonce only makes otherwise equal
 * transactions distinct: it is part of the digest and nothing else checks it.
 */
function checkExpiration(expiration: { $kind: string; Epoch?: string | number; ValidDuring?: ValidityWindow; Validity?: ValidityWindow }, request: ExecutionRequest): void {
  const expired = () => new TransactionRejectedError('TransactionExpired', 'Transaction Expired');
  if (expiration.$kind === 'Epoch' && BigInt(expiration.Epoch!) < BigInt(request.epoch)) throw expired();
  const window = expiration.ValidDuring ?? expiration.Validity;
  if (window === undefined) return;
  const unsupported = (what: string) => new TransactionRejectedError('Unsupported', `Feature is not supported: ${what}`);
  if (window.minTimestamp !== null || window.maxTimestamp !== null) throw unsupported('Timestamp-based transaction expiration is not yet supported');
  if (window.minEpoch === null || window.maxEpoch === null) throw unsupported('Both min_epoch and max_epoch must be specified');
  const [min, max, epoch] = [BigInt(window.minEpoch), BigInt(window.maxEpoch), BigInt(request.epoch)];
  if (max !== min && max !== min + 1n) throw unsupported('max_epoch must be at most min_epoch + 1');
  if (window.chain !== request.chainId) {
    throw new TransactionRejectedError('InvalidChainId', `Transaction chain ID ${window.chain} does not match network chain ID ${request.chainId}.`, { provided: window.chain, expected: request.chainId });
  }
  if (epoch < min || epoch > max) throw expired();
}

type Programmable = NonNullable<ReturnType<typeof bcs.TransactionData.parse>['V1']['kind']['ProgrammableTransaction']>;
type Input = Programmable['inputs'][number];

function checkInput(input: Input, index: number, sender: string, working: WorkingSet, checkOwner: boolean): Slot {
  if (input.Pure) {
    const bytes = fromBase64(input.Pure.bytes);
    if (bytes.length > MAX_PURE_ARGUMENT_SIZE) {
      throw new TransactionRejectedError('SizeLimitExceeded', `Size limit exceeded: max_pure_argument_size ${MAX_PURE_ARGUMENT_SIZE} exceeded by input ${index} (${bytes.length})`, { limit: 'max_pure_argument_size', input: index });
    }
    return { kind: 'pure', bytes };
  }
  const arg = input.Object;
  if (!arg) throw new TransactionRejectedError('Unsupported', `input ${index}: unsupported kind ${input.$kind}`);
  if (arg.SharedObject) {
    const id = normalizeSuiAddress(arg.SharedObject.objectId);
    const object = working.get(id);
    if (!object) throw new TransactionRejectedError('ObjectNotFound', `Could not find the referenced object ${id}`, { objectId: id });
    if (object.owner.$kind !== 'Shared') throw new TransactionRejectedError('NotSharedObjectError', `Object ${id} is not a shared object; pass it by reference (ImmOrOwnedObject)`, { objectId: id });
    if (object.owner.Shared.initialSharedVersion !== String(arg.SharedObject.initialSharedVersion)) {
      throw new TransactionRejectedError('SharedObjectStartingVersionMismatch', `Shared object ${id} has initial shared version ${object.owner.Shared.initialSharedVersion}, not ${arg.SharedObject.initialSharedVersion}`, { objectId: id });
    }
    if (id === CLOCK_ID && arg.SharedObject.mutable) throw new TransactionRejectedError('ImmutableParameterExpectedError', `Immutable parameter expected for object ${id} (the Clock is read-only)`);
    return { kind: 'object', id, mutable: arg.SharedObject.mutable, shared: true };
  }
  const ref = arg.ImmOrOwnedObject ?? arg.Receiving!;
  const id = normalizeSuiAddress(ref.objectId);
  const object = working.get(id);
  if (!object) throw new TransactionRejectedError('ObjectNotFound', `Could not find the referenced object ${id} at version ${ref.version}`, { objectId: id });
  if (object.owner.$kind === 'Shared') {
    throw new TransactionRejectedError('NotOwnedObjectError', `Object ${id} is shared: it must be passed as a shared object with its initial shared version ${object.owner.Shared.initialSharedVersion}`, { objectId: id });
  }
  if (String(object.version) !== String(ref.version)) {
    throw new TransactionRejectedError('ObjectVersionUnavailableForConsumption', `Object ${id} at version ${ref.version} is not available for consumption, its current version: ${object.version}`, { objectId: id });
  }
  if (objectDigest(object) !== ref.digest) throw new TransactionRejectedError('InvalidObjectDigest', `Invalid digest for object ${id}: expected ${objectDigest(object)}, got ${ref.digest}`, { objectId: id });
  if (checkOwner && object.owner.$kind === 'AddressOwner' && object.owner.AddressOwner !== sender) {
    throw new TransactionRejectedError('IncorrectUserSignature', `Object ${id} is owned by account address ${object.owner.AddressOwner}, but given owner/signer address is ${sender}`, { objectId: id });
  }
  if (object.owner.$kind === 'ObjectOwner') throw new TransactionRejectedError('InvalidChildObjectArgument', `Object ${id} is owned by object ${object.owner.ObjectOwner} and cannot be an input`);
  return { kind: 'object', id, mutable: object.owner.$kind !== 'Immutable', shared: false };
}

/** Checks the gas payment and smashes all payment coins into the first; returns the gas coin id (null = address balance). */
function prepareGas(payment: { objectId: string; version: string | number; digest: string }[], gasOwner: string, budget: bigint, working: WorkingSet, inputs: Input[], simulate: boolean): string | null {
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

interface RunState {
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

type Command = Programmable['commands'][number];
type Argument = Command extends { MoveCall?: infer M } ? NonNullable<M> extends { arguments: (infer A)[] } ? A : never : never;

function runCommand(command: Command, state: RunState): MoveValue[] {
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
      return { type: signature.type, bcs: slot.value.bcs, reference: signature.reference, objectId: null };
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

interface GasCharge {
  computationCost: bigint; storageCost: bigint; storageRebate: bigint; nonRefundableStorageFee: bigint;
  /** Storage fee each written object now holds (its future rebate). */
  rebates: Map<string, bigint>;
  exceeded: boolean;
}

interface GasOptions {
  gasId: string | null; price: bigint; budget: bigint; work: bigint;
  mutableInputs: Set<string>; inputObjects: Map<string, ChainObject>;
  /** Charging a transaction that ran out of gas: computation takes what the budget leaves. */
  outOfGas: boolean;
}

/** Ids the transaction writes: mutable inputs (always bumped), and objects created, changed or deleted. */
function writtenIds(working: WorkingSet, mutableInputs: Set<string>): Set<string> {
  return new Set([...mutableInputs, ...working.written.keys(), ...working.deleted]);
}

/** Computation in buckets plus storage of every written object, minus 99% of what the overwritten ones had paid. */
function chargeGas(working: WorkingSet, options: GasOptions): GasCharge {
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

/** Assigns the lamport version and digests to every written object and builds the effects' object lists. */
function finalize(working: WorkingSet, inputObjects: Map<string, ChainObject>, mutableInputs: Set<string>, lamport: bigint, digest: string, rebates: Map<string, bigint>) {
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

function asFailure(error: unknown, command: number): unknown {
  if (error instanceof ExecutionFailure) {
    error.command = command;
    return error;
  }
  if (error instanceof MoveAbortFailure) {
    const failure = new ExecutionFailure({
      MoveAbort: [{ module: { address: error.packageId, name: error.module }, function: error.functionIndex, instruction: 0, functionName: error.functionName }, error.code],
    }, error.message);
    failure.command = command;
    return failure;
  }
  if (error instanceof ObjectRuntimeLimitFailure) {
    const failure = new ExecutionFailure({
      MovePrimitiveRuntimeError: { module: { address: SUI_FRAMEWORK, name: 'dynamic_field' }, function: error.functionIndex, instruction: 0, functionName: error.native },
    }, error.message);
    failure.command = command;
    return failure;
  }
  return error;
}

function parseStruct(type: string) {
  const tag = parseType(type);
  if (!('struct' in tag)) throw new Error(`event type ${type} is not a struct`);
  return tag.struct;
}

function objectTypes(working: WorkingSet, inputObjects: Map<string, ChainObject>, mutableInputs: Set<string>): Record<string, string> {
  const types: Record<string, string> = {};
  for (const id of writtenIds(working, mutableInputs)) {
    const object = working.get(id) ?? inputObjects.get(id) ?? working.loaded.get(id);
    if (object) types[id] = object.type;
  }
  return types;
}

/** Net change of every address's coin balances, per coin type (what `balanceChanges` reports). */
function balanceChanges(working: WorkingSet, inputObjects: Map<string, ChainObject>, mutableInputs: Set<string>): { address: string; coinType: string; amount: string }[] {
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
