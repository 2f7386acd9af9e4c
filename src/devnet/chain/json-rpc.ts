import { bcs } from '@mysten/sui/bcs';
import { parseTransactionEffectsBcs } from '@mysten/sui/client';
import type { SuiClientTypes } from '@mysten/sui/client';
import { fromBase64, toBase64, toBase58, normalizeSuiAddress, normalizeStructTag } from '@mysten/sui/utils';
import { ChainEngine, SUI_TYPE } from './engine.ts';
import { EPOCH } from './genesis.ts';
import { executedEpoch } from './effects.ts';
import { PACKAGE_TYPE, coinBalance, objectDigest, type ChainObject, type Owner } from './objects.ts';
import { fieldTypes, dynamicFieldName } from './core-client.ts';
import { splitTypeArgs } from '../../contract/bcs.ts';
import { TransactionRejectedError, ChainNotFoundError } from './errors.ts';
import { REFERENCE_GAS_PRICE, PROTOCOL_VERSION, EPOCH_DURATION_MS } from './limits.ts';
import type { MoveFunction } from './packages.ts';
import type { TxRecord } from './store.ts';
import { WalrusGitError } from '../../core/errors.ts';
import { fromStoredBase64 } from './stored-base64.ts';
import { isJsonRequest, readCappedBody } from '../capped-body.ts';

/**
 * The network front's Sui RPC: the JSON-RPC 2.0 methods `SuiJsonRpcClient` (and its `client.core`) calls, answered
 * from the chain engine in the fullnode's JSON shapes. Errors use JSON-RPC error objects with the fullnode's codes
 * and wording, so the SDK raises the same errors it raises against a real node.
 */

interface RpcRequest { jsonrpc: '2.0'; id: number | string | null; method: string; params?: unknown[] }

/** Sui's digest of a deleted object (`ObjectDigest::OBJECT_DIGEST_DELETED`: 32 bytes of 99). */
const DELETED_DIGEST = toBase58(new Uint8Array(32).fill(99));
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;
const METHOD_NOT_FOUND = -32601;
/** jsonrpsee's answer (with HTTP 413) to a body above its limit. */
const OVERSIZED_REQUEST = -32007;
/** jsonrpsee's default request limit (10 MB), which a fullnode's JSON-RPC server keeps; a transaction is at most 128 KiB. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/** What fullnodes answer for a transaction refused by validators (input errors, bad signature). */
const TRANSACTION_REJECTED = -32002;

class RpcError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

export function jsonRpcHandler(engine: ChainEngine): (request: Request) => Promise<Response> {
  const methods = rpcMethods(engine);
  return async (request) => {
    if (!isJsonRequest(request)) {
      await request.body?.cancel().catch(() => {});
      return new Response('Supplied content type is not allowed. Content-Type: application/json is required', { status: 415 });
    }
    const bytes = await readCappedBody(request, MAX_REQUEST_BYTES);
    if (bytes === null) return Response.json({ jsonrpc: '2.0', id: null, error: { code: OVERSIZED_REQUEST, message: 'Request is too big' } }, { status: 413 });
    let body: RpcRequest;
    try {
      body = JSON.parse(new TextDecoder().decode(bytes)) as RpcRequest;
    } catch {
      return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    // JSON that is no request object (`null`, a number, no method name) is the client's error, as JSON-RPC 2.0 says.
    if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof body.method !== 'string') {
      return Response.json({ jsonrpc: '2.0', id: null, error: { code: INVALID_REQUEST, message: 'Invalid request: expected an object with "jsonrpc", "id", "method" and "params"' } });
    }
    // Own methods only: `constructor` or `__proto__` must not reach the prototype chain.
    const method = Object.hasOwn(methods, body.method) ? methods[body.method] : undefined;
    if (!method) return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: METHOD_NOT_FOUND, message: `Method not found: ${body.method}` } });
    const params = body.params ?? [];
    const wrong = Array.isArray(params) ? wrongParam(PARAMS[body.method] ?? [], params) : 'params must be an array';
    if (wrong !== undefined) return Response.json({ jsonrpc: '2.0', id: body.id, error: { code: INVALID_PARAMS, message: `Invalid params: ${wrong}` } });
    try {
      await engine.refresh();
      const result = await method(...(params as unknown[]));
      return Response.json({ jsonrpc: '2.0', id: body.id, result });
    } catch (error) {
      const code = error instanceof RpcError ? error.code : error instanceof TransactionRejectedError ? TRANSACTION_REJECTED : error instanceof WalrusGitError ? INVALID_PARAMS : -32603;
      return Response.json({ jsonrpc: '2.0', id: body.id, error: { code, message: (error as Error).message } });
    }
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON-RPC positional params: each method checks its own
type Method = (...params: any[]) => unknown;

