import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const cacheModule = fileURLToPath(new URL('../../src/main/compile-cache.ts', import.meta.url));
const someModule = fileURLToPath(new URL('../../src/core/object-id.ts', import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`../../bin/${name}`, import.meta.url));

/** Every file under `dir` (none when it does not exist). */
function filesUnder(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)) : [];
}

/** A fresh Node process that enables the cache as the helper's entry does, loads a module and reports the cache. */
function run(env: NodeJS.ProcessEnv): string {
  const script = `
    const { enableModuleCompileCache } = await import(${JSON.stringify(cacheModule)});
    enableModuleCompileCache(process.env);
    await import(${JSON.stringify(someModule)});
    const { getCompileCacheDir, flushCompileCache } = await import('node:module');
    flushCompileCache();
    console.log(getCompileCacheDir() ?? 'none');`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  assert.is(result.status, 0, result.stderr);
  return result.stdout.trim();
}

const cache = suite('module compile cache');

cache('lives in the user\'s cache directory and fills as modules load; NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE win', () => {
  const home = mkdtempSync(join(tmpdir(), 'compile-cache-'));
  try {
    const dir = run({ HOME: home });
    assert.ok(dir.startsWith(join(home, '.cache', 'git-remote-walrus', 'node-compile-cache')), dir);
    assert.ok(readdirSync(dir).length > 0, 'cache entries written');
    const xdg = join(home, 'xdg');
    assert.ok(run({ HOME: home, XDG_CACHE_HOME: xdg }).startsWith(join(xdg, 'git-remote-walrus')));
    const chosen = join(home, 'chosen');
    assert.ok(run({ HOME: home, NODE_COMPILE_CACHE: chosen }).startsWith(chosen));
    const off = join(home, 'off');
    assert.is(run({ HOME: off, NODE_DISABLE_COMPILE_CACHE: '1' }), 'none');
    assert.not.ok(existsSync(join(off, '.cache')));
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

cache('both executables start through it: `git walrus` and git-remote-walrus each fill the cache as they load', () => {
  // The helper answers `capabilities` first and then loads and opens the network (here the embedded one, in HOME).
  const helperArgs = ['origin', `walrus://0x${'1'.repeat(64)}`];
  for (const [name, args, input] of [['git-walrus', ['--help'], ''], ['git-remote-walrus', helperArgs, 'capabilities\n\n']] as const) {
    const home = mkdtempSync(join(tmpdir(), 'compile-cache-'));
    try {
      const result = spawnSync(bin(name), [...args], { env: { PATH: process.env.PATH, HOME: home }, encoding: 'utf8', input });
      assert.is(result.status, 0, result.stderr);
      const entries = filesUnder(join(home, '.cache', 'git-remote-walrus', 'node-compile-cache'));
      // The entry and the start-up module load before the cache is on, so whatever is cached loaded after it: the
      // process's own code, a few hundred KB of it (from the sources or the bundle's chunks; `--help` loads yargs and
      // the command table, ~270 KB), cached in over 50 KB.
      const bytes = entries.reduce((sum, path) => sum + statSync(path).size, 0);
      assert.ok(entries.length > 0 && bytes > 50_000, `${name}: ${entries.length} cache entries, ${bytes} bytes`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }
});

cache.run();
