import type { CallResult, MoveFunctionAbi } from './function-abi.ts';
import type { MoveContext } from './context.ts';

/**
 * Declares the public functions of one module of the twin in their Move declaration order. `init` is declared first
 * in each of our modules and is not callable, so the first function declared here gets index 1.
 */
export function functionDeclarer(module: string) {
  let index = 0;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each function decodes its own Move arguments: their types are its parameters
  return (name: string, parameters: string[], returns: string[], run: (ctx: MoveContext, a: any[]) => CallResult): MoveFunctionAbi => ({
    module,
    name,
    index: ++index,
    visibility: 'public',
    isEntry: false,
    typeParameters: [],
    parameters,
    returns,
    run,
  });
}
