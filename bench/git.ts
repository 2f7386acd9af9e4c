/**
 * Benchmark of the remote helper against native git. `node bench/git.ts [--short]`.
 *
 * A deterministic generated repository (source-like text from a seeded generator, written with git fast-import):
 * push and clone through the helper on the embedded network versus `git push` / `git clone` over file://; then an
 * incremental one-commit push and a no-op fetch with the port calls the helper made (GIT_WALRUS_STATS: counted at
 * the Ledger and BlobStore boundary, nothing estimated); then the helper's peak RSS pushing and cloning a large
 * repository. The many-ref part also prints the helper's start-up and the time to list every ref, the parts of a
 * clone before index-pack. `--short` shrinks every repository so CI runs it quickly, and still prints every figure;
 * `--medium` runs the many-ref (medium) case alone.
 */
import { runningWarmEncoder } from './blob-id/warm-encoder.ts';
import { encoderSocket } from '../src/main/warm-encoder.ts';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createWalrusService } from '../src/devnet/walrus/service.ts';
import { createWorld, refsOf, startDevnet, walrusInit } from '../scripts/harness/world.ts';
import type { World } from '../scripts/harness/world.ts';

interface Shape {
  commits: number;
  files: number;
  /** Initial lines per file (~40 bytes each). */
  lines: number;
  /** Files changed per commit. */
  touched: number;
}

export const FULL = {
  history: { commits: 2000, files: 400, lines: 1200, touched: 3 },
  large: { commits: 10, files: 1000, lines: 5000, touched: 100 },
  // The medium case: a project's history of thousands of commits, hundreds of refs and a pack of ~10 MB.
  // shardRounds: pushes at 1000 shards, each beside its own limit (the encode's speed drifts on a shared machine).
  manyRefs: { shape: { commits: 6000, files: 300, lines: 400, touched: 6 }, branches: 200, tags: 120, shardRounds: 3 },
};
const SHORT = {
  history: { commits: 150, files: 60, lines: 400, touched: 3 },
  large: { commits: 4, files: 100, lines: 3000, touched: 20 },
  manyRefs: { shape: { commits: 200, files: 40, lines: 100, touched: 3 }, branches: 30, tags: 20, shardRounds: 1 },
};

/** mulberry32: a tiny seeded PRNG, so every run generates the same repository. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['value', 'result', 'config', 'index', 'buffer', 'stream', 'handler', 'options', 'count', 'error', 'state', 'node', 'item', 'parse', 'write', 'read', 'update', 'client', 'server', 'commit'];

function sourceLine(rand: () => number): string {
  const w = () => WORDS[Math.floor(rand() * WORDS.length)];
  const n = Math.floor(rand() * 1000);
  switch (Math.floor(rand() * 4)) {
    case 0: return `  const ${w()}${n} = ${w()}(${w()}, ${n});`;
    case 1: return `  if (${w()}.${w()} > ${n}) return ${w()};`;
    case 2: return `  // ${w()} the ${w()} before ${w()}`;
    default: return `  ${w()}.${w()}(${w()}${n});`;
  }
}

/**
 * A repository of express's shape (thousands of commits, 300+ branches and tags; express itself is not reachable
 * here), and a small one of the same kind for `--short` runs.
 */
export const EXPRESS = { shape: { commits: 6000, files: 300, lines: 200, touched: 3 }, branches: 200, tags: 120 };
export const EXPRESS_SHORT = { shape: { commits: 300, files: 40, lines: 100, touched: 3 }, branches: 20, tags: 10 };

