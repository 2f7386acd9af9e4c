import { GrpcTypes } from '@mysten/sui/grpc';
import type { TransactionData } from '@mysten/sui/transactions';
import { fromBase64, toBase64 } from '@mysten/sui/utils';

/**
 * Transactions between the gRPC API's structured `sui.rpc.v2.Transaction` and the SDK's transaction data (the shape
 * `Transaction.from` restores and `getData()` returns), both ways: requests arrive structured and possibly unresolved
 * (an input without a kind is an object the server must look up), and resolved transactions go back structured.
 * Only programmable transactions exist here, as on the API.
 */

type Grpc = GrpcTypes.Transaction;
type Argument = TransactionData['commands'][number]['MoveCall'] extends infer M ? M extends { arguments: (infer A)[] } ? A : never : never;
type CallArg = TransactionData['inputs'][number];
type Command = TransactionData['commands'][number];

const { Input_InputKind: InputKind, Argument_ArgumentKind: ArgumentKind, TransactionExpiration_TransactionExpirationKind: ExpirationKind } = GrpcTypes;

export class GrpcTransactionError extends Error {}

/** The SDK's (V2) transaction data for a structured gRPC transaction; kind-less inputs become `UnresolvedObject`s. */
export function transactionFromGrpc(tx: Grpc): TransactionData {
  const data = tx.kind?.data;
  if (data?.oneofKind !== 'programmableTransaction') throw new GrpcTransactionError('only programmable transactions are supported');
  const { inputs, commands } = data.programmableTransaction;
  const gas = tx.gasPayment;
  return {
    version: 2,
    sender: tx.sender ?? null,
    expiration: expirationFromGrpc(tx.expiration),
    gasData: {
      owner: gas?.owner ?? null,
      price: gas?.price?.toString() ?? null,
      budget: gas?.budget?.toString() ?? null,
      payment: gas?.objects.length ? gas.objects.map((ref) => ({ objectId: ref.objectId!, version: ref.version!.toString(), digest: ref.digest! })) : null,
    },
    inputs: inputs.map(inputFromGrpc),
    commands: commands.map(commandFromGrpc),
  } as TransactionData;
}

/** The structured gRPC form of resolved transaction data (and its BCS, when complete). */
export function transactionToGrpc(data: TransactionData, bcs?: Uint8Array, digest?: string): Grpc {
  return {
    bcs: bcs ? { name: 'TransactionData', value: bcs } : undefined,
    digest,
    version: 1,
    kind: { data: { oneofKind: 'programmableTransaction', programmableTransaction: { inputs: data.inputs.map(inputToGrpc), commands: data.commands.map(commandToGrpc) } } },
    sender: data.sender ?? undefined,
    gasPayment: {
      objects: (data.gasData.payment ?? []).map((ref) => ({ objectId: ref.objectId, version: BigInt(ref.version), digest: ref.digest })),
      owner: data.gasData.owner ?? data.sender ?? undefined,
      price: data.gasData.price != null ? BigInt(data.gasData.price) : undefined,
      budget: data.gasData.budget != null ? BigInt(data.gasData.budget) : undefined,
    },
    expiration: expirationToGrpc(data.expiration),
  };
}

function inputFromGrpc(input: GrpcTypes.Input, index: number): CallArg {
  switch (input.kind) {
    case InputKind.PURE:
      return { $kind: 'Pure', Pure: { bytes: toBase64(input.pure ?? new Uint8Array()) } } as CallArg;
    case InputKind.IMMUTABLE_OR_OWNED:
      return { $kind: 'Object', Object: { $kind: 'ImmOrOwnedObject', ImmOrOwnedObject: objectRef(input, index) } } as CallArg;
    case InputKind.RECEIVING:
      return { $kind: 'Object', Object: { $kind: 'Receiving', Receiving: objectRef(input, index) } } as CallArg;
    case InputKind.SHARED:
      return {
        $kind: 'Object',
        Object: { $kind: 'SharedObject', SharedObject: { objectId: required(input.objectId, index), initialSharedVersion: required(input.version, index).toString(), mutable: input.mutable ?? false } },
      } as CallArg;
    case undefined:
    case InputKind.INPUT_KIND_UNKNOWN:
      // An object the server resolves; a version is only binding together with its digest (a full reference).
      return {
        $kind: 'UnresolvedObject',
        UnresolvedObject: {
          objectId: required(input.objectId, index),
          ...(input.digest && input.version != null ? { version: input.version.toString(), digest: input.digest } : {}),
          ...(input.mutable != null ? { mutable: input.mutable } : {}),
        },
      } as CallArg;
    default:
      throw new GrpcTransactionError(`input ${index}: kind ${InputKind[input.kind] ?? input.kind} is not supported by the devnet`);
  }
}

