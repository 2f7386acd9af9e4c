/**
 * `git walrus web` on a big history: a generated repository the size of express's (thousands of commits, 300+
 * branches and tags; express itself is not reachable here) pushed with `git push --mirror` through the helper, then
 * the pages a reviewer opens first, timed over HTTP against a running `git walrus web`:
 * - the repository page cold (the object cache empty: the page fills it from the packs, as a clone would) and warm;
 * - the commit list (first page and a deep page), a commit with a large diff (first render and again; a diff is shown
 *   in parts of whole files);
 * - then, after a restart (the object cache on disk, nothing in the server's memory), each page a reviewer opens cold
 *   and warm: the repositories, the repository page, the log, a commit, a folder, a file, its history, its blame, a
 *   compare and the push log.
 * Targets: warm pages under 200 ms; the cold repository page no slower than `git clone --mirror` of the repository.
 * `--short` shrinks the repository so CI runs it quickly, and still prints every figure.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createWorld, walrusInit } from '../scripts/harness/world.ts';
import { startWeb } from '../test/support/web.ts';
import { EXPRESS, EXPRESS_SHORT, addRefs, generate } from './git.ts';

const FULL = { ...EXPRESS, largeDiffFiles: 150 };
const SHORT = { ...EXPRESS_SHORT, largeDiffFiles: 20 };
const WARM_TARGET_MS = 200;
const ROUNDS = 2;

async function timedMs(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

/** Median of `n` runs: the figure a user sees on a repeated view. */
async function warmMs(n: number, action: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(await timedMs(action));
  times.sort((a, b) => a - b);
  return times[Math.floor(n / 2)]!;
}

