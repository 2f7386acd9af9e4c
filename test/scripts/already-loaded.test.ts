import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { BuildOptions, Metafile } from 'esbuild';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { alreadyLoaded, alreadyLoadedPlugin, awaitsAtTopLevel, graphOf } from '../../scripts/already-loaded.ts';
import type { ModuleGraph } from '../../scripts/already-loaded.ts';

/** A graph from `module: [static imports, lazy imports]`. */
const graphFrom = (modules: Record<string, [string[], string[]?]>): ModuleGraph => Object.fromEntries(Object.entries(modules).map(([path, [statics, lazies = []]]) => [path, {
  imports: [...statics.map((p) => ({ path: p, kind: 'import-statement' })), ...lazies.map((p) => ({ path: p, kind: 'dynamic-import' }))],
}]));
const never = () => false;

const analysis = suite('alreadyLoaded');

analysis('a lazy module finds its importer\'s entry and everything that entry imports loaded', () => {
  const graph = graphFrom({
    'src/entry.ts': [['src/start.ts'], ['src/core.ts']],
    'src/start.ts': [[]],
    'src/core.ts': [['src/ledger.ts', 'node_modules/sdk/index.mjs'], ['src/push.ts']],
    'src/ledger.ts': [['node_modules/sdk/index.mjs']],
    'src/push.ts': [['src/ledger.ts', 'src/pack.ts']],
    'src/pack.ts': [[]],
    'node_modules/sdk/index.mjs': [[]],
  });
  const loaded = alreadyLoaded(graph, 'src/entry.ts', never);
  assert.equal(loaded.get('src/core.ts'), ['src/entry.ts', 'src/start.ts']);
  // What core loaded, and what loaded before core; never a dependency (node_modules), never push itself.
  assert.equal(loaded.get('src/push.ts'), ['src/core.ts', 'src/entry.ts', 'src/ledger.ts', 'src/start.ts']);
});

analysis('a module imported lazily from two places finds only what both have loaded', () => {
  const graph = graphFrom({
    'src/entry.ts': [['src/shared.ts'], ['src/a.ts', 'src/b.ts']],
    'src/shared.ts': [[]],
    'src/a.ts': [['src/only-a.ts'], ['src/late.ts']],
    'src/only-a.ts': [[]],
    'src/b.ts': [['src/only-b.ts'], ['src/late.ts']],
    'src/only-b.ts': [[]],
    'src/late.ts': [[]],
  });
  assert.equal(alreadyLoaded(graph, 'src/entry.ts', never).get('src/late.ts'), ['src/entry.ts', 'src/shared.ts']);
});

analysis('a module that awaits at its top level, or imports one that does, is never added', () => {
  const graph = graphFrom({
    'src/entry.ts': [['src/marks.ts'], ['src/process.ts']],
    'src/marks.ts': [[]],
    'src/process.ts': [['src/session.ts', 'src/waits-for-config.ts'], ['src/core.ts']],
    'src/session.ts': [[]],
    'src/waits-for-config.ts': [['src/config.ts']],
    'src/config.ts': [[]],
    'src/core.ts': [[]],
  });
  const awaits = new Set(['src/entry.ts', 'src/process.ts', 'src/config.ts']);
  assert.equal(alreadyLoaded(graph, 'src/entry.ts', (path) => awaits.has(path)).get('src/core.ts'), ['src/marks.ts', 'src/session.ts']);
});

analysis('a lazy module gets nothing where all that is loaded before it awaits at its top level', () => {
  const graph = graphFrom({ 'src/entry.ts': [[], ['src/process.ts']], 'src/process.ts': [[]] });
  assert.is(alreadyLoaded(graph, 'src/entry.ts', (path) => path === 'src/entry.ts').has('src/process.ts'), false);
});

analysis.run();

const topLevel = suite('awaitsAtTopLevel');

topLevel('finds an await and a for-await at the top level, in any statement', () => {
  assert.ok(awaitsAtTopLevel('await start();'));
  assert.ok(awaitsAtTopLevel('process.exit(await main());'));
  assert.ok(awaitsAtTopLevel('if (x) { const y = await load(); }'));
  assert.ok(awaitsAtTopLevel('for await (const line of lines) console.log(line);'));
});

topLevel('ignores an await inside functions, methods, arrows and static blocks', () => {
  assert.not.ok(awaitsAtTopLevel('export async function f() { await g(); }'));
  assert.not.ok(awaitsAtTopLevel('const f = async () => await g();'));
  assert.not.ok(awaitsAtTopLevel('class C { async m() { await g(); } static { (async () => { await g(); })(); } }'));
  assert.not.ok(awaitsAtTopLevel('const awaited = "await x";'));
});

topLevel.run();

const plugin = suite('alreadyLoadedPlugin');

/** A program whose entry awaits a lazy core that lazily loads a use-case sharing a module with it. */
function writeProgram(dir: string) {
  mkdirSync(join(dir, 'src'));
  const files: Record<string, string> = {
    'entry.ts': 'const { run } = await import(\'./core.ts\');\nconsole.log(await run());\n',
    'core.ts': 'import { shared } from \'./shared.ts\';\nimport { coreOnly } from \'./core-only.ts\';\nexport async function run() {\n  const useCase = await import(\'./use-case.ts\');\n  return [coreOnly(), shared(), useCase.default(), useCase.named].join(\' \');\n}\n',
    'shared.ts': 'export const shared = () => \'shared\';\n',
    'core-only.ts': 'export const coreOnly = () => \'core\';\n',
    'use-case.ts': 'import { shared } from \'./shared.ts\';\nexport default () => `use-case(${shared()})`;\nexport const named = \'named\';\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'src', name), text);
}

/** The output file holding each of the program's source modules. */
const chunkOf = (metafile: Metafile) => new Map(Object.entries(metafile.outputs).flatMap(([out, { inputs }]) => Object.keys(inputs).map((input) => [input, out] as const)));

plugin('puts what always loads together in one chunk, and the program runs as before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'already-loaded-'));
  try {
    writeProgram(dir);
    const options: BuildOptions = { absWorkingDir: dir, entryPoints: ['src/entry.ts'], outdir: 'out', bundle: true, splitting: true, format: 'esm', platform: 'node', metafile: true, logLevel: 'silent' };
    const plain = await build({ ...options, outdir: 'plain' });
    // esbuild alone: shared.ts, which core and the use-case both import, is a chunk apart from core's own modules.
    assert.is.not(chunkOf(plain.metafile!).get('src/shared.ts'), chunkOf(plain.metafile!).get('src/core-only.ts'));
    const { graph, defaultExports, awaitsAtTop } = graphOf(plain.metafile!, dir);
    const loaded = alreadyLoaded(graph, 'src/entry.ts', awaitsAtTop);
    const told = await build({ ...options, plugins: [alreadyLoadedPlugin(dir, loaded, defaultExports)] });
    assert.is(chunkOf(told.metafile!).get('src/shared.ts'), chunkOf(told.metafile!).get('src/core-only.ts'));
    // The entry awaits at its top level: it is never imported back (that would deadlock), and the run completes.
    assert.not.ok(loaded.get('src/use-case.ts')!.includes('src/entry.ts'));
    const run = (out: string) => spawnSync(process.execPath, [join(dir, out, 'entry.js')], { encoding: 'utf8', timeout: 30_000 });
    const expected = 'core shared use-case(shared) named\n';
    assert.is(run('plain').stdout, expected);
    const result = run('out');
    assert.is(result.stdout, expected, result.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

plugin.run();
