import { CoreClient, ObjectError, TransactionError, parseTransactionEffectsBcs, extractStatusFromEffectsBcs, parseTransactionBcs } from '@mysten/sui/client';
import type { SuiClientTypes } from '@mysten/sui/client';
import type { Transaction } from '@mysten/sui/transactions';
import { normalizeSuiAddress, normalizeStructTag, deriveDynamicFieldID } from '@mysten/sui/utils';
import { BcsReader } from '@mysten/bcs';
import { TypeTagSerializer } from '@mysten/sui/bcs';
import { ChainEngine, SUI_TYPE } from './engine.ts';
import { executedEpoch } from './effects.ts';
import { coinBalance, objectDigest, objectEnvelope, type ChainObject } from './objects.ts';
import { REFERENCE_GAS_PRICE, PROTOCOL_VERSION, EPOCH_DURATION_MS } from './limits.ts';
import type { TxRecord } from './store.ts';
import type { MoveFunction } from './packages.ts';
import { pureSchema } from './move-types.ts';
import { splitTypeArgs } from '../../contract/bcs.ts';
import { fromStoredBase64 } from './stored-base64.ts';

/* eslint-disable @typescript-eslint/no-empty-object-type -- the CoreClient methods' signatures as @mysten/sui declares them ({} = nothing extra included) */

/**
 * The in-process front: a `CoreClient` over the chain engine, so product code talks to the embedded devnet through
 * the same `client.core` API it uses against a fullnode (signing, building and resolving transactions is the SDK's
 * own code). Reads catch up with the shared state directory first, so several processes see each other's commits.
 */
export class DevnetCoreClient extends CoreClient {
  readonly engine: ChainEngine;

  constructor(engine: ChainEngine, network = 'local') {
    super({ network, base: undefined as never });
    this.engine = engine;
  }

  async getObjects<Include extends SuiClientTypes.ObjectInclude = {}>(options: SuiClientTypes.GetObjectsOptions<Include>): Promise<SuiClientTypes.GetObjectsResponse<Include>> {
    await this.engine.refresh();
    return {
      objects: options.objectIds.map((id) => {
        const object = this.engine.object(id);
        if (!object) return new ObjectError('notExists', `Object ${normalizeSuiAddress(id)} does not exist`, { reason: 'notFound', objectId: id });
        return objectView(object, options.include) as SuiClientTypes.Object<Include>;
      }),
    };
  }

  async listOwnedObjects<Include extends SuiClientTypes.ObjectInclude = {}>(options: SuiClientTypes.ListOwnedObjectsOptions<Include>): Promise<SuiClientTypes.ListOwnedObjectsResponse<Include>> {
    await this.engine.refresh();
    const all = this.engine.ownedObjects(options.owner).filter((object) => !options.type || object.type === normalizeStructTag(options.type) || object.type.startsWith(`${normalizeStructTag(options.type)}<`));
    const page = pageAfter(all, options.cursor ?? null, options.limit ?? 50);
    return { objects: page.items.map((object) => objectView(object, options.include) as SuiClientTypes.Object<Include>), hasNextPage: page.hasNextPage, cursor: page.cursor };
  }

  async listCoins(options: SuiClientTypes.ListCoinsOptions): Promise<SuiClientTypes.ListCoinsResponse> {
    await this.engine.refresh();
    const page = pageAfter(this.engine.coins(options.owner, options.coinType ?? SUI_TYPE), options.cursor ?? null, options.limit ?? 50);
    return {
      objects: page.items.map((coin) => ({ ...objectView(coin, {}), balance: coinBalance(coin).toString() })) as SuiClientTypes.Coin[],
      hasNextPage: page.hasNextPage,
      cursor: page.cursor,
    };
  }

  async getBalance(options: SuiClientTypes.GetBalanceOptions): Promise<SuiClientTypes.GetBalanceResponse> {
    await this.engine.refresh();
    const coinType = normalizeStructTag(options.coinType ?? SUI_TYPE);
    const balance = this.engine.balance(options.owner, coinType).toString();
    return { balance: { coinType, balance, coinBalance: balance, addressBalance: '0' } };
  }

