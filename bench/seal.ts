/**
 * Benchmark of private repositories (issue 12): push and clone of a private repository against a public one of the
 * same content, on the embedded network with its Seal key servers, and the key-server requests each clone made
 * (GIT_WALRUS_STATS, counted at the key service's HTTP transport). `node bench/seal.ts [--short]`.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createWorld } from '../test/support/e2e.ts';
import type { World } from '../test/support/e2e.ts';
import { generate } from './git.ts';

const FULL = { commits: 1000, files: 300, lines: 1000, touched: 3 };
const SHORT = { commits: 40, files: 30, lines: 200, touched: 3 };
/** Incremental pushes after the first, so a clone opens the keys of several packs. */
const PUSHES = { full: 10, short: 2 };

interface Figures {
  push: number;
  clone: number;
  keyRequests: number;
  stored: number;
  rssMb: number;
}

async function seconds(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return (performance.now() - start) / 1000;
}

function helperStats(world: World) {
  const mine = world.takeStats().filter((s) => s.role === 'helper');
  const total = (key: 'keyServerRequests' | 'bytesWritten') => mine.reduce((n, s) => n + (s[key] ?? 0), 0);
  return { keyRequests: total('keyServerRequests'), stored: total('bytesWritten'), rssMb: Math.max(0, ...mine.map((s) => ((s as { maxRssKb?: number }).maxRssKb ?? 0) / 1024)) };
}

/** Pushes `src` (its main, then `extra` one-commit pushes) to a new repository and clones it; returns the figures. */
async function measure(world: World, name: string, isPrivate: boolean, extra: number): Promise<Figures> {
  const url = (await world.ok('src', ['walrus', 'init', name, '--remote', name, ...(isPrivate ? ['--private'] : [])])).split('\n').at(-1)!;
  world.takeStats();
  let push = await seconds(() => world.ok('src', ['push', '-q', name, 'main~' + extra + ':refs/heads/main']));
  for (let i = extra - 1; i >= 0; i--) push += await seconds(() => world.ok('src', ['push', '-q', name, `main~${i}:refs/heads/main`]));
  const pushed = helperStats(world);
  const clone = await seconds(() => world.ok('.', ['clone', '-q', url, `${name}-clone`]));
  const cloned = helperStats(world);
  if ((await world.ok(`${name}-clone`, ['rev-parse', 'HEAD'])) !== (await world.ok('src', ['rev-parse', 'main']))) throw new Error(`the ${name} clone did not check out main`);
  return { push, clone, keyRequests: cloned.keyRequests, stored: pushed.stored, rssMb: cloned.rssMb };
}

export async function run(short: boolean): Promise<void> {
  const shape = short ? SHORT : FULL;
  const extra = short ? PUSHES.short : PUSHES.full;
  const world = createWorld('walrus-bench-seal-');
  try {
    await generate(world, 'src', { ...shape, commits: shape.commits }, 3);
    await world.ok('src', ['gc', '-q']);
    console.log(`private vs public repository (${short ? 'short' : 'full'} mode): ${shape.commits} commits, ${shape.files} files, ${extra + 1} pushes, embedded network, 2-of-3 key servers`);
    const pub = await measure(world, 'public', false, extra);
    const priv = await measure(world, 'private', true, extra);
    const row = (label: string, f: Figures) =>
      console.log(`  ${label.padEnd(8)} push ${f.push.toFixed(2)} s, clone ${f.clone.toFixed(2)} s, stored ${(f.stored / 1024 / 1024).toFixed(2)} MB, clone peak RSS ${f.rssMb.toFixed(0)} MB, key-server requests per clone ${f.keyRequests}`);
    row('public', pub);
    row('private', priv);
    const note = short ? ' (the target applies to the full mode: process start-up dominates the short one)' : '';
    console.log(`  clone ratio ${(priv.clone / pub.clone).toFixed(2)}x public (target <= 1.2x)${note}; push ratio ${(priv.push / pub.push).toFixed(2)}x`);
    console.log(`  storage overhead ${(((priv.stored - pub.stored) / pub.stored) * 100).toFixed(2)}% (6-byte header and a 16-byte tag per 64 KiB frame)`);
    const batches = Math.ceil((extra + 1) / 100);
    console.log(`  key-server requests: public ${pub.keyRequests} (target 0), private ${priv.keyRequests} for ${extra + 1} packs (target ${2 * batches}: a quorum of 2 servers x ${batches} batch(es) of <= 100 keys)`);
  } finally {
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await run(process.argv.includes('--short'));
