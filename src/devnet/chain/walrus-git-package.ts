import { contractFunctions, contractStructs, initPackage, CONTRACT_MODULES } from '../../contract/abi.ts';
import { type CallResult, type MoveFunctionAbi } from '../../contract/function-abi.ts';
import { initMarket } from '../../contract/market-abi.ts';
import { marketObjectLayouts } from '../../contract/market-bcs.ts';
import { MoveAbort } from '../../contract/abort-codes.ts';
import { layoutOf, objectLayouts, Clock, CLOCK_TYPE } from '../../contract/bcs.ts';
import type { AnyLayout } from '../../contract/bcs.ts';
import type { MoveContext } from '../../contract/context.ts';
import { MoveAbortFailure, type CallContext, type MoveFunction, type MovePackage, type MoveValue } from './packages.ts';
import { normalizeType } from './move-types.ts';

/**
 * Our Move package as the engine runs it: the contract's TypeScript twin (src/contract/abi.ts), with arguments
 * decoded from and results encoded to BCS by the contract's own layouts, and its aborts turned into Move aborts at
 * the function's location in our package.
 */
export function walrusGitPackage(packageId: string): MovePackage {
  const functions = contractFunctions(packageId);
  const modules = new Map<string, Map<string, MoveFunction>>(CONTRACT_MODULES.map((name) => [name, new Map()]));
  const indexOf = (module: string, name: string) => functions.find((f) => f.module === module && f.name === name)?.index ?? 0;
  for (const abi of functions) modules.get(abi.module)!.set(abi.name, toMoveFunction(packageId, abi, indexOf));
  return { id: packageId, modules, structs: new Set(contractStructs(packageId).map(normalizeType)) };
}

/** Runs the package's `init` at publication, sharing what it creates (the Registry). */
export function initWalrusGitPackage(packageId: string, ctx: CallContext): void {
  shareAll(ctx, runModel(packageId, () => initPackage(moveContext(packageId, ctx)), () => 0));
}

/** Runs the `market` module's `init` (the Market shared, the AdminCap sent to `ctx.sender`); returns their ids. */
export function initMarketModule(packageId: string, ctx: CallContext): { marketId: string; adminCapId: string } {
  const result = runModel(packageId, () => initMarket(moveContext(packageId, ctx)), () => 0) as ReturnType<typeof initMarket>;
  shareAll(ctx, result);
  return { marketId: result.marketId, adminCapId: result.adminCapId };
}

function toMoveFunction(packageId: string, abi: MoveFunctionAbi, indexOf: (module: string, name: string) => number): MoveFunction {
  const layouts = new Map([...objectLayouts(packageId), ...marketObjectLayouts(packageId)]);
  const layout = (type: string, isObject: boolean): AnyLayout => {
    const found = isObject ? (normalizeType(type) === normalizeType(CLOCK_TYPE) ? Clock : layouts.get(type)) : layoutOf(packageId, type);
    if (!found) throw new Error(`no BCS layout for ${type}`);
    return found;
  };
  const explicit = abi.parameters.filter((parameter) => !/^&(mut )?0x2::tx_context::TxContext$/.test(parameter));
  return {
    ...abi,
    // The engine's call: BCS in, the model's run, BCS out.
    run(ctx, args) {
      const values = args.map((arg, i) => layout(explicit[i].replace(/^&(mut )?/, ''), arg.objectId !== null).parse(arg.bcs));
      const result = runModel(packageId, () => abi.run(moveContext(packageId, ctx), values), indexOf);
      args.forEach((arg, i) => {
        if (arg.objectId !== null && arg.reference === 'mutable') arg.bcs = layout(explicit[i].replace(/^&mut /, ''), true).serialize(values[i]).toBytes();
      });
      shareAll(ctx, result);
      return result.returns.map((value, i): MoveValue => ({ type: normalizeType(abi.returns[i]), bcs: layout(abi.returns[i], false).serialize(value).toBytes() }));
    },
  };
}

function moveContext(packageId: string, ctx: CallContext): MoveContext {
  return {
    sender: ctx.sender,
    packageId,
    newId: () => ctx.newId(),
    emit: (type, bcs) => ctx.emit(`${packageId}::${type}`, bcs),
    tables: ctx.tables,
    transfer: (type, bcs, recipient) => ctx.transfer(type.startsWith('0x') ? type : `${packageId}::${type}`, bcs, recipient),
  };
}

function runModel(packageId: string, call: () => CallResult, indexOf: (module: string, name: string) => number): CallResult {
  try {
    return call();
  } catch (error) {
    if (error instanceof MoveAbort) {
      throw new MoveAbortFailure(packageId, error.module, error.functionName, indexOf(error.module, error.functionName), BigInt(error.abortCode));
    }
    throw error;
  }
}

function shareAll(ctx: CallContext, result: CallResult): void {
  for (const object of result.shared) ctx.share(object.type, object.bcs);
}