/** A parameter's JSON type: string, number, boolean, object, array of strings; `?`: may be absent or null. */
type ParamKind = 'string' | 'number' | 'boolean' | 'object' | 'string[]';
type ParamSpec = [name: string, kind: ParamKind, optional?: 'optional'];

/** The parameters each method takes, checked before it runs: a wrong one is the client's error (-32602), as a fullnode answers. */
const PARAMS: Record<string, ParamSpec[]> = {
  sui_getCheckpoint: [['id', 'string']],
  suix_getBalance: [['owner', 'string'], ['coin_type', 'string', 'optional']],
  suix_getAllBalances: [['owner', 'string']],
  suix_getCoins: [['owner', 'string'], ['coin_type', 'string', 'optional'], ['cursor', 'string', 'optional'], ['limit', 'number', 'optional']],
  sui_getObject: [['object_id', 'string'], ['options', 'object', 'optional']],
  sui_multiGetObjects: [['object_ids', 'string[]'], ['options', 'object', 'optional']],
  suix_getOwnedObjects: [['address', 'string'], ['query', 'object', 'optional'], ['cursor', 'string', 'optional'], ['limit', 'number', 'optional']],
  suix_getDynamicFields: [['parent_object_id', 'string'], ['cursor', 'string', 'optional'], ['limit', 'number', 'optional']],
  sui_getNormalizedMoveFunction: [['package', 'string'], ['module_name', 'string'], ['function_name', 'string']],
  suix_queryEvents: [['query', 'object'], ['cursor', 'object', 'optional'], ['limit', 'number', 'optional'], ['descending_order', 'boolean', 'optional']],
  sui_dryRunTransactionBlock: [['tx_bytes', 'string']],
  sui_executeTransactionBlock: [['tx_bytes', 'string'], ['signatures', 'string[]'], ['options', 'object', 'optional'], ['request_type', 'string', 'optional']],
  sui_getTransactionBlock: [['digest', 'string'], ['options', 'object', 'optional']],
  sui_multiGetTransactionBlocks: [['digests', 'string[]'], ['options', 'object', 'optional']],
};

/** What is wrong with `params` for `spec`, in words, or undefined. */
function wrongParam(spec: ParamSpec[], params: unknown[]): string | undefined {
  for (const [index, [name, kind, optional]] of spec.entries()) {
    const value = params[index];
    if (value === undefined || value === null) {
      if (optional) continue;
      return `parameter ${index + 1} (${name}) is missing`;
    }
    const ok = kind === 'string[]' ? Array.isArray(value) && value.every((item) => typeof item === 'string')
      : kind === 'object' ? typeof value === 'object' && !Array.isArray(value)
        : typeof value === kind;
    if (!ok) return `parameter ${index + 1} (${name}) must be ${kind === 'string[]' ? 'an array of strings' : `a${kind === 'object' ? 'n' : ''} ${kind}`}, got ${JSON.stringify(value).slice(0, 60)}`;
  }
  return undefined;
}

