/**
 * What the build tells esbuild about lazy imports (docs/architecture.md, "How the executables start").
 *
 * esbuild splits a bundle into chunks by which entries reach each module, and it counts every `import()` as an entry
 * that may be the first thing to load. So a module that a session's core and one of its lazy use-cases both need lands
 * in a chunk of its own, apart from the core's other modules: a helper's `list` read 43 files, each a resolve, a read,
 * a compile-cache lookup and a link. But a lazy import runs in code that is already loaded, and so is everything that
 * code's entry loaded before it. Given the module graph of a first build, `alreadyLoaded` works out, for each lazy
 * import, which of our own modules are loaded whenever it runs; the plugin of the second build then makes the lazily
 * loaded module import them too (a no-op at run time: they are evaluated). Modules that every path loads together
 * now share their entries, and esbuild puts them in one chunk.
 *
 * A module with a top-level `await`, or one that imports such a module, is never added: it may still be evaluating
 * when it makes the lazy import, and a module that imports it would wait for it, which waits for the import.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import type { Metafile, Plugin } from 'esbuild';

/** The part of esbuild's metafile the analysis reads: each input and what it imports, paths relative to the root. */
export type ModuleGraph = Record<string, { imports: readonly { path: string; kind: string; external?: boolean }[] }>;

const isStatic = (kind: string) => kind === 'import-statement' || kind === 'require-call';

/**
 * For every module the graph imports lazily (an `import()` of it somewhere), our own modules (`ownPrefix`, not
 * dependencies: a dependency marked free of side effects would be dropped from a bare import) that are loaded
 * whenever any of those imports runs, other than itself and the ones that may wait at their top level.
 */
export function alreadyLoaded(graph: ModuleGraph, entry: string, awaitsAtTop: (path: string) => boolean, ownPrefix = 'src/'): Map<string, string[]> {
  const edges = (path: string) => (graph[path]?.imports ?? []).filter((i) => !i.external);
  const closures = new Map<string, Set<string>>();
  const closure = (start: string) => {
    let seen = closures.get(start);
    if (seen) return seen;
    seen = new Set([start]);
    const queue = [start];
    while (queue.length > 0) {
      for (const i of edges(queue.pop()!)) {
        if (isStatic(i.kind) && !seen.has(i.path)) {
          seen.add(i.path);
          queue.push(i.path);
        }
      }
    }
    closures.set(start, seen);
    return seen;
  };
  // Each lazily imported module and the modules whose `import()` loads it.
  const importers = new Map<string, Set<string>>();
  for (const [path, { imports }] of Object.entries(graph)) {
    for (const i of imports) if (i.kind === 'dynamic-import' && !i.external) importers.set(i.path, (importers.get(i.path) ?? new Set()).add(path));
  }
  const entries = [entry, ...importers.keys()];
  // Greatest fixed point: a lazy module's loaded set starts as everything (null) and shrinks to the intersection,
  // over each module that imports it and each entry whose static closure holds that module, of that entry's closure
  // and loaded set. The program's entry loads with nothing before it.
  const loaded = new Map<string, Set<string> | null>(entries.map((e) => [e, e === entry ? new Set<string>() : null]));
  const intersect = (a: Set<string> | null, b: Set<string> | null) => (a === null ? b : b === null ? a : new Set([...a].filter((x) => b.has(x))));
  for (let changed = true; changed;) {
    changed = false;
    for (const target of importers.keys()) {
      if (target === entry) continue;
      let result: Set<string> | null = null;
      for (const importer of importers.get(target)!) {
        for (const e of entries) {
          if (!closure(e).has(importer)) continue;
          const before = loaded.get(e)!;
          result = intersect(result, before === null ? null : new Set([...before, ...closure(e)]));
        }
      }
      const previous = loaded.get(target)!;
      if (result !== null && (previous === null || result.size !== previous.size)) {
        loaded.set(target, result);
        changed = true;
      }
    }
  }
  const waits = (path: string) => [...closure(path)].some(awaitsAtTop);
  const result = new Map<string, string[]>();
  for (const target of importers.keys()) {
    const modules = [...(loaded.get(target) ?? [])].filter((m) => m !== target && m.startsWith(ownPrefix) && !waits(m)).sort();
    if (modules.length > 0) result.set(target, modules);
  }
  return result;
}

/** Whether a TypeScript or JavaScript module awaits at its top level (outside any function). */
export function awaitsAtTopLevel(source: string, fileName = 'module.ts'): boolean {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false);
  const visit = (node: ts.Node): boolean => {
    if (ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node)) return false;
    if (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier !== undefined)) return true;
    return ts.forEachChild(node, visit) ?? false;
  };
  return ts.forEachChild(file, visit) ?? false;
}

/**
 * The plugin of the second build: an `import()` of a module that `alreadyLoaded` found modules for resolves to a
 * small module that imports them and re-exports the lazy module (its default export too, where the first build saw
 * one). `root` is the directory the graph's paths are relative to.
 */
export function alreadyLoadedPlugin(root: string, loadedBefore: Map<string, string[]>, defaultExports: ReadonlySet<string>): Plugin {
  const namespace = 'already-loaded';
  return {
    name: namespace,
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData === namespace) return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: namespace });
        if (resolved.errors.length > 0 || resolved.external) return resolved;
        const path = relative(root, resolved.path);
        return loadedBefore.has(path) ? { path, namespace } : resolved;
      });
      build.onLoad({ filter: /.*/, namespace }, (args) => {
        const lines = loadedBefore.get(args.path)!.map((m) => `import ${JSON.stringify(join(root, m))};`);
        const target = JSON.stringify(join(root, args.path));
        lines.push(`export * from ${target};`);
        if (defaultExports.has(args.path)) lines.push(`export { default } from ${target};`);
        return { contents: `${lines.join('\n')}\n`, resolveDir: root, loader: 'js' };
      });
    },
  };
}

/** The graph, and the lazily imported modules with a default export, from a first build's metafile. */
export function graphOf(metafile: Metafile, root: string): { graph: ModuleGraph; defaultExports: Set<string>; awaitsAtTop: (path: string) => boolean } {
  const defaultExports = new Set<string>();
  for (const output of Object.values(metafile.outputs)) if (output.entryPoint && output.exports.includes('default')) defaultExports.add(output.entryPoint);
  const awaits = new Map<string, boolean>();
  const awaitsAtTop = (path: string) => {
    let found = awaits.get(path);
    if (found === undefined) {
      found = /\.[cm]?[jt]s$/.test(path) && existsSync(join(root, path)) && awaitsAtTopLevel(readFileSync(join(root, path), 'utf8'), path);
      awaits.set(path, found);
    }
    return found;
  };
  return { graph: metafile.inputs, defaultExports, awaitsAtTop };
}