  async listBalances(options: SuiClientTypes.ListBalancesOptions): Promise<SuiClientTypes.ListBalancesResponse> {
    await this.engine.refresh();
    const types = new Set(this.engine.ownedObjects(options.owner).flatMap((o) => /^0x0{63}2::coin::Coin<(.+)>$/.exec(o.type)?.[1] ?? []));
    const balances = [...types].map((coinType) => {
      const balance = this.engine.balance(options.owner, coinType).toString();
      return { coinType, balance, coinBalance: balance, addressBalance: '0' };
    });
    return { balances, hasNextPage: false, cursor: null };
  }

  async getCoinMetadata(options: SuiClientTypes.GetCoinMetadataOptions): Promise<SuiClientTypes.GetCoinMetadataResponse> {
    if (normalizeStructTag(options.coinType) !== normalizeStructTag(SUI_TYPE)) return { coinMetadata: null };
    return { coinMetadata: { id: null, decimals: 9, name: 'Sui', symbol: 'SUI', description: '', iconUrl: null } };
  }

  async getTransaction<Include extends SuiClientTypes.TransactionInclude = {}>(options: SuiClientTypes.GetTransactionOptions<Include>): Promise<SuiClientTypes.TransactionResult<Include>> {
    await this.engine.refresh();
    const record = await this.engine.transaction(options.digest);
    if (!record) throw new TransactionError('notFound', options.digest);
    return transactionResult(record, options.include);
  }

  async executeTransaction<Include extends SuiClientTypes.TransactionInclude = {}>(options: SuiClientTypes.ExecuteTransactionOptions<Include>): Promise<SuiClientTypes.TransactionResult<Include>> {
    const record = await this.engine.execute(options.transaction, options.signatures);
    return transactionResult(record, options.include);
  }

  async simulateTransaction<Include extends SuiClientTypes.SimulateTransactionInclude = {}>(options: SuiClientTypes.SimulateTransactionOptions<Include>): Promise<SuiClientTypes.SimulateTransactionResult<Include>> {
    const bytes = options.transaction instanceof Uint8Array ? options.transaction : await dryRunBytes(options.transaction, this);
    const result = await this.engine.simulate(bytes);
    const view = transactionResult({ ...result.commit.tx!, signatures: [] }, options.include);
    const commandResults = options.include?.commandResults
      ? result.commandResults.map((values) => ({ returnValues: values.map((value) => ({ bcs: value.bcs })), mutatedReferences: [] }))
      : undefined;
    return { ...view, commandResults } as SuiClientTypes.SimulateTransactionResult<Include>;
  }

  async getReferenceGasPrice(): Promise<SuiClientTypes.GetReferenceGasPriceResponse> {
    return { referenceGasPrice: REFERENCE_GAS_PRICE.toString() };
  }

  async getCurrentSystemState(): Promise<SuiClientTypes.GetCurrentSystemStateResponse> {
    await this.engine.refresh();
    return { systemState: await systemState(this.engine) };
  }

  async getProtocolConfig(): Promise<SuiClientTypes.GetProtocolConfigResponse> {
    return { protocolConfig: { protocolVersion: String(PROTOCOL_VERSION), featureFlags: {}, attributes: {} } };
  }

  async getChainIdentifier(): Promise<SuiClientTypes.GetChainIdentifierResponse> {
    return { chainIdentifier: this.engine.genesis.chainId };
  }

  async listDynamicFields(options: SuiClientTypes.ListDynamicFieldsOptions): Promise<SuiClientTypes.ListDynamicFieldsResponse> {
    await this.engine.refresh();
    const { fields, hasNextPage } = this.engine.dynamicFields(options.parentId, options.cursor ?? null, options.limit ?? 50);
    return {
      dynamicFields: fields.map((field) => {
        const [nameType, valueType] = fieldTypes(field.type);
        const name = { type: nameType, bcs: dynamicFieldName(field, options.parentId, nameType) };
        return { $kind: 'DynamicField' as const, fieldId: field.id, type: field.type, name, valueType };
      }),
      hasNextPage,
      cursor: fields.length ? fields[fields.length - 1].id : options.cursor ?? null,
    };
  }