function rpcMethods(engine: ChainEngine): Record<string, Method> {
  return {
    sui_getChainIdentifier: () => engine.genesis.chainId,
    sui_getCheckpoint: (id: string) => {
      if (String(id) !== '0') throw new RpcError(INVALID_PARAMS, `Could not find the referenced checkpoint ${id}`);
      return { epoch: String(EPOCH), sequenceNumber: '0', digest: engine.genesis.chainId, networkTotalTransactions: '0', timestampMs: String(engine.genesis.timestampMs), transactions: [], checkpointCommitments: [], validatorSignature: '' };
    },
    sui_getLatestCheckpointSequenceNumber: () => String(engine.store.checkpoint),
    sui_getProtocolConfig: () => ({ protocolVersion: String(PROTOCOL_VERSION), minSupportedProtocolVersion: '1', maxSupportedProtocolVersion: String(PROTOCOL_VERSION), featureFlags: {}, attributes: {} }),
    suix_getReferenceGasPrice: () => REFERENCE_GAS_PRICE.toString(),
    suix_getLatestSuiSystemState: async () => ({
      systemStateVersion: '2', epoch: String(engine.epoch), protocolVersion: String(PROTOCOL_VERSION), referenceGasPrice: REFERENCE_GAS_PRICE.toString(),
      epochStartTimestampMs: String(await engine.epochStartMs()), epochDurationMs: String(EPOCH_DURATION_MS), safeMode: false,
      safeModeStorageRewards: '0', safeModeComputationRewards: '0', safeModeStorageRebates: '0', safeModeNonRefundableStorageFee: '0',
      stakeSubsidyStartEpoch: '0', maxValidatorCount: '1', minValidatorJoiningStake: '0', validatorLowStakeThreshold: '0', validatorLowStakeGracePeriod: '0',
      storageFundTotalObjectStorageRebates: '0', storageFundNonRefundableBalance: '0', stakeSubsidyBalance: '0', stakeSubsidyDistributionCounter: '0',
      stakeSubsidyCurrentDistributionAmount: '0', stakeSubsidyPeriodLength: '0', stakeSubsidyDecreaseRate: 0, activeValidators: [],
    }),
    suix_getBalance: (owner: string, coinType?: string | null) => balanceView(engine, owner, coinType ?? SUI_TYPE),
    suix_getAllBalances: (owner: string) => {
      const types = new Set(engine.ownedObjects(owner).flatMap((o) => /^0x0{63}2::coin::Coin<(.+)>$/.exec(o.type)?.[1] ?? []));
      return [...types].map((coinType) => balanceView(engine, owner, coinType));
    },
    suix_getCoins: (owner: string, coinType?: string | null, cursor?: string | null, limit?: number | null) => {
      const type = normalizeStructTag(coinType ?? SUI_TYPE);
      const page = pageAfter(engine.coins(owner, type), cursor ?? null, limit ?? 50);
      return {
        data: page.items.map((coin) => ({ coinType: type, coinObjectId: coin.id, version: coin.version.toString(), digest: objectDigest(coin), balance: coinBalance(coin).toString(), previousTransaction: coin.previousTransaction })),
        nextCursor: page.cursor,
        hasNextPage: page.hasNextPage,
      };
    },
    sui_getObject: (id: string, options?: ObjectOptions) => objectResponse(engine, id, options ?? {}),
    sui_multiGetObjects: (ids: string[], options?: ObjectOptions) => ids.map((id) => objectResponse(engine, id, options ?? {})),
    suix_getOwnedObjects: (owner: string, query?: { filter?: { StructType?: string } | null; options?: ObjectOptions }, cursor?: string | null, limit?: number | null) => {
      const type = query?.filter?.StructType ? normalizeStructTag(query.filter.StructType) : null;
      const owned = engine.ownedObjects(owner).filter((object) => type === null || object.type === type);
      const page = pageAfter(owned, cursor ?? null, limit ?? 50);
      return { data: page.items.map((object) => ({ data: objectData(object, query?.options ?? {}) })), nextCursor: page.cursor, hasNextPage: page.hasNextPage };
    },
    suix_getDynamicFields: (parentId: string, cursor?: string | null, limit?: number | null) => {
      const { fields, hasNextPage } = engine.dynamicFields(parentId, cursor ?? null, limit ?? 50);
      return {
        data: fields.map((field) => {
          const [nameType, valueType] = fieldTypes(field.type);
          return {
            name: { type: nameType, value: null }, bcsEncoding: 'base64', bcsName: toBase64(dynamicFieldName(field, parentId, nameType)),
            type: 'DynamicField', objectType: valueType, objectId: field.id, version: Number(field.version), digest: objectDigest(field),
          };
        }),
        nextCursor: fields.at(-1)?.id ?? cursor ?? null,
        hasNextPage,
      };
    },
    sui_getNormalizedMoveFunction: async (packageId: string, module: string, name: string) => {
      try {
        return normalizedFunction(await engine.moveFunction(packageId, module, name));
      } catch (error) {
        if (error instanceof ChainNotFoundError) throw new RpcError(INVALID_PARAMS, `No function was found with function name ${name}`);
        throw error;
      }
    },
    suix_queryEvents: async (query: Record<string, unknown>, cursor: { txDigest: string; eventSeq: string } | null, limit: number | null, descending: boolean) => {
      if (!('MoveEventType' in query) && !('All' in query)) throw new RpcError(INVALID_PARAMS, 'the devnet answers event queries by MoveEventType only');
      const eventType = typeof query.MoveEventType === 'string' ? query.MoveEventType : null;
      const page = await engine.events({ eventType, cursor: cursor ? { txDigest: cursor.txDigest, eventSeq: Number(cursor.eventSeq) } : null, limit: limit ?? 50, descending: Boolean(descending) });
      const data = page.events.map((position) => ({
        id: { txDigest: position.txDigest, eventSeq: String(position.eventSeq) },
        packageId: position.event.packageId, transactionModule: position.event.module, sender: position.event.sender, type: position.event.type,
        parsedJson: {}, bcsEncoding: 'base64', bcs: position.event.bcs,
        timestampMs: String(position.timestampMs),
      }));
      return { data, nextCursor: data.at(-1)?.id ?? null, hasNextPage: page.hasNextPage };
    },
    sui_dryRunTransactionBlock: async (txBytes: string) => {
      const result = await engine.simulate(fromBase64(txBytes));
      const view = transactionView({ ...result.commit.tx!, signatures: [] }, { showEffects: true, showEvents: true, showObjectChanges: true, showBalanceChanges: true });
      return { effects: view.effects, events: view.events, objectChanges: view.objectChanges, balanceChanges: view.balanceChanges, input: null };
    },
    sui_executeTransactionBlock: async (txBytes: string, signatures: string[], options?: TxOptions) => {
      const record = await engine.execute(fromBase64(txBytes), signatures);
      return { ...transactionView(record, options ?? {}), confirmedLocalExecution: true };
    },
    sui_getTransactionBlock: async (digest: string, options?: TxOptions) => {
      const record = await engine.transaction(digest);
      if (!record) throw new RpcError(INVALID_PARAMS, `Could not find the referenced transaction [TransactionDigest(${digest})].`);
      return transactionView(record, options ?? {});
    },
    sui_multiGetTransactionBlocks: (digests: string[], options?: TxOptions) => Promise.all(digests.map(async (digest) => {
      const record = await engine.transaction(digest);
      if (!record) throw new RpcError(INVALID_PARAMS, `Could not find the referenced transaction [TransactionDigest(${digest})].`);
      return transactionView(record, options ?? {});
    })),
  };
}