/** Streams a fast-import history into `repo` (branch main). */
export async function generate(world: World, repo: string, shape: Shape, seed: number): Promise<void> {
  await world.ok('.', ['init', '-q', '-b', 'main', repo]);
  const rand = prng(seed);
  const files = Array.from({ length: shape.files }, () => Array.from({ length: shape.lines }, () => sourceLine(rand)));
  const child = spawn('git', ['fast-import', '--quiet'], { cwd: world.path(repo), env: world.env, stdio: ['pipe', 'ignore', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`fast-import exit ${code}`)))));
  const write = (text: string) => (child.stdin.write(text) ? Promise.resolve() : new Promise<void>((r) => child.stdin.once('drain', () => r())));
  const fileCommand = (i: number) => {
    const body = files[i].join('\n') + '\n';
    return `M 100644 inline src/module${i}.ts\ndata ${Buffer.byteLength(body)}\n${body}\n`;
  };
  for (let c = 0; c < shape.commits; c++) {
    const changed = c === 0 ? files.map((_, i) => i) : Array.from({ length: shape.touched }, () => Math.floor(rand() * shape.files));
    let ops = '';
    for (const i of new Set(changed)) {
      if (c > 0) {
        const at = Math.floor(rand() * files[i].length);
        files[i].splice(at, Math.floor(rand() * 3), ...Array.from({ length: 1 + Math.floor(rand() * 6) }, () => sourceLine(rand)));
      }
      ops += fileCommand(i);
    }
    const message = `change ${c}`;
    await write(`commit refs/heads/main\ncommitter Bench <bench@example.com> ${1700000000 + c} +0000\ndata ${message.length}\n${message}\n${c > 0 ? '' : ''}${ops}\n`);
  }
  child.stdin.end();
  await done;
  await world.ok(repo, ['reset', '-q', '--hard']);
}

async function timed(label: string, action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  const seconds = (performance.now() - start) / 1000;
  console.log(`  ${label.padEnd(34)} ${seconds.toFixed(2)} s`);
  return seconds;
}

export type Stats = ReturnType<World['takeStats']>[number] & { ms?: Record<string, number>; spans?: Record<string, [number, number]>; marks?: Record<string, number>; encodeMs?: number; cpuMs?: number };

/**
 * Where the helper processes' time went (their GIT_WALRUS_STATS lines): start-up (exec to the network opened), the
 * time in each port and local-repository method by phase, and the encoder's. Calls overlap (a push reads its pack,
 * encodes and uploads at once), so the phases may add up to more than the whole.
 */
function breakdown(stats: Stats[], phases: Record<string, RegExp>): string {
  const mine = stats.filter((s) => s.role === 'helper');
  const startup = mine.map((s) => s.marks?.network ?? 0);
  const parts = [`${mine.length} helper process(es), start-up ${startup.map((ms) => (ms / 1000).toFixed(2)).join('+')} s`];
  for (const [phase, pattern] of Object.entries(phases)) {
    const ms = phase === 'encode'
      ? mine.reduce((n, s) => n + (s.encodeMs ?? 0), 0)
      : mine.reduce((n, s) => n + Object.entries(s.ms ?? {}).filter(([name]) => pattern.test(name)).reduce((m, [, v]) => m + v, 0), 0);
    parts.push(`${phase} ${(ms / 1000).toFixed(2)} s`);
  }
  parts.push(`CPU ${(mine.reduce((n, s) => n + (s.cpuMs ?? 0), 0) / 1000).toFixed(2)} s`);
  return parts.join(', ');
}

const PUSH_PHASES = {
  listing: /^ledger\.(getRepository|listRefs|resolve)$/,
  ancestry: /^local\.(ancestry|presentObjects|resolve)$/,
  pack: /^local\.packObjects$/,
  encode: /encode/,
  'upload (with encode)': /^blobStore\.write$/,
  transaction: /^ledger\.push$/,
};
const CLONE_PHASES = {
  listing: /^ledger\.(getRepository|listRefs|resolve|listPacks)$/,
  download: /^blobStore\.read$/,
  'index-pack': /^local\.receivePack\.(apply|write)$/,
};

function sum(stats: ReturnType<World['takeStats']>, role = 'helper') {
  const mine = stats.filter((s) => s.role === role);
  const total = (key: 'blobWrites' | 'blobReads' | 'bytesWritten' | 'chainReads' | 'transactions') => mine.reduce((n, s) => n + s[key], 0);
  return {
    processes: mine.length,
    blobWrites: total('blobWrites'),
    blobReads: total('blobReads'),
    bytesWritten: total('bytesWritten'),
    chainReads: total('chainReads'),
    transactions: total('transactions'),
    maxRssMb: Math.max(0, ...mine.map((s) => ((s as { maxRssKb?: number }).maxRssKb ?? 0) / 1024)),
  };
}

