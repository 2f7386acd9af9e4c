import { enableCompileCache } from 'node:module';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * Turns on Node's module compile cache (V8 code cache on disk) for this process; call it before the entry loads its
 * modules. git starts a helper process for every fetch and push, and each loads ~55 chunks of the bundle (~0.5 MB of
 * JavaScript; ~150 modules, ~1 MB, from the sources): with the cache, a start after the first skips compiling them.
 * It lives in the user's cache directory ($XDG_CACHE_HOME, else ~/.cache), unless NODE_COMPILE_CACHE names another
 * (Node has then enabled it already) or NODE_DISABLE_COMPILE_CACHE=1 turns it off. Entries are checked against each
 * module's source, so an edit or an upgrade never runs stale code, and a cache that cannot be written only costs the
 * compile it would have saved.
 */
export function enableModuleCompileCache(env: NodeJS.ProcessEnv): void {
  if (env.NODE_COMPILE_CACHE) return;
  const cacheHome = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  enableCompileCache(join(cacheHome, 'git-remote-walrus', 'node-compile-cache'));
}
