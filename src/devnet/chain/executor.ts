import { bcs } from '@mysten/sui/bcs';
import { toBase58, normalizeSuiAddress } from '@mysten/sui/utils';
import { TransactionDataBuilder } from '@mysten/sui/transactions';
import { SUI_FRAMEWORK } from './objects.ts';
import { hashTyped } from '../../light-client/digests.ts';
import { MoveAbortFailure, type MoveValue } from './packages.ts';
import { TransactionRejectedError } from './errors.ts';
import { ObjectRuntimeLimitFailure, WorkingSet } from './working-set.ts';
import { MAX_COMMANDS, MAX_EVENTS_PER_TX, MAX_GAS_BUDGET, MAX_INPUT_OBJECTS, MAX_MOVE_OBJECT_SIZE, REFERENCE_GAS_PRICE, MIN_COMPUTATION_UNITS } from './limits.ts';
import { MAX_TX_SIZE_BYTES } from '../../core/sui-limits.ts';
import type { StoredEvent, TxRecord } from './store.ts';
import { fromStoredBase64, toStoredBase64 } from './stored-base64.ts';
import { ExecutionFailure, type ExecutionRequest, type ExecutionResult } from './execution.ts';
import { verifySignatures, checkExpiration, checkInput } from './checks.ts';
import { prepareGas, chargeGas } from './gas.ts';
import { runCommand } from './commands.ts';
import { finalize, parseStruct, objectTypes, balanceChanges } from './effects.ts';

const EventBcs = bcs.struct('Event', { packageId: bcs.Address, transactionModule: bcs.string(), sender: bcs.Address, type: bcs.StructTag, contents: bcs.byteVector() });

/**
 * Executes one signed programmable transaction against the committed objects, the way a Sui validator does:
 * input checks first (a failure there rejects the transaction: nothing charged, nothing recorded), then the
 * commands, then gas. A failing command (Move abort, bad argument) fails the transaction: its object changes are
 * dropped but it is recorded and the gas is charged, exactly like on chain. The steps live beside it: checks.ts,
 * gas.ts, commands.ts (the interpreter) and effects.ts.
 */
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