/**
 * `branches` branches (topic/NNNN) and `tags` tags (vM.m.0) at commits spread over `repo`'s main, in one
 * `git update-ref --stdin`, as a project's hundreds of refs; returns main's commits, newest first.
 */
export async function addRefs(world: World, repo: string, { branches, tags }: { branches: number; tags: number }): Promise<string[]> {
  const commits = (await world.ok(repo, ['rev-list', 'main'])).split('\n');
  const lines = [
    ...Array.from({ length: branches }, (_, i) => `create refs/heads/topic/${String(i).padStart(4, '0')} ${commits[(i * 13) % commits.length]}`),
    ...Array.from({ length: tags }, (_, i) => `create refs/tags/v${Math.floor(i / 50)}.${i % 50}.0 ${commits[(i * 17 + 5) % commits.length]}`),
  ];
  const child = spawn('git', ['update-ref', '--stdin'], { cwd: world.path(repo), env: world.env, stdio: ['pipe', 'ignore', 'inherit'] });
  child.stdin.end(`${lines.join('\n')}\n`);
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`git update-ref --stdin exited with ${code}`);
  return commits;
}

/**
 * A generated many-ref repository (hundreds of branches and tags over thousands of commits, as real projects have),
 * mirrored: `git push --mirror` and `git clone --mirror`, through the helper and over file://.
 */
