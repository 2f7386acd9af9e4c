import { bcs } from '@mysten/sui/bcs';
import { CoinContents, MOVE_STDLIB, SUI_FRAMEWORK } from './objects.ts';
import { optionInner } from './move-types.ts';
import type { MoveFunctionSignature } from '../../contract/function-abi.ts';

/**
 * What the engine executes: Move packages described function by function (visibility, signature, and a `run` in
 * TypeScript). Our own package comes from the contract's model (src/contract/abi.ts); the framework packages carry
 * the few functions a transaction of ours calls.
 */

/** A value handed to or returned by a Move function: its type and BCS. Object arguments also carry their id. */
export interface MoveValue { type: string; bcs: Uint8Array }

export interface MoveArg extends MoveValue {
  reference: 'mutable' | 'immutable' | null;
  /** Set for object arguments; a function taking `&mut` writes the new contents back into `bcs`. */
  objectId: string | null;
}

/** Table entries, kept as `0x2::dynamic_field::Field<K, V>` objects owned by the table's UID, exactly as on Sui. */
export interface TableStore {
  get(table: string, keyType: string, key: Uint8Array): Uint8Array | null;
  add(table: string, keyType: string, key: Uint8Array, valueType: string, value: Uint8Array): void;
  set(table: string, keyType: string, key: Uint8Array, valueType: string, value: Uint8Array): void;
  remove(table: string, keyType: string, key: Uint8Array): Uint8Array;
}

export interface CallContext {
  sender: string;
  txDigest: string;
  epoch: number;
  /** A fresh object id (derived from the transaction digest and a creation counter, as Sui does). */
  newId(): string;
  /** Emits an event; `type` is the full struct tag. */
  emit(type: string, bcs: Uint8Array): void;
  /** Shares a new object with the given full type and contents. */
  share(type: string, contents: Uint8Array): void;
  /** Sends a new object (full type, contents) to an address (`transfer::public_transfer`). */
  transfer(type: string, contents: Uint8Array, recipient: string): void;
  tables: TableStore;
}

/** A function the engine can call: its signature (parameters like `&mut 0x…::repository::Repository`) and its code. */
export interface MoveFunction extends MoveFunctionSignature {
  run(ctx: CallContext, args: MoveArg[], typeArguments: string[]): MoveValue[];
}

export interface MovePackage {
  id: string;
  /** module → function name → function */
  modules: Map<string, Map<string, MoveFunction>>;
  /** Struct types the package defines, as `0x…::module::Name` (used to check type arguments). */
  structs: Set<string>;
}

/** A Move abort: the transaction fails with `MoveAbort(location, code)`. */
export class MoveAbortFailure extends Error {
  readonly packageId: string;
  readonly module: string;
  readonly functionName: string;
  readonly functionIndex: number;
  readonly code: bigint;
  constructor(packageId: string, module: string, functionName: string, functionIndex: number, code: bigint) {
    super(`MoveAbort in ${packageId}::${module}::${functionName} with code ${code}`);
    this.packageId = packageId;
    this.module = module;
    this.functionName = functionName;
    this.functionIndex = functionIndex;
    this.code = code;
  }
}

/** `sui::dynamic_field` abort codes. */
export const DYNAMIC_FIELD = { module: 'dynamic_field', EFieldAlreadyExists: 0n, EFieldDoesNotExist: 1n, EFieldTypeMismatch: 2n } as const;

function optionFunction(name: 'some' | 'none', index: number): MoveFunction {
  return {
    module: 'option', name, index, visibility: 'public', isEntry: false,
    typeParameters: [{ constraints: [] }],
    parameters: name === 'some' ? ['T0'] : [],
    returns: ['0x1::option::Option<T0>'],
    run: (_ctx, args, [typeArgument]) => {
      const type = `0x1::option::Option<${typeArgument}>`;
      if (name === 'none') return [{ type, bcs: bcs.u8().serialize(0).toBytes() }];
      return [{ type, bcs: new Uint8Array([1, ...args[0].bcs]) }];
    },
  };
}

/** `coin::destroy_zero`: consumes an empty coin; one holding anything aborts in `balance::destroy_zero` (ENonZero). */
const destroyZero: MoveFunction = {
  module: 'coin', name: 'destroy_zero', index: 14, visibility: 'public', isEntry: false,
  typeParameters: [{ constraints: [] }],
  parameters: [`${SUI_FRAMEWORK}::coin::Coin<T0>`],
  returns: [],
  run: (_ctx, [coin]) => {
    if (BigInt(CoinContents.parse(coin.bcs).balance) !== 0n) throw new MoveAbortFailure(SUI_FRAMEWORK, 'balance', 'destroy_zero', 6, 0n);
    return [];
  },
};

/** The slice of the Move standard library and Sui framework the devnet knows: `option::{none, some}`, `coin::destroy_zero`. */
export function frameworkPackages(): MovePackage[] {
  const stdlib: MovePackage = {
    id: MOVE_STDLIB,
    modules: new Map([['option', new Map([['none', optionFunction('none', 1)], ['some', optionFunction('some', 2)]])], ['string', new Map()], ['ascii', new Map()]]),
    structs: new Set([`${MOVE_STDLIB}::option::Option`, `${MOVE_STDLIB}::string::String`, `${MOVE_STDLIB}::ascii::String`]),
  };
  const framework: MovePackage = {
    id: SUI_FRAMEWORK,
    modules: new Map([...['clock', 'sui', 'object', 'table', 'dynamic_field', 'tx_context', 'transfer', 'event'].map((name): [string, Map<string, MoveFunction>] => [name, new Map()]), ['coin', new Map([['destroy_zero', destroyZero]])]]),
    structs: new Set(['clock::Clock', 'coin::Coin', 'sui::SUI', 'object::ID', 'object::UID', 'table::Table', 'dynamic_field::Field', 'tx_context::TxContext'].map((name) => `${SUI_FRAMEWORK}::${name}`)),
  };
  return [stdlib, framework];
}

/** Whether a struct type (with its type arguments) is defined by one of the known packages. */
export function typeExists(type: string, packages: Map<string, MovePackage>): boolean {
  const inner = optionInner(type);
  if (inner !== null) return typeExists(inner, packages);
  const match = /^(0x[0-9a-f]{64})::(\w+)::(\w+)/.exec(type);
  if (!match) return true;
  return packages.get(match[1])?.structs.has(`${match[1]}::${match[2]}::${match[3]}`) ?? false;
}
