/**
 * Benchmark of private repositories (issue 12): push and clone of a private repository against a public one of the
 * same content, on the embedded network with its Seal key servers, and the key-server requests each clone made
 * (GIT_WALRUS_STATS, counted at the key service's HTTP transport), and the helper's CPU time per clone (which load on
 * a shared machine does not skew; on the embedded network it includes the in-process key servers' work).
 * `node bench/seal.ts [--short]`.
 */
import { loadavg } from 'node:os';
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
  /** Helper CPU seconds of the clone whose wall-clock time is `clone`. */
  cpu: number;
}

async function seconds(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return (performance.now() - start) / 1000;
}

function helperStats(world: World) {
  const mine = world.takeStats().filter((s) => s.role === 'helper');
  const total = (key: 'keyServerRequests' | 'bytesWritten') => mine.reduce((n, s) => n + (s[key] ?? 0), 0);
  const stat = (s: object, key: 'maxRssKb' | 'cpuMs') => (s as { maxRssKb?: number; cpuMs?: number })[key] ?? 0;
  return {
    keyRequests: total('keyServerRequests'),
    stored: total('bytesWritten'),
    rssMb: Math.max(0, ...mine.map((s) => stat(s, 'maxRssKb') / 1024)),
    cpu: mine.reduce((sum, s) => sum + stat(s, 'cpuMs'), 0) / 1000,
  };
}

/**
 * Pushes `src` (main~extra, then one commit at a time up to main) to a public and a private repository of the same
 * content, and clones each twice. The two kinds take turns at every step, so a machine shared with other work slows
 * both alike; each clone figure is the faster of its two.
 */
async function measure(world: World, extra: number): Promise<{ public: Figures; private: Figures }> {
  const kinds = [{ name: 'public', flags: [] as string[] }, { name: 'private', flags: ['--private'] }];
  const figures = kinds.map(() => ({ push: 0, clone: Infinity, keyRequests: 0, stored: 0, rssMb: 0, cpu: 0 }));
  const urls: string[] = [];
  for (const kind of kinds) urls.push((await world.ok('src', ['walrus', 'init', kind.name, '--remote', kind.name, ...kind.flags])).split('\n').at(-1)!);
  world.takeStats();
  for (let back = extra; back >= 0; back--) {
    for (const [k, kind] of kinds.entries()) {
      figures[k]!.push += await seconds(() => world.ok('src', ['push', '-q', kind.name, `main~${back}:refs/heads/main`]));
      figures[k]!.stored += helperStats(world).stored;
    }
  }
  for (let round = 0; round < 2; round++) {
    for (const [k, kind] of kinds.entries()) {
      const dir = `${kind.name}-clone-${round}`;
      const clone = await seconds(() => world.ok('.', ['clone', '-q', urls[k]!, dir]));
      const cloned = helperStats(world);
      if ((await world.ok(dir, ['rev-parse', 'HEAD'])) !== (await world.ok('src', ['rev-parse', 'main']))) throw new Error(`the ${dir} clone did not check out main`);
      const figure = figures[k]!;
      if (clone < figure.clone) figure.cpu = cloned.cpu;
      figure.clone = Math.min(figure.clone, clone);
      figure.keyRequests = cloned.keyRequests;
      figure.rssMb = Math.max(figure.rssMb, cloned.rssMb);
    }
  }
  return { public: figures[0]!, private: figures[1]! };
}

export async function run(short: boolean): Promise<void> {
  const shape = short ? SHORT : FULL;
  const extra = short ? PUSHES.short : PUSHES.full;
  const world = createWorld('walrus-bench-seal-');
  try {
    await generate(world, 'src', { ...shape, commits: shape.commits }, 3);
    await world.ok('src', ['gc', '-q']);
    console.log(`private vs public repository (${short ? 'short' : 'full'} mode): ${shape.commits} commits, ${shape.files} files, ${extra + 1} pushes, embedded network, 2-of-3 key servers`);
    const { public: pub, private: priv } = await measure(world, extra);
    const row = (label: string, f: Figures) =>
      console.log(`  ${label.padEnd(8)} push ${f.push.toFixed(2)} s, clone ${f.clone.toFixed(2)} s (helper CPU ${f.cpu.toFixed(2)} s), stored ${(f.stored / 1024 / 1024).toFixed(2)} MB, clone peak RSS ${f.rssMb.toFixed(0)} MB, key-server requests per clone ${f.keyRequests}`);
    row('public', pub);
    row('private', priv);
    const note = short ? ' (the target applies to the full mode: process start-up dominates the short one)' : '';
    console.log(`  clone ratio ${(priv.clone / pub.clone).toFixed(2)}x public (target <= 1.2x)${note}; push ratio ${(priv.push / pub.push).toFixed(2)}x; ` +
      `helper CPU per clone +${(priv.cpu - pub.cpu).toFixed(2)} s; load average ${loadavg()[0]!.toFixed(2)} (wall-clock figures are valid on a quiet machine only)`);
    console.log(`  storage overhead ${(((priv.stored - pub.stored) / pub.stored) * 100).toFixed(2)}% (6-byte header and a 16-byte tag per 64 KiB frame)`);
    const batches = Math.ceil((extra + 1) / 100);
    console.log(`  key-server requests: public ${pub.keyRequests} (target 0), private ${priv.keyRequests} for ${extra + 1} packs (target ${2 * batches}: a quorum of 2 servers x ${batches} batch(es) of <= 100 keys)`);
  } finally {
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await run(process.argv.includes('--short'));