export async function manyRefComparison(world: World, spec: typeof FULL.manyRefs, ratioNote: (target: string) => string): Promise<void> {
  await generate(world, 'many', spec.shape, 3);
  const commits = await addRefs(world, 'many', spec);
  // Deltas computed by git, as a project's pack has them (fast-import's own leave it several times larger).
  await world.ok('many', ['repack', '-adf', '-q']);
  const refs = (await world.ok('many', ['for-each-ref', '--format=%(refname)'])).split('\n').length;
  const packBytes = Number((await world.ok('many', ['count-objects', '-v'])).match(/size-pack: (\d+)/)?.[1] ?? 0) * 1024;
  console.log(`many-ref repository: ${commits.length} commits, ${refs} refs, ${fmtMb(packBytes)} packed; mirror push and clone:`);
  await world.ok('.', ['init', '-q', '--bare', '--initial-branch=main', 'many-native.git']);
  const nativePush = await timed('git push --mirror file:// (native)', () => world.ok('many', ['push', '-q', '--mirror', `file://${world.path('many-native.git')}`]));
  const nativeClone = await timed('git clone --mirror file:// (native)', () => world.ok('.', ['clone', '-q', '--mirror', `file://${world.path('many-native.git')}`, 'many-native-clone.git']));
  const url = await walrusInit(world, 'many', 'many-refs');
  world.takeStats();
  // By URL, as the native push: a push to a named remote also has git write a remote-tracking ref (and its reflog)
  // per branch, git's own work either way, and a later --mirror push would carry those refs as well.
  const helperPush = await timed('git push --mirror walrus:// (helper)', () => world.ok('many', ['push', '-q', '--mirror', url]));
  const pushLines = world.takeStats();
  const pushStats = sum(pushLines);
  const helperClone = await timed('git clone --mirror walrus:// (helper)', () => world.ok('.', ['clone', '-q', '--mirror', url, 'many-walrus-clone.git']));
  const cloneLines = world.takeStats();
  const cloneStats = sum(cloneLines);
  if ((await refsOf(world, 'many-walrus-clone.git')) !== (await refsOf(world, 'many-native-clone.git'))) throw new Error('the helper\'s mirror clone differs from the native one');
  console.log(`  push ratio  ${(helperPush / nativePush).toFixed(2)}x native (${ratioNote('<= 1.5x')})`);
  console.log(`  clone ratio ${(helperClone / nativeClone).toFixed(2)}x native (${ratioNote('<= 1.3x')})`);
  console.log(`  mirror push: ${pushStats.blobWrites} blob writes, ${fmtMb(pushStats.bytesWritten)} stored, ${pushStats.transactions} transaction(s); clone: ${cloneStats.blobReads} blob reads, ${cloneStats.chainReads} chain reads`);
  console.log(`  push breakdown:  ${breakdown(pushLines, PUSH_PHASES)}`);
  console.log(`  clone breakdown: ${breakdown(cloneLines, CLONE_PHASES)}`);
  // Where a clone's time goes before index-pack: the helper's start (node, modules, opening the network) and the
  // listing of every ref (ls-remote: a start plus one paged read). Best of three, as the floor under load.
  const best = (action: () => Promise<unknown>) => bestOf3(async () => {
    const start = performance.now();
    await action();
    return (performance.now() - start) / 1000;
  });
  const startup = await best(() => helperCapabilities(world, url));
  const listing = await best(() => world.ok('.', ['ls-remote', url]));
  console.log(`  helper capabilities-only session ${startup.toFixed(2)} s (exec to exit: it opens the network after answering), ls-remote of ${refs} refs ${listing.toFixed(2)} s (best of 3)`);
  world.takeStats();
  await world.ok('.', ['ls-remote', url]);
  const marks = (world.takeStats() as Stats[]).find((s) => s.role === 'helper')?.marks ?? {};
  const at = (name: string) => `${((marks[name] ?? 0) / 1000).toFixed(3)} s`;
  const own = (name: string) => `${(((marks[name] ?? 0) - (marks.entry ?? 0)) / 1000).toFixed(3)} s`;
  console.log(`  ls-remote helper marks: our code entered ${at('entry')} (Node's own start), first answer ${at('first-answer')}, modules loaded ${at('modules')}, network open ${at('network')}, refs listed ${at('listed')}, exit ${at('exit')}`);
  console.log(`  the helper's own time (after Node's start): to answer capabilities ${own('first-answer')}, to list ${refs} refs ${own('listed')}`);
  // `git walrus` commands the same way: each process's exit less its entry, the best of three.
  const cliOwn = async (args: string[]) => `${(await bestOf3(async () => {
    world.takeStats();
    await world.ok('.', ['walrus', ...args]);
    const cliMarks = (world.takeStats() as Stats[]).find((s) => s.role === 'cli')?.marks ?? {};
    return ((cliMarks.exit ?? 0) - (cliMarks.entry ?? 0)) / 1000;
  })).toFixed(3)} s`;
  console.log(`  git walrus commands' own time (after Node's start, best of 3): whoami ${await cliOwn(['whoami'])}, log of the last push ${await cliOwn(['log', url, '--limit', '1'])}`);
  await shardComparison(world, 1000, nativePush, spec.shardRounds);
}

/**
 * The mirror push of `many` again on a local network of `numShards` shards (testnet and mainnet run 1000), beside
 * its encode-aware limit: native git's pack time plus the time to compute the blob ids of the pack's chunks, spread
 * over the cores available (each measured on its own, as a push's process computes it). The embedded network's
 * Walrus takes the helper's own id computation (one process), so the figure is the helper's work, as against a
 * publisher that encodes on its own machine. Each of `rounds` rounds pushes to a new repository between two
 * measurements of the limit, and compares the push with their mean: on a shared machine the same encoding takes a
 * third longer from one minute to the next. The median round is the figure.
 */