  async listTransactions<Include extends SuiClientTypes.TransactionInclude = {}>(options: SuiClientTypes.ListTransactionsOptions<Include>): Promise<SuiClientTypes.ListTransactionsResponse<Include>> {
    await this.engine.refresh();
    const all = [...this.engine.store.transactions.values()];
    const start = options.after ? all.findIndex((tx) => tx.digest === options.after) + 1 : 0;
    const limit = options.limit ?? 50;
    const page = await this.engine.store.read(all.slice(start, start + limit));
    return {
      transactions: page.map((record) => transactionResult(record, options.include)),
      hasNextPage: start + limit < all.length,
      startCursor: page[0]?.digest ?? null,
      endCursor: page.at(-1)?.digest ?? null,
    } as SuiClientTypes.ListTransactionsResponse<Include>;
  }

  async listEvents(options: SuiClientTypes.ListEventsOptions): Promise<SuiClientTypes.ListEventsResponse> {
    await this.engine.refresh();
    const filter = options.filter as { eventType?: string } | undefined;
    if (filter && !filter.eventType) throw new Error('the devnet lists events by Move event type only (filter.eventType)');
    const descending = options.before != null || options.order === 'descending';
    const cursorText = options.after ?? options.before ?? null;
    const cursor = cursorText ? parseEventCursor(cursorText) : null;
    const { events, hasNextPage } = await this.engine.events({ eventType: filter?.eventType ?? null, cursor, limit: options.limit ?? 50, descending });
    const entries = events.map((position) => ({
      packageId: position.event.packageId,
      module: position.event.module,
      sender: position.event.sender,
      eventType: position.event.type,
      bcs: fromStoredBase64(position.event.bcs),
      json: null,
      checkpoint: String(position.checkpoint),
      transactionDigest: position.txDigest,
      eventIndex: position.eventSeq,
    }));
    const cursorOf = (index: number) => JSON.stringify({ txDigest: events[index].txDigest, eventSeq: String(events[index].eventSeq) });
    return { events: entries, hasNextPage, startCursor: events.length ? cursorOf(0) : null, endCursor: events.length ? cursorOf(events.length - 1) : null };
  }

  resolveTransactionPlugin() {
    return coreResolver();
  }

  async verifyZkLoginSignature(): Promise<SuiClientTypes.ZkLoginVerifyResponse> {
    return { success: false, errors: ['zkLogin is not supported by the devnet'] };
  }

  async getMoveFunction(options: SuiClientTypes.GetMoveFunctionOptions): Promise<SuiClientTypes.GetMoveFunctionResponse> {
    const fn = await this.engine.moveFunction(options.packageId, options.moduleName, options.name);
    return { function: moveFunctionView(normalizeSuiAddress(options.packageId), fn) };
  }

  async defaultNameServiceName(): Promise<SuiClientTypes.DefaultNameServiceNameResponse> {
    return { data: { name: null } };
  }

  async resolveNameServiceAddress(): Promise<SuiClientTypes.ResolveNameServiceAddressResponse> {
    return { address: null };
  }
}

/**
 * The bytes a fullnode dry-runs for a transaction whose caller left parts open: inputs resolved through `client`, and
 * what gas data is missing filled in with a budget that cannot run out and no payment (a dry run charges nothing).
 */
export async function dryRunBytes(transaction: Transaction, client: DevnetCoreClient): Promise<Uint8Array> {
  await transaction.build({ client, onlyTransactionKind: true });
  const { TransactionDataBuilder } = await import('@mysten/sui/transactions');
  const data = TransactionDataBuilder.restore(transaction.getData());
  return data.build({ overrides: { gasData: { budget: data.gasData.budget ?? String(DRY_RUN_BUDGET), price: data.gasData.price ?? String(REFERENCE_GAS_PRICE), payment: data.gasData.payment ?? [] } } });
}

/** Sui's maximum transaction budget in MIST (`max_tx_gas`), what dry runs allow. */
const DRY_RUN_BUDGET = 50_000_000_000n;

let resolver: Promise<ReturnType<CoreClient['resolveTransactionPlugin']>> | null = null;

