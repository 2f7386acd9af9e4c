import { enableModuleCompileCache } from './compile-cache.ts';
import { mark } from './marks.ts';

/**
 * The one start-up path of this package's executables: bin/git-remote-walrus (remote-helper.ts, started by git for
 * every fetch and push) and bin/git-walrus (cli.ts). It turns on the module compile cache and only then loads the
 * process's modules, so that they load from it: an entry imports nothing else statically, since whatever it imported
 * would be compiled before the cache is on.
 */
export async function startProcess(load: () => Promise<unknown>): Promise<void> {
  // When Node reached our code: what comes before is Node's own start, the same for any script.
  mark('entry');
  enableModuleCompileCache(process.env);
  await load();
}