async function shardComparison(world: World, numShards: number, nativePush: number, rounds: number): Promise<void> {
  const home = world.path(`walrus-home-${numShards}`);
  // A devnet's shard count is fixed when its state directory is created: create it at `numShards` first.
  await createWalrusService(join(home, 'local', 'walrus'), { numShards }).epochClock();
  const env = { GIT_WALRUS_HOME: home };
  const packFile = world.path(`many-${numShards}.pack`);
  const results: { helperPush: number; limit: number; lines: Stats[]; detail: string }[] = [];
  // The limit of one moment: native git's pack of `many`, then the blob ids of its chunks (the push leaves both as
  // they were, so every measurement does the same work).
  const limitNow = async () => {
    const packTime = await timed('git pack-objects --all (native)', async () => {
      const packed = spawnSync('sh', ['-c', 'git pack-objects --revs --all -q --stdout </dev/null >"$0"', packFile], { cwd: world.path('many'), env: world.env });
      if (packed.status !== 0) throw new Error(`git pack-objects failed: ${packed.stderr}`);
    });
    const perChunk = chunkEncodeTimes(packFile, numShards);
    // Longest-first onto the least loaded core: the makespan of the chunks' encodings on `cores` cores.
    const load = new Array<number>(cores).fill(0);
    for (const t of [...perChunk].sort((a, b) => b - a)) load[load.indexOf(Math.min(...load))] += t;
    const encode = Math.max(...load);
    return { packTime, perChunk, encode, limit: packTime + encode };
  };
  const cores = availableParallelism();
  for (let round = 1; round <= rounds; round++) {
    const remote = `walrus${numShards}-${round}`;
    const url = await walrusInit(world, 'many', `many-${numShards}-${round}`, ['--remote', remote], { env });
    // The limit is measured just before and just after the push, and their mean is the push's own.
    const before = await limitNow();
    world.takeStats();
    const helperPush = await timed(`git push --mirror (${numShards} shards, round ${round})`, () => world.ok('many', ['push', '-q', '--mirror', url], { env }));
    const lines: Stats[] = world.takeStats();
    const after = await limitNow();
    const limit = (before.limit + after.limit) / 2;
    const encodes = (m: typeof before) => `${m.perChunk.map((t) => t.toFixed(2)).join('+')} s`;
    const inPush = lines.reduce((ms, s) => ms + (s.encodeMs ?? 0), 0) / 1000;
    const detail = `pack ${fmtMb(statSync(packFile).size)} in ${before.perChunk.length} chunk(s) on ${cores} core(s); encode before the push ${encodes(before)}, after ${encodes(after)} (in the push: ${inPush.toFixed(2)} s); encode-aware limit ${limit.toFixed(2)} s (native pack ${((before.packTime + after.packTime) / 2).toFixed(2)} s + encode ${((before.encode + after.encode) / 2).toFixed(2)} s, means of before and after)`;
    console.log(`  round ${round}: helper ${helperPush.toFixed(2)} s = ${(helperPush / limit).toFixed(2)}x its limit; ${detail}`);
    results.push({ helperPush, limit, lines, detail });
  }
  // A blob's id costs about the same however small the blob at 1000 shards (the Merkle trees over every sliver's
  // symbols, not the bytes, dominate): a 1 KiB blob shows that fixed part.
  const tinyFile = world.path('tiny.bin');
  writeFileSync(tinyFile, new Uint8Array(1024));
  const [tiny] = chunkEncodeTimes(tinyFile, numShards);
  // The same push to a `git walrus devnet` server of `numShards` shards: the helper's memory without the network's.
  const serverState = `devnet-state-${numShards}`;
  await createWalrusService(world.path(serverState, 'walrus'), { numShards }).epochClock();
  const server = await startDevnet(world, [], serverState);
  let serverRssMb: number;
  let warm: { helperMb: number; daemonMb: number };
  try {
    const serverEnv = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url };
    const serverUrl = await walrusInit(world, 'many', `many-${numShards}-server`, ['--remote', `walrus${numShards}-server`], { env: serverEnv });
    world.takeStats();
    await timed(`git push --mirror (${numShards} shards, devnet server)`, () => world.ok('many', ['push', '-q', '--mirror', serverUrl], { env: serverEnv }));
    serverRssMb = sum(world.takeStats()).maxRssMb;
    // Again with the warm encoder running and built for the shard count: the encoder's memory is then the daemon's.
    const daemon = await runningWarmEncoder(encoderSocket(world.env.GIT_WALRUS_HOME!), numShards);
    try {
      const warmUrl = await walrusInit(world, 'many', `many-${numShards}-warm`, ['--remote', `walrus${numShards}-warm`], { env: serverEnv });
      world.takeStats();
      await timed(`git push --mirror (${numShards} shards, devnet server, warm encoder)`, () => world.ok('many', ['push', '-q', '--mirror', warmUrl], { env: { ...serverEnv, GIT_WALRUS_WARM_ENCODER: 'true' } }));
      warm = { helperMb: sum(world.takeStats()).maxRssMb, daemonMb: await daemon.rssMb() };
    } finally {
      await daemon.stop();
    }
  } finally {
    await server.stop();
  }
  const median = [...results].sort((a, b) => a.helperPush / a.limit - b.helperPush / b.limit)[(results.length - 1) >> 1]!;
  const rssMb = Math.max(...results.map((r) => sum(r.lines).maxRssMb));
  console.log(`  at ${numShards} shards (median of ${results.length} round(s)): ${median.detail} (a 1 KiB blob: ${tiny.toFixed(2)} s)`);
  console.log(`  helper ${median.helperPush.toFixed(2)} s = ${(median.helperPush / median.limit).toFixed(2)}x the limit (target <= 1.2x), ${(median.helperPush / nativePush).toFixed(2)}x native push; helper peak RSS ${rssMb.toFixed(0)} MB with the embedded network's Walrus in it, ${serverRssMb.toFixed(0)} MB pushing to a devnet server (target <= 150 MB), ${warm.helperMb.toFixed(0)} MB with the warm encoder (its daemon ${warm.daemonMb.toFixed(0)} MB)`);
  console.log(`  breakdown: ${breakdown(median.lines, PUSH_PHASES)}`);
  console.log(`  timeline: ${timeline(median.lines)}`);
}

