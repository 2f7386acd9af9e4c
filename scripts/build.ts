/**
 * `npm run build` (npm ci runs it through `prepare`): bundles the executables' entries with esbuild into dist/main/,
 * which bin/run-node runs while the build is current (docs/architecture.md, "How the executables start").
 *
 * One bundle instead of ~150 separately resolved ES modules: a helper's start spends a sixth of its time resolving
 * and linking modules, and tree-shaking drops what a start never runs (@mysten/sui's zkLogin, poseidon's constants).
 * Each dynamic import() stays a split point, so what the sources load lazily still loads lazily.
 * One esbuild run per executable (the warm encoder's daemon among them, and one for the blob-id worker, a thread of
 * its own): a shared run also splits chunks along what the executables share, and a helper's `list` loaded 54 files
 * instead of 43. Each executable is built twice: the first build maps its modules, and the second is told what every
 * lazy import finds loaded (already-loaded.ts), which brings a `list` from 43 files to 13 (each file a resolve, a
 * read and a link).
 *
 * Layout: every output file lies in dist/main/, two levels below the package root as src/<dir>/*.ts are, so the
 * paths the sources compute from import.meta.url hold in the bundle too: the blob-id worker is the sibling of the
 * code that starts it (an entry of its own here), and so is the warm encoder's entry; package.json and src/web/static
 * are `../../`.
 */
import { build } from 'esbuild';
import type { BuildOptions } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { alreadyLoaded, alreadyLoadedPlugin, graphOf } from './already-loaded.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

const executables: [entry: string, chunkPrefix: string][] = [
  ['src/main/remote-helper.ts', 'helper'],
  ['src/main/cli.ts', 'cli'],
  ['src/walrus-protocol/blob-id-worker.ts', 'worker'],
  ['src/main/encoder-daemon.ts', 'daemon'],
];
for (const [entry, chunkPrefix] of executables) {
  const options: BuildOptions = {
    absWorkingDir: root,
    entryPoints: [entry],
    outdir: 'dist/main',
    entryNames: '[name]',
    chunkNames: `${chunkPrefix}-[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    // ES module builds over CommonJS ones where a package without an `exports` map ships both: they tree-shake.
    mainFields: ['module', 'main'],
    // Loaded from their own directories at run time: the WebAssembly next to the encoder's module, the Kubernetes
    // client's many files (only the controller loads it).
    external: ['@mysten/walrus-wasm', '@kubernetes/client-node'],
    // yargs measures its help text with string-width, which it imports in every command (src/cli/string-width.ts says why).
    alias: { 'string-width': './src/cli/string-width.ts' },
    // CommonJS dependencies require Node's built-in modules; in an ES module bundle `require` has to be made.
    banner: { js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);" },
    // Stack traces name src/ lines under NODE_OPTIONS=--enable-source-maps; without it the maps cost nothing.
    sourcemap: 'linked',
    logLevel: 'warning',
  };
  // The first build only maps the modules; the second tells esbuild what each lazy import finds loaded
  // (scripts/already-loaded.ts), so that what always loads together is one chunk.
  const { metafile } = await build({ ...options, metafile: true, write: false, logLevel: 'error' });
  const { graph, defaultExports, awaitsAtTop } = graphOf(metafile, root);
  await build({ ...options, plugins: [alreadyLoadedPlugin(root, alreadyLoaded(graph, entry, awaitsAtTop), defaultExports)] });
}

// Node's own start-up snapshot under bin/run-node's V8 flag (run-node says why), made by run-node with the project's
// Node, the only one it uses the snapshot with. Without it the tools still run, only their start is slower.
if (existsSync(join(root, 'node_modules', '.bin', 'node'))) {
  const made = spawnSync(join(root, 'bin', 'run-node'), [], { env: { ...process.env, RUN_NODE_BUILD_SNAPSHOT: join(root, 'dist', 'node.blob') }, stdio: 'inherit' });
  if (made.status !== 0) console.warn(`build: no start-up snapshot (bin/run-node exited ${made.status ?? made.signal}); the tools start without it`);
}
