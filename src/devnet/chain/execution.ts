/** What every step of a transaction's execution shares: the request, the result, the failure, the inputs' slots. */
import { bcs } from '@mysten/sui/bcs';
import type { MovePackage, MoveValue } from './packages.ts';
import type { ObjectSource } from './working-set.ts';
import type { CommitRecord, StoredEvent } from './store.ts';

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
export class ExecutionFailure extends Error {
  readonly status: Record<string, unknown>;
  command: number | null = null;
  constructor(status: Record<string, unknown>, message: string) {
    super(message);
    this.status = status;
  }
}

export const argumentError = (argIdx: number, kind: string) => new ExecutionFailure({ CommandArgumentError: { argIdx, kind: { [kind]: true } } }, `CommandArgumentError { arg_idx: ${argIdx}, kind: ${kind} }`);

export type Slot =
  | { kind: 'pure'; bytes: Uint8Array }
  | { kind: 'object'; id: string; mutable: boolean; shared: boolean }
  | { kind: 'value'; value: MoveValue; moved: boolean };

export type Programmable = NonNullable<ReturnType<typeof bcs.TransactionData.parse>['V1']['kind']['ProgrammableTransaction']>;
export type Input = Programmable['inputs'][number];

export type Command = Programmable['commands'][number];
export type Argument = Command extends { MoveCall?: infer M } ? NonNullable<M> extends { arguments: (infer A)[] } ? A : never : never;
