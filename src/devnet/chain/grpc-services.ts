import { bcs } from '@mysten/sui/bcs';
import { SimulationError, parseTransactionEffectsBcs } from '@mysten/sui/client';
import type { SuiClientTypes } from '@mysten/sui/client';
import { GrpcTypes } from '@mysten/sui/grpc';
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { fromBase64, normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { ChainEngine, EPOCH } from './engine.ts';
import { DevnetCoreClient, dryRunBytes, objectView } from './core-client.ts';
import { ChainNotFoundError, TransactionRejectedError } from './errors.ts';
import { GrpcTransactionError, transactionFromGrpc, transactionToGrpc } from './grpc-transaction.ts';
import { PACKAGE_TYPE, coinBalance, type ChainObject } from './objects.ts';
import type { TxRecord } from './store.ts';
import { fromStoredBase64 } from './stored-base64.ts';
import { messageOf } from '../../core/errors.ts';

/**
 * The Sui gRPC API (`sui.rpc.v2`) over the chain engine: the methods `SuiGrpcClient` calls, each taking and returning
 * the SDK's own protobuf message objects. Reads go through the in-process CoreClient (the one mapping from engine to
 * API shapes), then into the protobuf shapes. Transaction resolution happens here, as on a fullnode: inputs given by
 * id only, the gas price, the budget (by dry run) and the gas coins (`do_gas_selection`).
 */

/** gRPC status codes (`google.rpc.Code`). */
export const Code = { OK: 0, INVALID_ARGUMENT: 3, NOT_FOUND: 5, UNIMPLEMENTED: 12, INTERNAL: 13 } as const;

/** A call that ends with a non-OK status. */
export class GrpcStatusError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

type Message = Record<string, any>;
/** A unary method returns one message; a server-streaming one returns its frames. */
export type GrpcMethod = (request: any) => Promise<Message | Message[]>;

const {
  Owner_OwnerKind: OwnerKind, ChangedObject_InputObjectState: InputState, ChangedObject_OutputObjectState: OutputState, ChangedObject_IdOperation: IdOperation,
  UnchangedConsensusObject_UnchangedConsensusObjectKind: UnchangedKind, ExecutionError_ExecutionErrorKind: ErrorKind, FunctionDescriptor_Visibility: Visibility,
  Ability, OpenSignature_Reference: Reference, OpenSignatureBody_Type: BodyType, DynamicField_DynamicFieldKind: FieldKind, QueryEndReason, Ordering,
  SimulateTransactionRequest_TransactionChecks: Checks,
} = GrpcTypes;

/** Every method, by its gRPC path (`sui.rpc.v2.<Service>/<Method>`). */
export function grpcMethods(engine: ChainEngine): Record<string, GrpcMethod> {
  const core = new DevnetCoreClient(engine);

  const objects = async (requests: { objectId?: string; version?: bigint }[], mask: Mask) => {
    const { objects: found } = await core.getObjects({ objectIds: requests.map((r) => r.objectId ?? ''), include: objectInclude(mask) });
    return found.map((object, index) => {
      const wanted = requests[index].version;
      if (object instanceof Error) return { result: { oneofKind: 'error', error: { code: Code.NOT_FOUND, message: object.message, details: [] } } };
      if (wanted !== undefined && String(wanted) !== object.version) {
        return { result: { oneofKind: 'error', error: { code: Code.NOT_FOUND, message: `Object ${object.objectId} at version ${wanted} not found`, details: [] } } };
      }
      return { result: { oneofKind: 'object', object: objectProto(engine.object(object.objectId)!, mask) } };
    });
  };

  /** As a fullnode selects gas: price, budget from a dry run, coins of the gas owner. */
  const withGas = async (tx: Transaction) => {
    try {
      return await tx.build({ client: core });
    } catch (error) {
      // The dry run that sets the budget failed: answer with that execution's effects, as a fullnode does.
      if (!(error instanceof SimulationError && error.executionError)) throw error;
      return dryRunBytes(tx, core);
    }
  };

  const simulate = async (request: GrpcTypes.SimulateTransactionRequest) => {
    if (!request.transaction) throw new GrpcStatusError(Code.INVALID_ARGUMENT, 'missing transaction');
    const given = request.transaction.bcs?.value;
    const tx = Transaction.from(given ? given : JSON.stringify(transactionFromGrpc(request.transaction)));
    let bytes: Uint8Array;
    try {
      bytes = request.doGasSelection && request.checks !== Checks.DISABLED ? await withGas(tx) : await dryRunBytes(tx, core);
    } catch (error) {
      // Inputs that do not resolve (unknown objects, no gas coins): the request is at fault, as on a fullnode.
      throw error instanceof GrpcStatusError ? error : new GrpcStatusError(Code.INVALID_ARGUMENT, messageOf(error));
    }
    const result = await engine.simulate(bytes, { checks: request.checks !== Checks.DISABLED });
    const record = { ...result.commit.tx!, signatures: [] };
    return {
      transaction: executedTransaction(record, mask(request.readMask, 'transaction'), tx.getData()),
      commandOutputs: result.commandResults.map((values) => ({ returnValues: values.map((value) => ({ value: { value: value.bcs } })), mutatedByRef: [] })),
    };
  };

  return {
    'sui.rpc.v2.LedgerService/GetServiceInfo': async () => ({
      chainId: engine.genesis.chainId,
      chain: 'localnet',
      epoch: BigInt(EPOCH),
      checkpointHeight: BigInt(engine.store.checkpoint),
      timestamp: timestamp(Date.now()),
      lowestAvailableCheckpoint: 0n,
      lowestAvailableCheckpointObjects: 0n,
      server: 'git-walrus devnet',
    }),
    'sui.rpc.v2.LedgerService/GetObject': async (request: GrpcTypes.GetObjectRequest) => {
      const [found] = await objects([request], mask(request.readMask));
      if (found.result.oneofKind === 'error') throw new GrpcStatusError(Code.NOT_FOUND, found.result.error!.message);
      return { object: found.result.object };
    },
    'sui.rpc.v2.LedgerService/BatchGetObjects': async (request: GrpcTypes.BatchGetObjectsRequest) => ({ objects: await objects(request.requests, mask(request.readMask)) }),
    'sui.rpc.v2.LedgerService/GetTransaction': async (request: GrpcTypes.GetTransactionRequest) => ({ transaction: executedTransaction(stored(engine, request.digest ?? ''), mask(request.readMask)) }),
    'sui.rpc.v2.LedgerService/BatchGetTransactions': async (request: GrpcTypes.BatchGetTransactionsRequest) => ({
      transactions: request.digests.map((digest) => {
        const record = engine.transaction(digest);
        return record
          ? { result: { oneofKind: 'transaction', transaction: executedTransaction(record, mask(request.readMask)) } }
          : { result: { oneofKind: 'error', error: { code: Code.NOT_FOUND, message: `Transaction ${digest} not found`, details: [] } } };
      }),
    }),
    'sui.rpc.v2.LedgerService/GetEpoch': async (request: GrpcTypes.GetEpochRequest) => {
      if (request.epoch !== undefined && request.epoch !== BigInt(EPOCH)) throw new GrpcStatusError(Code.NOT_FOUND, `Epoch ${request.epoch} not found`);
      const [{ systemState: state }, { protocolConfig }] = await Promise.all([core.getCurrentSystemState(), core.getProtocolConfig()]);
      return {
        epoch: {
          epoch: BigInt(EPOCH),
          firstCheckpoint: 0n,
          start: timestamp(Number(state.epochStartTimestampMs)),
          referenceGasPrice: BigInt(state.referenceGasPrice),
          protocolConfig: { protocolVersion: BigInt(protocolConfig.protocolVersion), featureFlags: protocolConfig.featureFlags, attributes: protocolConfig.attributes, configs: {} },
          systemState: systemStateProto(state),
        },
      };
    },
    'sui.rpc.v2.LedgerService/ListEvents': async (request: GrpcTypes.ListEventsRequest) => {
      const options = request.options ?? {};
      const descending = options.ordering === Ordering.DESCENDING;
      const cursor = descending ? options.before : options.after;
      const limit = Math.min(options.limit || 50, 1000);
      const page = await core.listEvents({
        filter: eventFilter(request.filter), limit, after: cursor ? new TextDecoder().decode(cursor) : undefined, order: descending ? 'descending' : 'ascending',
      } as SuiClientTypes.ListEventsOptions);
      const cursorOf = (event: SuiClientTypes.ListEventsResponse['events'][number]) =>
        new TextEncoder().encode(JSON.stringify({ txDigest: event.transactionDigest, eventSeq: String(event.eventIndex) }));
      const frames: Message[] = page.events.map((event) => ({
        event: {
          packageId: event.packageId, module: event.module, sender: event.sender, eventType: event.eventType, contents: { name: event.eventType, value: event.bcs },
          checkpoint: event.checkpoint != null ? BigInt(event.checkpoint) : undefined, transactionDigest: event.transactionDigest, eventIndex: event.eventIndex,
        },
        watermark: { cursor: cursorOf(event) },
      }));
      const last = frames.at(-1)?.watermark ?? (cursor ? { cursor } : undefined);
      frames.push({ watermark: last, end: { reason: page.hasNextPage ? QueryEndReason.ITEM_LIMIT : QueryEndReason.CHECKPOINT_BOUND } });
      return frames;
    },
    'sui.rpc.v2.StateService/ListOwnedObjects': async (request: GrpcTypes.ListOwnedObjectsRequest) => {
      const fields = mask(request.readMask);
      const page = await core.listOwnedObjects({ owner: request.owner ?? '', type: request.objectType, cursor: pageCursor(request.pageToken), limit: request.pageSize || 50 });
      return { objects: page.objects.map((object) => objectProto(engine.object(object.objectId)!, fields)), nextPageToken: nextPageToken(page) };
    },
    'sui.rpc.v2.StateService/GetBalance': async (request: GrpcTypes.GetBalanceRequest) => {
      const { balance } = await core.getBalance({ owner: request.owner ?? '', coinType: request.coinType });
      return { balance: balanceProto(balance) };
    },
    'sui.rpc.v2.StateService/ListBalances': async (request: GrpcTypes.ListBalancesRequest) => {
      const { balances } = await core.listBalances({ owner: request.owner ?? '' });
      return { balances: balances.map(balanceProto) };
    },
    'sui.rpc.v2.StateService/GetCoinInfo': async (request: GrpcTypes.GetCoinInfoRequest) => {
      const { coinMetadata } = await core.getCoinMetadata({ coinType: request.coinType ?? '' });
      if (!coinMetadata) throw new GrpcStatusError(Code.NOT_FOUND, `Coin info for ${request.coinType} not found`);
      return { coinType: normalizeStructTag(request.coinType ?? ''), metadata: { ...coinMetadata, id: coinMetadata.id ?? undefined, iconUrl: coinMetadata.iconUrl ?? undefined } };
    },
    'sui.rpc.v2.StateService/ListDynamicFields': async (request: GrpcTypes.ListDynamicFieldsRequest) => {
      const parent = request.parent ?? '';
      const fields = mask(request.readMask);
      const page = await core.listDynamicFields({ parentId: parent, cursor: pageCursor(request.pageToken), limit: request.pageSize || 50 });
      return {
        dynamicFields: page.dynamicFields.map((field) => ({
          kind: FieldKind.FIELD, parent: normalizeSuiAddress(parent), fieldId: field.fieldId, name: { name: field.name.type, value: field.name.bcs }, valueType: field.valueType,
          value: fields.has('value') ? { name: field.valueType, value: engine.object(field.fieldId)!.contents.slice(32 + field.name.bcs.length) } : undefined,
        })),
        nextPageToken: nextPageToken(page),
      };
    },
    'sui.rpc.v2.TransactionExecutionService/SimulateTransaction': simulate,
    'sui.rpc.v2.TransactionExecutionService/ExecuteTransaction': async (request: GrpcTypes.ExecuteTransactionRequest) => {
      const bytes = request.transaction?.bcs?.value;
      if (!bytes) throw new GrpcStatusError(Code.INVALID_ARGUMENT, 'transaction.bcs is required');
      const signatures = request.signatures.map((signature) => {
        if (!signature.bcs?.value) throw new GrpcStatusError(Code.INVALID_ARGUMENT, 'signatures must be given as BCS');
        return signature.bcs.value;
      });
      const record = await engine.execute(bytes, signatures.map((signature) => Buffer.from(signature).toString('base64')));
      return { transaction: executedTransaction(record, mask(request.readMask)) };
    },
    'sui.rpc.v2.MovePackageService/GetFunction': async (request: GrpcTypes.GetFunctionRequest) => {
      const { function: fn } = await core.getMoveFunction({ packageId: request.packageId ?? '', moduleName: request.moduleName ?? '', name: request.name ?? '' });
      return {
        function: {
          name: fn.name,
          visibility: { public: Visibility.PUBLIC, private: Visibility.PRIVATE, friend: Visibility.FRIEND }[fn.visibility as 'public'] ?? Visibility.VISIBILITY_UNKNOWN,
          isEntry: fn.isEntry,
          typeParameters: fn.typeParameters.map((p) => ({ isPhantom: p.isPhantom, constraints: p.constraints.map((c) => Ability[c.toUpperCase() as 'COPY']) })),
          parameters: fn.parameters.map(signatureProto),
          returns: fn.returns.map(signatureProto),
        },
      };
    },
  };
}

/** Which fields a read mask asks for (paths under `prefix`, with the prefix removed); no mask asks for everything. */
interface Mask { has(path: string): boolean; under(prefix: string): Mask }

function mask(fieldMask: { paths: string[] } | undefined, prefix?: string): Mask {
  const all: Mask = { has: () => true, under: () => all };
  if (!fieldMask) return all;
  const make = (paths: string[]): Mask => ({
    has: (path) => paths.some((p) => p === path || p.startsWith(`${path}.`) || path.startsWith(`${p}.`)),
    under: (p) => (paths.includes(p) ? all : make(paths.filter((q) => q.startsWith(`${p}.`)).map((q) => q.slice(p.length + 1)))),
  });
  const root = make(fieldMask.paths);
  return prefix ? root.under(prefix) : root;
}

function objectInclude(fields: Mask): SuiClientTypes.ObjectInclude {
  return { content: fields.has('contents'), previousTransaction: fields.has('previous_transaction'), objectBcs: fields.has('bcs') };
}

function objectProto(object: ChainObject, fields: Mask): Message {
  const view = objectView(object, objectInclude(fields));
  const coin = /^0x0{63}2::coin::Coin<.+>$/.test(object.type);
  return {
    objectId: view.objectId,
    version: BigInt(view.version),
    digest: view.digest,
    owner: ownerProto(view.owner),
    objectType: view.type,
    hasPublicTransfer: object.hasPublicTransfer,
    contents: view.content && object.type !== PACKAGE_TYPE ? { name: view.type, value: view.content } : undefined,
    bcs: view.objectBcs ? { name: 'Object', value: view.objectBcs } : undefined,
    previousTransaction: view.previousTransaction,
    storageRebate: object.storageRebate,
    balance: coin && fields.has('balance') ? coinBalance(object) : undefined,
  };
}

function ownerProto(owner: SuiClientTypes.ObjectOwner | null | undefined): Message | undefined {
  if (!owner) return undefined;
  switch (owner.$kind) {
    case 'AddressOwner': return { kind: OwnerKind.ADDRESS, address: owner.AddressOwner };
    case 'ObjectOwner': return { kind: OwnerKind.OBJECT, address: owner.ObjectOwner };
    case 'Shared': return { kind: OwnerKind.SHARED, version: BigInt(owner.Shared.initialSharedVersion) };
    case 'Immutable': return { kind: OwnerKind.IMMUTABLE };
    case 'ConsensusAddressOwner': return { kind: OwnerKind.CONSENSUS_ADDRESS, address: owner.ConsensusAddressOwner.owner, version: BigInt(owner.ConsensusAddressOwner.startVersion) };
    default: return { kind: OwnerKind.OWNER_KIND_UNKNOWN };
  }
}

function balanceProto(balance: SuiClientTypes.Balance): Message {
  return { coinType: balance.coinType, balance: BigInt(balance.balance), coinBalance: BigInt(balance.coinBalance), addressBalance: BigInt(balance.addressBalance) };
}

function pageCursor(token: Uint8Array | undefined): string | undefined {
  return token?.length ? new TextDecoder().decode(token) : undefined;
}

function nextPageToken(page: { hasNextPage: boolean; cursor: string | null }): Uint8Array | undefined {
  return page.hasNextPage && page.cursor ? new TextEncoder().encode(page.cursor) : undefined;
}

function eventFilter(filter: GrpcTypes.EventFilter | undefined): SuiClientTypes.ListEventsOptions['filter'] {
  if (!filter || filter.terms.length === 0) return undefined;
  const literal = filter.terms.length === 1 && filter.terms[0].literals.length === 1 ? filter.terms[0].literals[0] : undefined;
  if (literal && !literal.negated && literal.predicate.oneofKind === 'eventType' && literal.predicate.eventType.eventType?.split('::').length === 3) {
    return { eventType: literal.predicate.eventType.eventType } as SuiClientTypes.ListEventsOptions['filter'];
  }
  throw new GrpcStatusError(Code.UNIMPLEMENTED, 'the devnet lists events by one full Move event type only');
}

function stored(engine: ChainEngine, digest: string): TxRecord {
  const record = engine.transaction(digest);
  if (!record) throw new GrpcStatusError(Code.NOT_FOUND, `Transaction ${digest} not found`);
  return record;
}

function timestamp(ms: number): Message {
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/** An executed (or dry-run) transaction as the API returns it; `resolved` is the data a simulation resolved. */
function executedTransaction(record: TxRecord, fields: Mask, resolved?: ReturnType<Transaction['getData']>): Message {
  const txBytes = fromStoredBase64(record.txBytes);
  const effectsBytes = fromStoredBase64(record.effects);
  const data = resolved ?? TransactionDataBuilder.fromBytes(txBytes).snapshot();
  return {
    digest: record.digest,
    transaction: fields.has('transaction') ? transactionToGrpc(data, txBytes, record.digest) : undefined,
    signatures: record.signatures.map((signature) => ({ bcs: { value: fromBase64(signature) }, signature: { oneofKind: undefined } })),
    effects: fields.has('effects') ? effectsProto(effectsBytes, record) : undefined,
    events: fields.has('events') ? {
      events: record.events.map((event) => ({ packageId: event.packageId, module: event.module, sender: event.sender, eventType: event.type, contents: { name: event.type, value: fromStoredBase64(event.bcs) } })),
    } : undefined,
    checkpoint: BigInt(record.checkpoint),
    timestamp: timestamp(record.timestampMs),
    balanceChanges: fields.has('balance_changes') ? record.balanceChanges : [],
  };
}

function effectsProto(effectsBytes: Uint8Array, record: TxRecord): Message {
  const effects = parseTransactionEffectsBcs(effectsBytes);
  const change = (c: SuiClientTypes.ChangedObject): Message => ({
    objectId: c.objectId,
    inputState: { Exists: InputState.EXISTS, DoesNotExist: InputState.DOES_NOT_EXIST }[c.inputState as 'Exists'] ?? InputState.UNKNOWN,
    inputVersion: c.inputVersion != null ? BigInt(c.inputVersion) : undefined,
    inputDigest: c.inputDigest ?? undefined,
    inputOwner: ownerProto(c.inputOwner),
    outputState: { ObjectWrite: OutputState.OBJECT_WRITE, PackageWrite: OutputState.PACKAGE_WRITE, DoesNotExist: OutputState.DOES_NOT_EXIST }[c.outputState as 'ObjectWrite'] ?? OutputState.UNKNOWN,
    outputVersion: c.outputVersion != null ? BigInt(c.outputVersion) : undefined,
    outputDigest: c.outputDigest ?? undefined,
    outputOwner: ownerProto(c.outputOwner),
    idOperation: { Created: IdOperation.CREATED, Deleted: IdOperation.DELETED, None: IdOperation.NONE }[c.idOperation as 'Created'] ?? IdOperation.ID_OPERATION_UNKNOWN,
    objectType: record.objectTypes[c.objectId],
  });
  return {
    bcs: { name: 'TransactionEffects', value: effectsBytes },
    digest: undefined,
    version: 2,
    status: statusProto(effectsBytes, effects.status),
    epoch: BigInt(EPOCH),
    gasUsed: {
      computationCost: BigInt(effects.gasUsed.computationCost), storageCost: BigInt(effects.gasUsed.storageCost),
      storageRebate: BigInt(effects.gasUsed.storageRebate), nonRefundableStorageFee: BigInt(effects.gasUsed.nonRefundableStorageFee),
    },
    transactionDigest: effects.transactionDigest,
    gasObject: effects.gasObject ? change(effects.gasObject) : undefined,
    eventsDigest: effects.eventsDigest ?? undefined,
    dependencies: effects.dependencies,
    lamportVersion: effects.lamportVersion != null ? BigInt(effects.lamportVersion) : undefined,
    changedObjects: effects.changedObjects.map(change),
    unchangedConsensusObjects: effects.unchangedConsensusObjects.map((o) => ({
      kind: UnchangedKind[screaming(o.kind) as 'READ_ONLY_ROOT'] ?? UnchangedKind.UNCHANGED_CONSENSUS_OBJECT_KIND_UNKNOWN,
      objectId: o.objectId, version: o.version != null ? BigInt(o.version) : undefined, digest: o.digest ?? undefined,
    })),
    unchangedLoadedRuntimeObjects: [],
  };
}

/** The execution status with the failure's kind as the effects name it (`InsufficientGas` → `INSUFFICIENT_GAS`). */
function statusProto(effectsBytes: Uint8Array, status: SuiClientTypes.ExecutionStatus): Message {
  if (status.success) return { success: true };
  const error = status.error!;
  const raw = bcs.TransactionEffects.parse(effectsBytes).V2!.status;
  const kind = raw.$kind === 'Failure' ? raw.Failure.error.$kind : 'Unknown';
  const abort = error.$kind === 'MoveAbort' ? error.MoveAbort! : undefined;
  return {
    success: false,
    error: {
      description: error.message,
      command: error.command != null ? BigInt(error.command) : undefined,
      kind: ErrorKind[screaming(kind) as 'MOVE_ABORT'] ?? ErrorKind.EXECUTION_ERROR_KIND_UNKNOWN,
      errorDetails: abort
        ? {
          oneofKind: 'abort',
          abort: {
            abortCode: BigInt(abort.abortCode),
            location: { package: abort.location?.package, module: abort.location?.module, function: abort.location?.function, instruction: abort.location?.instruction, functionName: abort.location?.functionName },
          },
        }
        : { oneofKind: undefined },
    },
  };
}

function screaming(name: string | null): string {
  return (name ?? '').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function systemStateProto(state: SuiClientTypes.SystemStateInfo): Message {
  const big = (value: string | null | undefined) => (value == null ? undefined : BigInt(value));
  return {
    version: big(state.systemStateVersion), epoch: big(state.epoch), protocolVersion: big(state.protocolVersion), referenceGasPrice: big(state.referenceGasPrice),
    epochStartTimestampMs: big(state.epochStartTimestampMs), safeMode: state.safeMode, safeModeStorageRewards: big(state.safeModeStorageRewards),
    safeModeComputationRewards: big(state.safeModeComputationRewards), safeModeStorageRebates: big(state.safeModeStorageRebates),
    safeModeNonRefundableStorageFee: big(state.safeModeNonRefundableStorageFee), validatorReportRecords: [],
    parameters: {
      epochDurationMs: big(state.parameters.epochDurationMs), stakeSubsidyStartEpoch: big(state.parameters.stakeSubsidyStartEpoch), maxValidatorCount: big(state.parameters.maxValidatorCount),
      minValidatorJoiningStake: big(state.parameters.minValidatorJoiningStake), validatorLowStakeThreshold: big(state.parameters.validatorLowStakeThreshold),
      validatorLowStakeGracePeriod: big(state.parameters.validatorLowStakeGracePeriod),
    },
    storageFund: { totalObjectStorageRebates: big(state.storageFund.totalObjectStorageRebates), nonRefundableBalance: big(state.storageFund.nonRefundableBalance) },
    stakeSubsidy: {
      balance: big(state.stakeSubsidy.balance), distributionCounter: big(state.stakeSubsidy.distributionCounter), currentDistributionAmount: big(state.stakeSubsidy.currentDistributionAmount),
      stakeSubsidyPeriodLength: big(state.stakeSubsidy.stakeSubsidyPeriodLength), stakeSubsidyDecreaseRate: state.stakeSubsidy.stakeSubsidyDecreaseRate,
    },
  };
}

function signatureProto(signature: SuiClientTypes.OpenSignature): Message {
  return { reference: signature.reference === 'mutable' ? Reference.MUTABLE : signature.reference === 'immutable' ? Reference.IMMUTABLE : undefined, body: bodyProto(signature.body) };
}

function bodyProto(body: SuiClientTypes.OpenSignatureBody): Message {
  switch (body.$kind) {
    case 'vector': return { type: BodyType.VECTOR, typeParameterInstantiation: [bodyProto(body.vector)] };
    case 'datatype': return { type: BodyType.DATATYPE, typeName: body.datatype.typeName, typeParameterInstantiation: body.datatype.typeParameters.map(bodyProto) };
    case 'typeParameter': return { type: BodyType.TYPE_PARAMETER, typeParameter: body.index, typeParameterInstantiation: [] };
    default: return { type: BodyType[body.$kind.toUpperCase() as 'U8'] ?? BodyType.TYPE_UNKNOWN, typeParameterInstantiation: [] };
  }
}

/** The status a fullnode answers for an error thrown while serving a call. */
export function statusOf(error: unknown): GrpcStatusError {
  if (error instanceof GrpcStatusError) return error;
  if (error instanceof ChainNotFoundError) return new GrpcStatusError(Code.NOT_FOUND, error.message);
  if (error instanceof TransactionRejectedError || error instanceof GrpcTransactionError) return new GrpcStatusError(Code.INVALID_ARGUMENT, error.message);
  return new GrpcStatusError(Code.INTERNAL, messageOf(error));
}
