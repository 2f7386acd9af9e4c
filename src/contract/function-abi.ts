/** The shape of a callable function of the package: its signature as a fullnode reports it, and its run on the twin. */
import type { MoveContext } from './context.ts';

/** An object a call created and shared (`transfer::share_object`). */
export interface NewSharedObject {
  id: string;
  type: string;
  /** BCS of the object's contents. */
  bcs: Uint8Array;
}

export interface CallResult {
  /** Return values, decoded like arguments, in declaration order. */
  returns: unknown[];
  shared: NewSharedObject[];
}

/** What a fullnode reports about a Move function (`getNormalizedMoveFunction`), for this package and the devnet's. */
export interface MoveFunctionSignature {
  module: string;
  name: string;
  /** Position in the module's function table (declaration order in the .move file; `init` is 0). */
  index: number;
  visibility: 'public' | 'private' | 'friend';
  isEntry: boolean;
  typeParameters: { constraints: string[] }[];
  /** Parameter types, including a trailing `&TxContext`/`&mut TxContext` when the Move function takes one. */
  parameters: string[];
  returns: string[];
}

/** A function of our package (none is generic) with its model. */
export interface MoveFunctionAbi extends MoveFunctionSignature {
  /** Executes the call on the model; `args` omits the TxContext. Throws MoveAbort on an abort. */
  run(ctx: MoveContext, args: unknown[]): CallResult;
}