/** The smallest of three measurements (seconds), as the floor under load. */
async function bestOf3(measure: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) times.push(await measure());
  return Math.min(...times);
}

/** The blob-id time of each chunk of `file` at `numShards`, in a process of its own (bench/git/chunk-encode-times.ts says why). */
function chunkEncodeTimes(file: string, numShards: number): number[] {
  const measured = spawnSync(process.execPath, [fileURLToPath(new URL('git/chunk-encode-times.ts', import.meta.url)), file, String(numShards)], { encoding: 'utf8' });
  if (measured.status !== 0) throw new Error(`bench/git/chunk-encode-times.ts failed: ${measured.stderr}`);
  return JSON.parse(measured.stdout) as number[];
}

/**
 * When the helper reached each step of a push, s since it started (its GIT_WALRUS_STATS marks and spans): what lies
 * on the path from exec to the answer, and what overlaps (bench/latency.ts prints it for each one-commit push too).
 */
export function timeline(stats: Stats[]): string {
  const helper = stats.find((s) => s.role === 'helper' && s.spans?.['local.packObjects']);
  if (!helper) return 'no push by a helper';
  const spans = helper.spans ?? {};
  const at = (ms: number | undefined) => (ms === undefined ? '?' : `${(ms / 1000).toFixed(2)} s`);
  return [
    `network open ${at(helper.marks?.network)}`,
    `refs listed ${at(helper.marks?.listed)} (${helper.chainReads} chain reads in all)`,
    `git packing ${at(spans['local.packObjects']?.[0])}`,
    `pack written ${at(spans['local.packObjects.size']?.[1])}`,
    `chunks stored ${at(spans['blobStore.write']?.[1])} (the helper's blob ids: ${at(helper.encodeMs)} of encoding, beside the upload)`,
    `transaction ${at(spans['ledger.push']?.[0])} to ${at(spans['ledger.push']?.[1])}`,
    `exit ${at(helper.marks?.exit)}`,
  ].join(', ');
}