/**
 * The SDK's generic resolver for CoreClient transports (gas price, budget by simulation, coin selection, object
 * references). It is only reachable through a transport that uses it; it calls back into the client passed to
 * `build`, never into that transport (whose URL is a placeholder that nothing dials).
 */
function coreResolver(): ReturnType<CoreClient['resolveTransactionPlugin']> {
  // Loaded at the first transaction built against the devnet: a process that only reads never needs it.
  resolver ??= import('@mysten/sui/jsonRpc').then(({ SuiJsonRpcClient }) => new SuiJsonRpcClient({ url: 'http://127.0.0.1:9', network: 'local' }).core.resolveTransactionPlugin());
  return async (data, options, next) => (await resolver!)(data, options, next);
}

function pageAfter<T extends { id: string }>(items: T[], cursor: string | null, limit: number) {
  const start = cursor ? items.findIndex((item) => item.id > cursor) : 0;
  const page = start < 0 ? [] : items.slice(start, start + limit);
  return { items: page, hasNextPage: start >= 0 && start + limit < items.length, cursor: page.at(-1)?.id ?? cursor };
}

export function objectView(object: ChainObject, include: SuiClientTypes.ObjectInclude = {}) {
  return {
    objectId: object.id,
    version: object.version.toString(),
    // Computed when read: hashing the object's envelope is most of a read's cost, and reads of content rarely look.
    get digest() {
      return objectDigest(object);
    },
    owner: object.owner,
    type: object.type,
    content: include.content ? object.contents : undefined,
    previousTransaction: include.previousTransaction ? object.previousTransaction : undefined,
    objectBcs: include.objectBcs ? objectEnvelope(object) : undefined,
    json: include.json ? null : undefined,
    display: include.display ? null : undefined,
  };
}

/** `[K, V]` of a `0x2::dynamic_field::Field<K, V>` type. */
export function fieldTypes(type: string): [string, string] {
  const tag = TypeTagSerializer.parseFromStr(type, true);
  if (!('struct' in tag) || tag.struct.typeParams.length !== 2) throw new Error(`not a dynamic field type: ${type}`);
  return [TypeTagSerializer.tagToString(tag.struct.typeParams[0]).replace(/, /g, ','), TypeTagSerializer.tagToString(tag.struct.typeParams[1]).replace(/, /g, ',')];
}

/**
 * The BCS of a field's name, which follows the UID (the value follows the name). A name of a pure type (a string, an
 * integer, an address: every table key of our package) is read by its BCS layout, which gives its length, as a
 * fullnode reads it by the type's layout; any other is found as the prefix whose derived id matches the field.
 */
export function dynamicFieldName(field: ChainObject, parentId: string, nameType: string): Uint8Array {
  const schema = pureSchema(nameType);
  if (schema !== null) {
    const rest = field.contents.subarray(32);
    return field.contents.slice(32, 32 + schema.serialize(schema.read(new BcsReader(rest))).toBytes().length);
  }
  const tag = TypeTagSerializer.parseFromStr(nameType, true);
  for (let end = 33; end <= field.contents.length; end++) {
    const name = field.contents.slice(32, end);
    if (deriveDynamicFieldID(parentId, tag, name) === field.id) return name;
  }
  throw new Error(`dynamic field ${field.id} does not belong to ${parentId}`);
}

export function transactionResult<Include extends SuiClientTypes.TransactionInclude>(record: TxRecord, include?: Include): SuiClientTypes.TransactionResult<Include> {
  const effectsBytes = fromStoredBase64(record.effects);
  const txBytes = fromStoredBase64(record.txBytes);
  const status = extractStatusFromEffectsBcs(effectsBytes);
  const transaction = {
    digest: record.digest,
    signatures: record.signatures,
    epoch: String(executedEpoch(effectsBytes)),
    timestampMs: record.timestampMs,
    checkpoint: String(record.checkpoint),
    status,
    effects: include?.effects ? parseTransactionEffectsBcs(effectsBytes) : undefined,
    events: include?.events
      ? record.events.map((event) => ({ packageId: event.packageId, module: event.module, sender: event.sender, eventType: event.type, bcs: fromStoredBase64(event.bcs), json: null }))
      : undefined,
    objectTypes: include?.objectTypes ? record.objectTypes : undefined,
    transaction: include?.transaction ? parseTransactionBcs(txBytes) : undefined,
    bcs: include?.bcs ? txBytes : undefined,
    balanceChanges: include?.balanceChanges ? record.balanceChanges : undefined,
  } as unknown as SuiClientTypes.Transaction<Include>;
  return (status.success ? { $kind: 'Transaction', Transaction: transaction } : { $kind: 'FailedTransaction', FailedTransaction: transaction }) as SuiClientTypes.TransactionResult<Include>;
}