interface ObjectOptions { showType?: boolean; showOwner?: boolean; showPreviousTransaction?: boolean; showBcs?: boolean; showContent?: boolean; showStorageRebate?: boolean; showDisplay?: boolean }
interface TxOptions { showInput?: boolean; showRawInput?: boolean; showEffects?: boolean; showRawEffects?: boolean; showEvents?: boolean; showObjectChanges?: boolean; showBalanceChanges?: boolean }

function pageAfter<T extends { id: string }>(items: T[], cursor: string | null, limit: number) {
  const start = cursor ? items.findIndex((item) => item.id > normalizeSuiAddress(cursor)) : 0;
  const page = start < 0 ? [] : items.slice(start, start + limit);
  return { items: page, hasNextPage: start >= 0 && start + limit < items.length, cursor: page.at(-1)?.id ?? null };
}

function balanceView(engine: ChainEngine, owner: string, coinType: string) {
  const coins = engine.coins(owner, coinType);
  return {
    coinType: normalizeStructTag(coinType), coinObjectCount: coins.length, totalBalance: engine.balance(owner, coinType).toString(),
    lockedBalance: {}, fundsInAddressBalance: '0',
  };
}

/** An owner in the fullnode's JSON spelling. */
function ownerJson(owner: Owner | SuiClientTypes.ObjectOwner | Record<string, unknown>): unknown {
  const value = owner as { AddressOwner?: string; ObjectOwner?: string; Shared?: { initialSharedVersion: string | number | bigint } };
  if ('AddressOwner' in value && value.AddressOwner) return { AddressOwner: value.AddressOwner };
  if ('ObjectOwner' in value && value.ObjectOwner) return { ObjectOwner: value.ObjectOwner };
  if ('Shared' in value && value.Shared) return { Shared: { initial_shared_version: Number(value.Shared.initialSharedVersion) } };
  return 'Immutable';
}