function objectRef(input: GrpcTypes.Input, index: number) {
  return { objectId: required(input.objectId, index), version: required(input.version, index).toString(), digest: required(input.digest, index) };
}

function required<T>(value: T | undefined, index: number): T {
  if (value === undefined) throw new GrpcTransactionError(`input ${index} is incomplete`);
  return value;
}

function inputToGrpc(arg: CallArg): GrpcTypes.Input {
  if (arg.Pure) return { kind: InputKind.PURE, pure: fromBase64(arg.Pure.bytes) };
  const object = arg.Object;
  if (object?.ImmOrOwnedObject) return { kind: InputKind.IMMUTABLE_OR_OWNED, objectId: object.ImmOrOwnedObject.objectId, version: BigInt(object.ImmOrOwnedObject.version), digest: object.ImmOrOwnedObject.digest };
  if (object?.Receiving) return { kind: InputKind.RECEIVING, objectId: object.Receiving.objectId, version: BigInt(object.Receiving.version), digest: object.Receiving.digest };
  if (object?.SharedObject) return { kind: InputKind.SHARED, objectId: object.SharedObject.objectId, version: BigInt(object.SharedObject.initialSharedVersion), mutable: object.SharedObject.mutable };
  throw new GrpcTransactionError(`input ${JSON.stringify(arg)} is not resolved`);
}

function argumentFromGrpc(arg: GrpcTypes.Argument | undefined): Argument {
  switch (arg?.kind) {
    case ArgumentKind.GAS: return { $kind: 'GasCoin', GasCoin: true } as Argument;
    case ArgumentKind.INPUT: return { $kind: 'Input', Input: arg.input ?? 0 } as Argument;
    case ArgumentKind.RESULT:
      return (arg.subresult != null ? { $kind: 'NestedResult', NestedResult: [arg.result ?? 0, arg.subresult] } : { $kind: 'Result', Result: arg.result ?? 0 }) as Argument;
    default: throw new GrpcTransactionError(`argument ${JSON.stringify(arg)} has no kind`);
  }
}

function argumentToGrpc(arg: Argument): GrpcTypes.Argument {
  if (arg.$kind === 'GasCoin') return { kind: ArgumentKind.GAS };
  if (arg.$kind === 'Input') return { kind: ArgumentKind.INPUT, input: arg.Input };
  if (arg.$kind === 'Result') return { kind: ArgumentKind.RESULT, result: arg.Result };
  if (arg.$kind === 'NestedResult') return { kind: ArgumentKind.RESULT, result: arg.NestedResult[0], subresult: arg.NestedResult[1] };
  throw new GrpcTransactionError(`argument ${JSON.stringify(arg)} cannot be sent`);
}

function commandFromGrpc({ command }: GrpcTypes.Command): Command {
  switch (command.oneofKind) {
    case 'moveCall': {
      const call = command.moveCall;
      return { $kind: 'MoveCall', MoveCall: { package: call.package!, module: call.module!, function: call.function!, typeArguments: call.typeArguments, arguments: call.arguments.map(argumentFromGrpc) } } as Command;
    }
    case 'transferObjects':
      return { $kind: 'TransferObjects', TransferObjects: { objects: command.transferObjects.objects.map(argumentFromGrpc), address: argumentFromGrpc(command.transferObjects.address) } } as Command;
    case 'splitCoins':
      return { $kind: 'SplitCoins', SplitCoins: { coin: argumentFromGrpc(command.splitCoins.coin), amounts: command.splitCoins.amounts.map(argumentFromGrpc) } } as Command;
    case 'mergeCoins':
      return { $kind: 'MergeCoins', MergeCoins: { destination: argumentFromGrpc(command.mergeCoins.coin), sources: command.mergeCoins.coinsToMerge.map(argumentFromGrpc) } } as Command;
    case 'makeMoveVector':
      return { $kind: 'MakeMoveVec', MakeMoveVec: { type: command.makeMoveVector.elementType ?? null, elements: command.makeMoveVector.elements.map(argumentFromGrpc) } } as Command;
    case 'publish':
      return { $kind: 'Publish', Publish: { modules: command.publish.modules.map((m) => toBase64(m)), dependencies: command.publish.dependencies } } as Command;
    case 'upgrade': {
      const upgrade = command.upgrade;
      return { $kind: 'Upgrade', Upgrade: { modules: upgrade.modules.map((m) => toBase64(m)), dependencies: upgrade.dependencies, package: upgrade.package!, ticket: argumentFromGrpc(upgrade.ticket) } } as Command;
    }
    default: throw new GrpcTransactionError('a command has no kind');
  }
}