/** Starts the helper as git does and asks for its capabilities only: the cost of a helper process's start. */
async function helperCapabilities(world: World, url: string): Promise<void> {
  const child = spawn('git-remote-walrus', ['origin', url], { cwd: world.root, env: world.env, stdio: ['pipe', 'ignore', 'inherit'] });
  child.stdin.end('capabilities\n\n');
  const code = await new Promise((resolve, reject) => child.on('error', reject).on('close', resolve));
  if (code !== 0) throw new Error(`git-remote-walrus exited with ${code}`);
}

/** Whether bin/run-node runs the compiled dist/ (what an install runs) or the .ts sources (dist/ missing or stale). */
function helperBuild(): string {
  const root = new URL('..', import.meta.url).pathname;
  const stamp = `${root}dist/.built`;
  if (!existsSync(stamp)) return 'the .ts sources (no build: run npm run build, or npm run bench)';
  const newer = spawnSync('find', [`${root}src`, '-newer', stamp, '-print', '-quit'], { encoding: 'utf8' }).stdout.trim();
  return newer === '' ? 'dist/ (build current)' : `the .ts sources (dist/ is older than ${newer}: run npm run build)`;
}

const fmtMb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function run(short: boolean): Promise<void> {
  const shapes = short ? SHORT : FULL;
  const world = createWorld('walrus-bench-');
  try {
    console.log(`git-remote-walrus benchmark (${short ? 'short' : 'full'} mode); the helper runs ${helperBuild()}`);
    await generate(world, 'src', shapes.history, 1);
    const loose = Number((await world.ok('.', ['-C', 'src', 'ls-files', '-s'])).split('\n').length);
    const treeBytes = Number(await world.ok('.', ['-C', 'src', 'ls-tree', '-r', '-l', 'HEAD']).then((t) => t.split('\n').reduce((n, l) => n + Number(l.split(/\s+/)[3]), 0)));
    await world.ok('src', ['gc', '-q']);
    const packBytes = Number((await world.ok('src', ['count-objects', '-v'])).match(/size-pack: (\d+)/)?.[1] ?? 0) * 1024;
    console.log(`repository: ${shapes.history.commits} commits, ${loose} files, ${fmtMb(treeBytes)} checked out, ${fmtMb(packBytes)} packed`);

    console.log('full push and clone:');
    // HEAD must name the pushed branch, or the native clone would skip the checkout the helper's clone does.
    await world.ok('.', ['init', '-q', '--bare', '--initial-branch=main', 'native.git']);
    const nativePush = await timed('git push file:// (native)', () => world.ok('src', ['push', '-q', `file://${world.path('native.git')}`, 'main']));
    const nativeClone = await timed('git clone file:// (native)', () => world.ok('.', ['clone', '-q', `file://${world.path('native.git')}`, 'native-clone']));
    const url = await walrusInit(world, 'src', 'bench');
    world.takeStats();
    const helperPush = await timed('git push walrus (helper)', () => world.ok('src', ['push', '-q', 'walrus', 'main']));
    const pushStats = sum(world.takeStats());
    const helperClone = await timed('git clone walrus:// (helper)', () => world.ok('.', ['clone', '-q', url, 'walrus-clone']));
    const cloneStats = sum(world.takeStats());
    if ((await refsOf(world, 'walrus-clone', 'refs/remotes/')) === '') throw new Error('the clone has no refs');
    // Both clones must have done the same work: the same commit checked out.
    const checkedOut = async (dir: string) => world.ok(dir, ['rev-parse', '--verify', 'HEAD']).catch(() => 'nothing');
    if ((await checkedOut('native-clone')) !== (await checkedOut('walrus-clone'))) throw new Error('the native and helper clones did not check out the same commit');
    // The ratio targets are for the full-size repository: on the short one, process start-up dominates both sides.
    const ratioNote = (target: string) => (short ? `target ${target} applies to the full mode` : `target ${target}`);
    console.log(`  push ratio  ${(helperPush / nativePush).toFixed(2)}x native (${ratioNote('<= 1.5x')})`);
    console.log(`  clone ratio ${(helperClone / nativeClone).toFixed(2)}x native (${ratioNote('<= 1.3x')})`);
    console.log(`  full push: ${pushStats.blobWrites} blob writes, ${fmtMb(pushStats.bytesWritten)} stored, ${pushStats.transactions} transaction(s), ${pushStats.chainReads} chain reads`);
    console.log(`  clone: ${cloneStats.blobReads} blob reads, ${cloneStats.chainReads} chain reads`);

    await manyRefComparison(world, shapes.manyRefs, ratioNote);

    console.log('incremental one-commit push:');
    await world.ok('src', ['commit', '-q', '--allow-empty', '-m', 'placeholder']);
    world.takeStats();
    writeFileSync(world.path('src', 'src', 'module0.ts'), `${sourceLine(prng(7))}\n`, { flag: 'a' });
    await world.ok('src', ['commit', '-q', '-am', 'one more change']);
    world.takeStats();
    await timed('git push walrus (one commit)', () => world.ok('src', ['push', '-q', 'walrus', 'main']));
    const inc = sum(world.takeStats());
    console.log(`  ${inc.blobWrites} blob write(s), ${inc.bytesWritten} bytes stored, ${inc.transactions} transaction(s), ${inc.chainReads} chain reads (target: 1 blob write + 1 transaction)`);

    console.log('no-op fetch:');
    await world.ok('walrus-clone', ['fetch', '-q']);
    world.takeStats();
    await timed('git fetch (nothing new)', () => world.ok('walrus-clone', ['fetch', '-q']));
    const noop = sum(world.takeStats());
    console.log(`  ${noop.chainReads} chain reads, ${noop.blobReads} blob reads, ${noop.transactions} transactions (target: 1 chain read, 0 blob reads: ${noop.chainReads === 1 && noop.blobReads === 0 ? 'met' : 'NOT met'})`);

    console.log('peak RSS on a large repository:');
    await generate(world, 'large', shapes.large, 2);
    const largeBytes = Number(await world.ok('.', ['-C', 'large', 'ls-tree', '-r', '-l', 'HEAD']).then((t) => t.split('\n').reduce((n, l) => n + Number(l.split(/\s+/)[3]), 0)));
    // Against a `git walrus devnet` server, so the figure is the helper alone (on `local` the network runs inside
    // the helper process and its memory counts too: both are printed).
    const devnet = await startDevnet(world);
    const devnetEnv = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: devnet.url };
    try {
      for (const [label, env] of [['devnet server', devnetEnv], ['embedded local', {}]] as const) {
        const name = `large-${label.split(' ')[0]}`;
        const largeUrl = (await world.ok('large', ['walrus', 'init', name, '--remote', name], { env })).split('\n').at(-1)!;
        world.takeStats();
        await timed(`git push (${fmtMb(largeBytes)} tree, ${label})`, () => world.ok('large', ['push', '-q', name, 'main'], { env }));
        const largePush = sum(world.takeStats());
        await timed(`git clone (${label})`, () => world.ok('.', ['clone', '-q', largeUrl, `${name}-clone`], { env }));
        const largeClone = sum(world.takeStats());
        console.log(`  ${label}: pack ${fmtMb(largePush.bytesWritten)} in ${largePush.blobWrites} chunk(s); helper peak RSS push ${largePush.maxRssMb.toFixed(0)} MB, clone ${largeClone.maxRssMb.toFixed(0)} MB (target <= 150 MB)`);
      }
    } finally {
      await devnet.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
    }
  } finally {
    world.remove();
  }
}

/** `node bench/git.ts --medium [--short]`: the medium case alone (push, clone, breakdown, 1000 shards). */
async function runMedium(short: boolean): Promise<void> {
  const world = createWorld('walrus-bench-');
  try {
    console.log(`git-remote-walrus medium case (${short ? 'short' : 'full'} mode); the helper runs ${helperBuild()}`);
    await manyRefComparison(world, (short ? SHORT : FULL).manyRefs, (target) => `target ${target}`);
  } finally {
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const short = process.argv.includes('--short');
  await (process.argv.includes('--medium') ? runMedium(short) : run(short));
  process.exit(0); // the blob-id worker and keep-alive sockets must not hold the process open
}