function objectData(object: ChainObject, options: ObjectOptions) {
  return {
    objectId: object.id,
    version: object.version.toString(),
    digest: objectDigest(object),
    type: options.showType ? object.type : undefined,
    owner: options.showOwner ? ownerJson(object.owner) : undefined,
    previousTransaction: options.showPreviousTransaction ? object.previousTransaction : undefined,
    storageRebate: options.showStorageRebate ? object.storageRebate.toString() : undefined,
    bcs: !options.showBcs ? undefined : object.type === PACKAGE_TYPE
      ? { dataType: 'package', id: object.id, version: Number(object.version), moduleMap: {}, typeOriginTable: [], linkageTable: {} }
      : { dataType: 'moveObject', type: object.type, hasPublicTransfer: object.hasPublicTransfer, version: Number(object.version), bcsBytes: toBase64(object.contents) },
    content: !options.showContent ? undefined : object.type === PACKAGE_TYPE
      ? { dataType: 'package', disassembled: {} }
      : { dataType: 'moveObject', type: object.type, hasPublicTransfer: object.hasPublicTransfer, fields: {} },
    display: options.showDisplay ? { data: null, error: null } : undefined,
  };
}

function objectResponse(engine: ChainEngine, id: string, options: ObjectOptions) {
  const object = engine.object(id);
  if (!object) return { error: { code: 'notExists', object_id: normalizeSuiAddress(id) } };
  return { data: objectData(object, options) };
}

const NORMALIZED_PRIMITIVES: Record<string, string> = { u8: 'U8', u16: 'U16', u32: 'U32', u64: 'U64', u128: 'U128', u256: 'U256', bool: 'Bool', address: 'Address', signer: 'Signer' };

