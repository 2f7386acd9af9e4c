import { SimulationError, type SuiClientTypes } from '@mysten/sui/client';
import { GrpcTypes } from '@mysten/sui/grpc';
import { Transaction } from '@mysten/sui/transactions';
import { normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { ChainEngine } from './engine.ts';
import { DevnetCoreClient, dryRunBytes, systemState } from './core-client.ts';
import { ChainNotFoundError, TransactionRejectedError } from './errors.ts';
import { epochCommittee, getCheckpoint } from './grpc-checkpoints.ts';
import { GrpcTransactionError, transactionFromGrpc } from './grpc-transaction.ts';
import { messageOf } from '../../core/errors.ts';
import { Code, GrpcStatusError, type Mask, mask, objectInclude, objectProto, balanceProto, pageCursor, nextPageToken, eventFilter, stored, timestamp, executedTransaction, systemStateProto, signatureProto, type Message } from './grpc-messages.ts';

/**
 * The Sui gRPC API (`sui.rpc.v2`) over the chain engine: the methods `SuiGrpcClient` calls, each taking and returning
 * the SDK's own protobuf message objects. Reads go through the in-process CoreClient (the one mapping from engine to
 * API shapes), then into the protobuf shapes. Transaction resolution happens here, as on a fullnode: inputs given by
 * id only, the gas price, the budget (by dry run) and the gas coins (`do_gas_selection`).
 */

/** A unary method returns one message; a server-streaming one returns its frames. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each method reads its own request message type
export type GrpcMethod = (request: any) => Promise<Message | Message[]>;

const {
  FunctionDescriptor_Visibility: Visibility, Ability, DynamicField_DynamicFieldKind: FieldKind, QueryEndReason, Ordering, SimulateTransactionRequest_TransactionChecks: Checks,
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
      epoch: engine.epoch,
      checkpointHeight: BigInt(engine.store.checkpoint),
      timestamp: timestamp(Date.now()),
      lowestAvailableCheckpoint: 0n,
      lowestAvailableCheckpointObjects: 0n,
      server: 'git-walrus devnet',
    }),
    'sui.rpc.v2.LedgerService/GetCheckpoint': (request: GrpcTypes.GetCheckpointRequest) => getCheckpoint(engine, request),
    'sui.rpc.v2.LedgerService/GetObject': async (request: GrpcTypes.GetObjectRequest) => {
      const [found] = await objects([request], mask(request.readMask));
      if (found.result.oneofKind === 'error') throw new GrpcStatusError(Code.NOT_FOUND, found.result.error!.message);
      return { object: found.result.object };
    },
    'sui.rpc.v2.LedgerService/BatchGetObjects': async (request: GrpcTypes.BatchGetObjectsRequest) => ({ objects: await objects(request.requests, mask(request.readMask)) }),
    'sui.rpc.v2.LedgerService/GetTransaction': async (request: GrpcTypes.GetTransactionRequest) => ({ transaction: executedTransaction(await stored(engine, request.digest ?? ''), mask(request.readMask)) }),
    'sui.rpc.v2.LedgerService/BatchGetTransactions': async (request: GrpcTypes.BatchGetTransactionsRequest) => ({
      transactions: await Promise.all(request.digests.map(async (digest) => {
        const record = await engine.transaction(digest);
        return record
          ? { result: { oneofKind: 'transaction', transaction: executedTransaction(record, mask(request.readMask)) } }
          : { result: { oneofKind: 'error', error: { code: Code.NOT_FOUND, message: `Transaction ${digest} not found`, details: [] } } };
      })),
    }),
    'sui.rpc.v2.LedgerService/GetEpoch': async (request: GrpcTypes.GetEpochRequest) => {
      await engine.refresh();
      const epoch = request.epoch ?? engine.epoch;
      const certified = epochCommittee(engine, epoch);
      // A past epoch is answered as it was: its system state as it began, and when it ended.
      const [state, end, { protocolConfig }] = await Promise.all([systemState(engine, epoch), engine.epochEndMs(epoch), core.getProtocolConfig()]);
      return {
        epoch: {
          ...certified,
          start: timestamp(Number(state.epochStartTimestampMs)),
          end: end === null ? undefined : timestamp(end),
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

/** The status a fullnode answers for an error thrown while serving a call. */
export function statusOf(error: unknown): GrpcStatusError {
  if (error instanceof GrpcStatusError) return error;
  if (error instanceof ChainNotFoundError) return new GrpcStatusError(Code.NOT_FOUND, error.message);
  if (error instanceof TransactionRejectedError || error instanceof GrpcTransactionError) return new GrpcStatusError(Code.INVALID_ARGUMENT, error.message);
  return new GrpcStatusError(Code.INTERNAL, messageOf(error));
}
