import { bcs } from '@mysten/sui/bcs';
import { parseTransactionEffectsBcs, type SuiClientTypes } from '@mysten/sui/client';
import { GrpcTypes } from '@mysten/sui/grpc';
import { Transaction, TransactionDataBuilder } from '@mysten/sui/transactions';
import { fromBase64, toBase58 } from '@mysten/sui/utils';
import { hashTyped } from '../../light-client/digests.ts';
import { ChainEngine } from './engine.ts';
import { executedEpoch } from './effects.ts';
import { objectView } from './core-client.ts';
import { transactionToGrpc } from './grpc-transaction.ts';
import { PACKAGE_TYPE, coinBalance, type ChainObject } from './objects.ts';
import type { TxRecord } from './store.ts';
import { fromStoredBase64 } from './stored-base64.ts';

/**
 * The protobuf messages of the Sui gRPC API (`sui.rpc.v2`) built from the engine's objects and transactions, and
 * the status a call ends with.
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

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- protobuf messages of many types, built and read field by field against the .proto
export type Message = Record<string, any>;

const {
  Owner_OwnerKind: OwnerKind, ChangedObject_InputObjectState: InputState, ChangedObject_OutputObjectState: OutputState, ChangedObject_IdOperation: IdOperation, UnchangedConsensusObject_UnchangedConsensusObjectKind: UnchangedKind, ExecutionError_ExecutionErrorKind: ErrorKind, OpenSignature_Reference: Reference, OpenSignatureBody_Type: BodyType,
} = GrpcTypes;

/** Which fields a read mask asks for (paths under `prefix`, with the prefix removed); no mask asks for everything. */
export interface Mask { has(path: string): boolean; under(prefix: string): Mask }

export function mask(fieldMask: { paths: string[] } | undefined, prefix?: string): Mask {
  const all: Mask = { has: () => true, under: () => all };
  if (!fieldMask) return all;
  const make = (paths: string[]): Mask => ({
    has: (path) => paths.some((p) => p === path || p.startsWith(`${path}.`) || path.startsWith(`${p}.`)),
    under: (p) => (paths.includes(p) ? all : make(paths.filter((q) => q.startsWith(`${p}.`)).map((q) => q.slice(p.length + 1)))),
  });
  const root = make(fieldMask.paths);
  return prefix ? root.under(prefix) : root;
}

export function objectInclude(fields: Mask): SuiClientTypes.ObjectInclude {
  return { content: fields.has('contents'), previousTransaction: fields.has('previous_transaction'), objectBcs: fields.has('bcs') };
}

export function objectProto(object: ChainObject, fields: Mask): Message {
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

export function balanceProto(balance: SuiClientTypes.Balance): Message {
  return { coinType: balance.coinType, balance: BigInt(balance.balance), coinBalance: BigInt(balance.coinBalance), addressBalance: BigInt(balance.addressBalance) };
}

export function pageCursor(token: Uint8Array | undefined): string | undefined {
  return token?.length ? new TextDecoder().decode(token) : undefined;
}

export function nextPageToken(page: { hasNextPage: boolean; cursor: string | null }): Uint8Array | undefined {
  return page.hasNextPage && page.cursor ? new TextEncoder().encode(page.cursor) : undefined;
}

export function eventFilter(filter: GrpcTypes.EventFilter | undefined): SuiClientTypes.ListEventsOptions['filter'] {
  if (!filter || filter.terms.length === 0) return undefined;
  const literal = filter.terms.length === 1 && filter.terms[0].literals.length === 1 ? filter.terms[0].literals[0] : undefined;
  if (literal && !literal.negated && literal.predicate.oneofKind === 'eventType' && literal.predicate.eventType.eventType?.split('::').length === 3) {
    return { eventType: literal.predicate.eventType.eventType } as SuiClientTypes.ListEventsOptions['filter'];
  }
  throw new GrpcStatusError(Code.UNIMPLEMENTED, 'the devnet lists events by one full Move event type only');
}

export async function stored(engine: ChainEngine, digest: string): Promise<TxRecord> {
  const record = await engine.transaction(digest);
  if (!record) throw new GrpcStatusError(Code.NOT_FOUND, `Transaction ${digest} not found`);
  return record;
}

export function timestamp(ms: number): Message {
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1_000_000 };
}

/** An executed (or dry-run) transaction as the API returns it; `resolved` is the data a simulation resolved. */
export function executedTransaction(record: TxRecord, fields: Mask, resolved?: ReturnType<Transaction['getData']>): Message {
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
    digest: toBase58(hashTyped('TransactionEffects', effectsBytes)),
    version: 2,
    status: statusProto(effectsBytes, effects.status),
    epoch: executedEpoch(effectsBytes),
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

export function systemStateProto(state: SuiClientTypes.SystemStateInfo): Message {
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

export function signatureProto(signature: SuiClientTypes.OpenSignature): Message {
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
