/**
 * The policy check of a key request (`check_policy` in MystenLabs/seal `crates/key-server/src/server.rs`): the
 * request's PTB dry-run on the chain with the certificate's user as sender, no gas payment, the reference gas price
 * and the server's budget. The devnet skips the staleness check the real server prepends (its chain is never stale).
 */
import { bcs } from '@mysten/sui/bcs';
import type { ChainEngine } from '../chain/engine.ts';
import { TransactionRejectedError } from '../chain/errors.ts';
import { REFERENCE_GAS_PRICE } from '../chain/limits.ts';
import { failure, invalidParameter } from './errors.ts';

/** Gas budget of the policy's dry run (`GAS_BUDGET` in server.rs). */
export const POLICY_GAS_BUDGET = 500_000_000n;

export type Ptb = ReturnType<typeof bcs.ProgrammableTransaction.parse>;

/** The outcome of the policy's dry run: approved, or the execution error's kind and description. */
export type PolicyOutcome = { approved: true } | { approved: false; kind: string; description: string };

/** Dry-runs the policy PTB as the real server does: sender = the certificate's user, no gas payment, the reference price. */
export async function dryRun(engine: ChainEngine, ptb: Ptb, sender: string): Promise<PolicyOutcome> {
  const txBytes = bcs.TransactionData.serialize({
    V1: {
      kind: { ProgrammableTransaction: ptb },
      sender,
      gasData: { payment: [], owner: sender, price: REFERENCE_GAS_PRICE, budget: POLICY_GAS_BUDGET },
      expiration: { None: true },
    },
  }).toBytes();
  let result;
  try {
    result = await engine.simulate(txBytes);
  } catch (error) {
    // A fullnode refuses these as InvalidArgument or NotFound, which the real server reports as InvalidParameter.
    if (error instanceof TransactionRejectedError) throw invalidParameter(error.message);
    throw failure();
  }
  if (result.success) return { approved: true };
  const status = bcs.TransactionEffects.parse(result.effects).V2!.status;
  const { error, command } = status.Failure!;
  return { approved: false, kind: error.$kind, description: describeFailure(error, command) };
}

type ExecutionError = NonNullable<NonNullable<ReturnType<typeof bcs.TransactionEffects.parse>['V2']>['status']['Failure']>['error'];

/** The execution error as Sui's `ExecutionError` describes it (what the real server puts after "Access denied: "). */
function describeFailure(error: ExecutionError, command: string | number | null): string {
  const where = command === null ? '' : ` in command ${command}`;
  if (error.$kind === 'MoveAbort') {
    const [location, code] = error.MoveAbort;
    const fn = location.functionName === null ? 'None' : `Some("${location.functionName}")`;
    return `MoveAbort(MoveLocation { module: ModuleId { address: ${location.module.address.replace(/^0x/, '')}, name: Identifier("${location.module.name}") }, function: ${location.function}, instruction: ${location.instruction}, function_name: ${fn} }, ${code})${where}`;
  }
  return `${error.$kind}${where}`;
}