export async function run(short: boolean): Promise<void> {
  const spec = short ? SHORT : FULL;
  const world = createWorld('walrus-bench-web-');
  let web: Awaited<ReturnType<typeof startWeb>> | null = null;
  try {
    await generate(world, 'repo', spec.shape, 5);
    // The last commit rewrites many whole files: a diff of tens of thousands of lines.
    for (let i = 0; i < spec.largeDiffFiles; i++) {
      const file = world.path('repo', 'src', `module${i}.ts`);
      writeFileSync(file, (await world.ok('repo', ['show', `HEAD:src/module${i}.ts`])).split('\n').reverse().map((line) => line.toUpperCase()).join('\n'));
    }
    await world.ok('repo', ['commit', '-q', '-am', 'a large rewrite']);
    const large = await world.ok('repo', ['rev-parse', 'HEAD']);
    const diffBytes = (await world.ok('repo', ['diff', 'HEAD~1', 'HEAD'])).length;
    const commits = await addRefs(world, 'repo', spec);
    const refs = (await world.ok('repo', ['for-each-ref', '--format=%(refname)'])).split('\n').length;
    const url = await walrusInit(world, 'repo', 'big');
    const id = url.slice('walrus://'.length);
    const push = await timedMs(() => world.ok('repo', ['push', '-q', '--mirror', 'walrus']));
    console.log(`repository: ${commits.length} commits, ${refs} refs, a last commit with a ${(diffBytes / 1024 / 1024).toFixed(1)} MB diff; git push --mirror through the helper ${(push / 1000).toFixed(1)} s`);
    // The cold view and the clone it is held to, interleaved over rounds so that both see the same machine load
    // (a shared machine's varies by seconds); the best of each is the figure.
    const figures: Array<[string, number, string]> = [];
    const clones: number[] = [];
    const colds: number[] = [];
    const firsts: number[] = [];
    let get: (path: string) => Promise<string> = async () => '';
    for (let round = 0; round < ROUNDS; round++) {
      clones.push(await timedMs(() => world.ok('.', ['clone', '-q', '--mirror', url, `clone-${round}.git`])));
      await web?.stop();
      rmSync(world.path('walrus-home', 'web-cache'), { recursive: true, force: true });
      const server = await startWeb(world);
      web = server;
      get = async (path: string) => {
        const response = await fetch(new URL(path, server.url));
        const body = await response.text();
        if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}\n${body.slice(0, 500)}\n${server.stderr()}`);
        return body;
      };
      // The first request reads the chain state (repository, refs, push events) without touching git objects.
      firsts.push(await timedMs(() => get(`/repos/${id}/refs`)));
      colds.push(await timedMs(() => get(`/repos/${id}`)));
    }
    const clone = Math.min(...clones);
    const cold = Math.min(...colds);
    const each = (times: number[]) => times.map((t) => t.toFixed(0)).join(', ');
    figures.push(['git clone --mirror walrus:// (helper)', clone, `best of ${each(clones)} ms`]);
    figures.push(['first request (chain state only)', Math.min(...firsts), `best of ${each(firsts)} ms`]);
    figures.push(['repository page, cold (cache empty)', cold, `best of ${each(colds)} ms; target <= git clone --mirror: ${cold <= clone ? 'met' : 'MISSED'}`]);
    const warm = (label: string, path: string) => warmMs(5, () => get(path)).then((ms) => figures.push([label, ms, `target < ${WARM_TARGET_MS} ms: ${ms < WARM_TARGET_MS ? 'met' : 'MISSED'}`]));
    await warm('repository page, warm', `/repos/${id}`);
    await warm('commit list, page 1', `/repos/${id}/commits`);
    await warm('commit list, page 40', `/repos/${id}/commits?page=40`);
    await warm('branches and tags', `/repos/${id}/refs`);
    const firstDiff = await timedMs(() => get(`/repos/${id}/commit/${large}`));
    figures.push(['large-diff commit, first render', firstDiff, 'renders once, then kept']);
    await warm('large-diff commit, warm', `/repos/${id}/commit/${large}`);
    const pageBytes = (await get(`/repos/${id}/commit/${large}`)).length;
    figures.push(['large-diff commit, next part, first', await timedMs(() => get(`/repos/${id}/commit/${large}?part=2`)), `each part at most 256 KiB of diff; page ${(pageBytes / 1024 / 1024).toFixed(1)} MB`]);
    for (const [label, ms, note] of figures) console.log(`  ${label.padEnd(38)} ${ms.toFixed(0).padStart(6)} ms  (${note})`);

    // Each page a reviewer opens, cold (its first view after a restart: the object cache is on disk, nothing is kept
    // in the server's memory) and warm (the median of 5 views after it).
    await web?.stop();
    const restarted = await startWeb(world);
    web = restarted;
    const file = 'src/module7.ts';
    const pages: Array<[string, string]> = [
      ['repositories (/)', '/'],
      ['repository page (home)', `/repos/${id}`],
      ['commit list (log), page 1', `/repos/${id}/commits`],
      ['a commit', `/repos/${id}/commit/${commits[100]}`],
      ['a tree (folder src/)', `/repos/${id}/tree?path=src`],
      [`a file (${file})`, `/repos/${id}/tree?path=${file}`],
      [`file history (${file}, follows renames)`, `/repos/${id}/history?path=${file}`],
      [`blame (${file})`, `/repos/${id}/blame?path=${file}`],
      ['compare (tag v0.5.0 … main)', `/repos/${id}/compare?from=v0.5.0&to=main`],
      // Last: its first view starts a deep verify in the background, which would load the machine for the others.
      ['push log', `/repos/${id}/pushes`],
    ];
    const view = async (path: string) => {
      const response = await fetch(new URL(path, restarted.url));
      const body = await response.text();
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status}\n${body.slice(0, 500)}\n${restarted.stderr()}`);
    };
    console.log(`  ${'page'.padEnd(48)} ${'cold'.padStart(8)} ${'warm'.padStart(8)}  (cold: first view after a restart; warm: median of 5; target < ${WARM_TARGET_MS} ms)`);
    for (const [label, path] of pages) {
      const cold = await timedMs(() => view(path));
      const warmView = await warmMs(5, () => view(path));
      console.log(`  ${label.padEnd(48)} ${`${cold.toFixed(0)} ms`.padStart(8)} ${`${warmView.toFixed(0)} ms`.padStart(8)}  ${warmView < WARM_TARGET_MS ? 'met' : 'MISSED'}`);
    }
  } finally {
    await web?.stop();
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await run(process.argv.includes('--short'));