function normalizedType(text: string, typeParams: string[]): unknown {
  if (text.startsWith('&mut ')) return { MutableReference: normalizedType(text.slice(5), typeParams) };
  if (text.startsWith('&')) return { Reference: normalizedType(text.slice(1), typeParams) };
  if (typeParams.includes(text)) return { TypeParameter: typeParams.indexOf(text) };
  if (NORMALIZED_PRIMITIVES[text]) return NORMALIZED_PRIMITIVES[text];
  const vector = /^vector<(.+)>$/.exec(text);
  if (vector) return { Vector: normalizedType(vector[1], typeParams) };
  const generic = /^([^<]+)(?:<(.+)>)?$/.exec(text)!;
  const [address, module, name] = generic[1].split('::');
  return { Struct: { address: normalizeSuiAddress(address), module, name, typeArguments: generic[2] ? splitTypeArgs(generic[2]).map((t) => normalizedType(t, typeParams)) : [] } };
}

function normalizedFunction(fn: MoveFunction) {
  const typeParams = fn.typeParameters.map((_, index) => `T${index}`);
  const visibility = { public: 'Public', private: 'Private', friend: 'Friend' }[fn.visibility];
  return {
    visibility,
    isEntry: fn.isEntry,
    typeParameters: fn.typeParameters.map((p) => ({ abilities: p.constraints.map((c) => c[0].toUpperCase() + c.slice(1)) })),
    parameters: fn.parameters.map((p) => normalizedType(p, typeParams)),
    return: fn.returns.map((p) => normalizedType(p, typeParams)),
  };
}

type EffectsView = ReturnType<typeof parseTransactionEffectsBcs>;

type MoveLocation = { module: { address: string; name: string }; function: number; instruction: number; functionName: string | null };

/** A `MoveLocation` as the fullnode's Rust Debug output prints it. */
function moveLocationText(location: MoveLocation): string {
  const address = normalizeSuiAddress(location.module.address).slice(2);
  return `MoveLocation { module: ModuleId { address: ${address}, name: Identifier("${location.module.name}") }, function: ${location.function}, instruction: ${location.instruction}, function_name: Some("${location.functionName}") }`;
}

/** The status string and abort details as a fullnode prints them from `ExecutionFailureStatus`. */
function statusJson(effectsBcs: Uint8Array): { status: unknown; abortError?: unknown } {
  const parsed = bcs.TransactionEffects.parse(effectsBcs).V2!;
  if (parsed.status.$kind === 'Success') return { status: { status: 'success' } };
  const { error, command } = parsed.status.Failure;
  const suffix = command !== null ? ` in command ${command}` : '';
  if (error.$kind === 'MoveAbort') {
    const [location, code] = error.MoveAbort;
    const address = normalizeSuiAddress(location.module.address).slice(2);
    const text = `MoveAbort(${moveLocationText(location)}, ${code})${suffix}`;
    return {
      status: { status: 'failure', error: text },
      abortError: { module_id: `0x${address}::${location.module.name}`, function: location.functionName, error_code: Number(code) },
    };
  }
  if (error.$kind === 'MovePrimitiveRuntimeError' && error.MovePrimitiveRuntimeError) {
    return { status: { status: 'failure', error: `MovePrimitiveRuntimeError(MoveLocationOpt(Some(${moveLocationText(error.MovePrimitiveRuntimeError)})))${suffix}` } };
  }
  const detail = (error as Record<string, unknown>)[error.$kind];
  const describe = detail === true || detail === null ? '' : ` ${JSON.stringify(detail, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)).replace(/"\$kind":"\w+",?/g, '')}`;
  return { status: { status: 'failure', error: `${error.$kind}${describe}${suffix}` } };
}