function commandToGrpc(command: Command): GrpcTypes.Command {
  if (command.MoveCall) {
    const call = command.MoveCall;
    return { command: { oneofKind: 'moveCall', moveCall: { package: call.package, module: call.module, function: call.function, typeArguments: call.typeArguments, arguments: call.arguments.map(argumentToGrpc) } } };
  }
  if (command.TransferObjects) return { command: { oneofKind: 'transferObjects', transferObjects: { objects: command.TransferObjects.objects.map(argumentToGrpc), address: argumentToGrpc(command.TransferObjects.address) } } };
  if (command.SplitCoins) return { command: { oneofKind: 'splitCoins', splitCoins: { coin: argumentToGrpc(command.SplitCoins.coin), amounts: command.SplitCoins.amounts.map(argumentToGrpc) } } };
  if (command.MergeCoins) return { command: { oneofKind: 'mergeCoins', mergeCoins: { coin: argumentToGrpc(command.MergeCoins.destination), coinsToMerge: command.MergeCoins.sources.map(argumentToGrpc) } } };
  if (command.MakeMoveVec) return { command: { oneofKind: 'makeMoveVector', makeMoveVector: { elementType: command.MakeMoveVec.type ?? undefined, elements: command.MakeMoveVec.elements.map(argumentToGrpc) } } };
  if (command.Publish) return { command: { oneofKind: 'publish', publish: { modules: command.Publish.modules.map((m) => fromBase64(m)), dependencies: command.Publish.dependencies } } };
  if (command.Upgrade) {
    const upgrade = command.Upgrade;
    return { command: { oneofKind: 'upgrade', upgrade: { modules: upgrade.modules.map((m) => fromBase64(m)), dependencies: upgrade.dependencies, package: upgrade.package, ticket: argumentToGrpc(upgrade.ticket) } } };
  }
  throw new GrpcTransactionError(`command ${command.$kind} cannot be sent`);
}

function expirationFromGrpc(expiration: GrpcTypes.TransactionExpiration | undefined): TransactionData['expiration'] {
  if (!expiration) return null;
  if (expiration.kind === ExpirationKind.EPOCH) return { $kind: 'Epoch', Epoch: expiration.epoch!.toString() } as TransactionData['expiration'];
  if (expiration.kind === ExpirationKind.NONE) return { $kind: 'None', None: true } as TransactionData['expiration'];
  if (expiration.kind === ExpirationKind.VALID_DURING) {
    // The API carries the window's max_epoch in `epoch` and its timestamps as google.protobuf.Timestamp; the
    // transaction data holds milliseconds. Whether the window is acceptable is the executor's check, as for BCS.
    if (expiration.chain === undefined) throw new GrpcTransactionError('ValidDuring expiration without a chain');
    if (expiration.nonce === undefined) throw new GrpcTransactionError('ValidDuring expiration without a nonce');
    return {
      $kind: 'ValidDuring',
      ValidDuring: {
        minEpoch: expiration.minEpoch?.toString() ?? null,
        maxEpoch: expiration.epoch?.toString() ?? null,
        minTimestamp: expiration.minTimestamp ? timestampMs(expiration.minTimestamp) : null,
        maxTimestamp: expiration.maxTimestamp ? timestampMs(expiration.maxTimestamp) : null,
        chain: expiration.chain,
        nonce: expiration.nonce,
      },
    } as TransactionData['expiration'];
  }
  throw new GrpcTransactionError(`expiration kind ${ExpirationKind[expiration.kind ?? 0]} is not supported by the devnet`);
}

function expirationToGrpc(expiration: TransactionData['expiration']): GrpcTypes.TransactionExpiration | undefined {
  if (!expiration) return undefined;
  if (expiration.$kind === 'Epoch') return { kind: ExpirationKind.EPOCH, epoch: BigInt(expiration.Epoch) };
  if (expiration.$kind === 'None') return { kind: ExpirationKind.NONE };
  if (expiration.$kind === 'ValidDuring') {
    const window = expiration.ValidDuring;
    return {
      kind: ExpirationKind.VALID_DURING,
      minEpoch: window.minEpoch != null ? BigInt(window.minEpoch) : undefined,
      epoch: window.maxEpoch != null ? BigInt(window.maxEpoch) : undefined,
      minTimestamp: window.minTimestamp != null ? grpcTimestamp(window.minTimestamp) : undefined,
      maxTimestamp: window.maxTimestamp != null ? grpcTimestamp(window.maxTimestamp) : undefined,
      chain: window.chain,
      nonce: window.nonce,
    };
  }
  throw new GrpcTransactionError(`expiration ${expiration.$kind} cannot be sent`);
}

function timestampMs(timestamp: { seconds: bigint; nanos: number }): string {
  return (timestamp.seconds * 1000n + BigInt(Math.floor(timestamp.nanos / 1e6))).toString();
}

function grpcTimestamp(ms: string | number): { seconds: bigint; nanos: number } {
  const value = BigInt(ms);
  return { seconds: value / 1000n, nanos: Number(value % 1000n) * 1e6 };
}