/** Sui's system state as `epoch` began (the current epoch's by default): what `GetEpoch` answers for a past epoch. */
export async function systemState(engine: ChainEngine, epoch: bigint = engine.epoch): Promise<SuiClientTypes.SystemStateInfo> {
  return {
    systemStateVersion: '2', epoch: String(epoch), protocolVersion: String(PROTOCOL_VERSION), referenceGasPrice: REFERENCE_GAS_PRICE.toString(),
    epochStartTimestampMs: String(await engine.epochStartMs(epoch)), safeMode: false, safeModeStorageRewards: '0', safeModeComputationRewards: '0',
    safeModeStorageRebates: '0', safeModeNonRefundableStorageFee: '0',
    parameters: { epochDurationMs: String(EPOCH_DURATION_MS), stakeSubsidyStartEpoch: '0', maxValidatorCount: '1', minValidatorJoiningStake: '0', validatorLowStakeThreshold: '0', validatorLowStakeGracePeriod: '0' },
    storageFund: { totalObjectStorageRebates: '0', nonRefundableBalance: '0' },
    stakeSubsidy: { balance: '0', distributionCounter: '0', currentDistributionAmount: '0', stakeSubsidyPeriodLength: '0', stakeSubsidyDecreaseRate: 0 },
  };
}

function parseEventCursor(text: string): { txDigest: string; eventSeq: number } {
  const parsed = JSON.parse(text) as { txDigest: string; eventSeq: string };
  return { txDigest: parsed.txDigest, eventSeq: Number(parsed.eventSeq) };
}

/** A function's signature in the core API's shape. */
export function moveFunctionView(packageId: string, fn: MoveFunction): SuiClientTypes.FunctionResponse {
  const typeParams = fn.typeParameters.map((_, index) => `T${index}`);
  return {
    packageId,
    moduleName: fn.module,
    name: fn.name,
    visibility: fn.visibility,
    isEntry: fn.isEntry,
    typeParameters: fn.typeParameters.map((p) => ({ isPhantom: false, constraints: p.constraints as SuiClientTypes.Ability[] })),
    parameters: fn.parameters.map((text) => openSignature(text, typeParams)),
    returns: fn.returns.map((text) => openSignature(text, typeParams)),
  };
}

function openSignature(text: string, typeParams: string[]): SuiClientTypes.OpenSignature {
  const reference = text.startsWith('&mut ') ? 'mutable' : text.startsWith('&') ? 'immutable' : null;
  return { reference, body: openBody(text.replace(/^&(mut )?/, '').trim(), typeParams) };
}

function openBody(text: string, typeParams: string[]): SuiClientTypes.OpenSignatureBody {
  const parameter = typeParams.indexOf(text);
  if (parameter >= 0) return { $kind: 'typeParameter', index: parameter };
  if (/^(u8|u16|u32|u64|u128|u256|bool|address)$/.test(text)) return { $kind: text as 'u8' };
  const vector = /^vector<(.+)>$/.exec(text);
  if (vector) return { $kind: 'vector', vector: openBody(vector[1], typeParams) };
  const generic = /^([^<]+)(?:<(.+)>)?$/.exec(text)!;
  const [address, module, name] = generic[1].split('::');
  return {
    $kind: 'datatype',
    datatype: { typeName: `${normalizeSuiAddress(address)}::${module}::${name}`, typeParameters: generic[2] ? splitTypeArgs(generic[2]).map((t) => openBody(t, typeParams)) : [] },
  };
}