function transactionView(record: TxRecord, options: TxOptions) {
  const effectsBcs = fromStoredBase64(record.effects);
  const effects = parseTransactionEffectsBcs(effectsBcs);
  const sender = normalizeSuiAddress(bcs.TransactionData.parse(fromStoredBase64(record.txBytes)).V1!.sender);
  return {
    digest: record.digest,
    rawTransaction: options.showRawInput ? toBase64(bcs.SenderSignedData.serialize([{
      intentMessage: { intent: { scope: { TransactionData: true }, version: { V0: true }, appId: { Sui: true } }, value: bcs.TransactionData.parse(fromStoredBase64(record.txBytes)) },
      txSignatures: record.signatures,
    }]).toBytes()) : undefined,
    effects: options.showEffects ? effectsJson(effects, effectsBcs) : undefined,
    rawEffects: options.showRawEffects ? [...effectsBcs] : undefined,
    events: options.showEvents ? record.events.map((event, eventSeq) => ({
      id: { txDigest: record.digest, eventSeq: String(eventSeq) }, packageId: event.packageId, transactionModule: event.module, sender: event.sender,
      type: event.type, parsedJson: {}, bcsEncoding: 'base64', bcs: event.bcs, timestampMs: String(record.timestampMs),
    })) : undefined,
    objectChanges: options.showObjectChanges ? objectChanges(effects, record, sender) : undefined,
    balanceChanges: options.showBalanceChanges ? record.balanceChanges.map((change) => ({ owner: { AddressOwner: change.address }, coinType: change.coinType, amount: change.amount })) : undefined,
    timestampMs: String(record.timestampMs),
    checkpoint: String(record.checkpoint),
  };
}

function effectsJson(effects: EffectsView, effectsBcs: Uint8Array) {
  const ref = (change: EffectsView['changedObjects'][number]) => ({ objectId: change.objectId, version: Number(change.outputVersion), digest: change.outputDigest });
  const written = (idOperation: string) => effects.changedObjects.filter((c) => c.outputState === 'ObjectWrite' && c.idOperation === idOperation).map((c) => ({ owner: ownerJson(c.outputOwner!), reference: ref(c) }));
  const gas = effects.gasObject;
  return {
    messageVersion: 'v1',
    ...statusJson(effectsBcs),
    executedEpoch: String(executedEpoch(effectsBcs)),
    gasUsed: effects.gasUsed,
    modifiedAtVersions: effects.changedObjects.filter((c) => c.inputState === 'Exists').map((c) => ({ objectId: c.objectId, sequenceNumber: c.inputVersion })),
    sharedObjects: [
      ...effects.changedObjects.filter((c) => c.inputOwner && '$kind' in c.inputOwner && c.inputOwner.$kind === 'Shared').map((c) => ({ objectId: c.objectId, version: Number(c.inputVersion), digest: c.inputDigest })),
      ...effects.unchangedConsensusObjects.map((o) => ({ objectId: o.objectId, version: Number(o.version), digest: o.digest })),
    ],
    transactionDigest: effects.transactionDigest,
    created: written('Created'),
    mutated: written('None'),
    deleted: effects.changedObjects.filter((c) => c.idOperation === 'Deleted').map((c) => ({ objectId: c.objectId, version: Number(effects.lamportVersion), digest: DELETED_DIGEST })),
    gasObject: gas
      ? { owner: ownerJson(gas.outputOwner!), reference: ref(gas) }
      : { owner: { AddressOwner: normalizeSuiAddress('0x0') }, reference: { objectId: normalizeSuiAddress('0x0'), version: 0, digest: '11111111111111111111111111111111' } },
    eventsDigest: effects.eventsDigest ?? undefined,
    dependencies: effects.dependencies,
  };
}

function objectChanges(effects: EffectsView, record: TxRecord, sender: string) {
  return effects.changedObjects.map((change) => {
    const objectType = record.objectTypes[change.objectId];
    if (change.idOperation === 'Created') {
      return { type: 'created', sender, owner: ownerJson(change.outputOwner!), objectType, objectId: change.objectId, version: change.outputVersion, digest: change.outputDigest };
    }
    if (change.idOperation === 'Deleted') return { type: 'deleted', sender, objectType, objectId: change.objectId, version: effects.lamportVersion };
    return { type: 'mutated', sender, owner: ownerJson(change.outputOwner!), objectType, objectId: change.objectId, version: change.outputVersion, previousVersion: change.inputVersion, digest: change.outputDigest };
  });
}
