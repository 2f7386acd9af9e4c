/**
 * A real network's distance: `node bench/latency.ts [--short] [--rounds=N] [--direct]` (`--direct`: the SDK's direct
 * mode only). The helper talks to a `git walrus devnet`
 * server (Sui gRPC, the Walrus publisher and aggregator, the faucet: one port) through a proxy that delays every chunk
 * 25 ms each way (a 50 ms round trip, as to a public RPC and publisher from another city); in the SDK's direct mode
 * each storage node is behind a proxy of its own too, the committee naming the proxies' addresses
 * (`--storage-node-address`). The baseline is native git over smart HTTP (`git http-backend`) behind the same
 * distance, as a git host would serve it. Printed for each way of reaching Walrus: the push of a project's history, a
 * one-commit push (with where each of the helper's went, step by step), a clone and, in full mode, the mirror push of
 * the project's hundreds of refs (the medium push), each both ways (medians of a few rounds), with the connections
 * each opened. Through
 * the publisher, the server encodes; in direct mode the helper's SDK encodes and writes every sliver itself. The
 * helper computes each blob's id itself either way, to check what was stored.
 */
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { commit, createWorld, startDevnet, walrusInit, type World } from '../scripts/harness/world.ts';
import { createWalrusService } from '../src/devnet/walrus/service.ts';
import { WAL_FAUCET_PATH } from '../src/core/devnet-protocol.ts';
import { addRefs, generate, timeline, EXPRESS, EXPRESS_SHORT, type Stats } from './git.ts';
import { startLatencyProxy, storageNodeProxies, type LatencyProxy } from './network/latency-proxy.ts';
import { startSmartHttp } from './network/smart-http.ts';

const ONE_WAY_MS = 25;

async function seconds(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return (performance.now() - started) / 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs `measure` `rounds` times, interleaving both sides, and prints each side's median with the ratio. */
async function compare(what: string, rounds: number, sides: { helper: (round: number) => Promise<number>; native: (round: number) => Promise<number> }, connectionsOf: { helper: () => number; native: () => number }): Promise<void> {
  const times = { helper: [] as number[], native: [] as number[] };
  const connections = { helper: 0, native: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const side of ['native', 'helper'] as const) {
      const before = connectionsOf[side]();
      times[side].push(await sides[side](round));
      connections[side] = connectionsOf[side]() - before;
    }
  }
  const [helper, native] = [median(times.helper), median(times.native)];
  console.log(`    ${what}: helper ${helper.toFixed(2)} s (${connections.helper} connections), smart HTTP ${native.toFixed(2)} s (${connections.native} connections): ${(helper / native).toFixed(2)}×` +
    `  [rounds: helper ${times.helper.map((t) => t.toFixed(2)).join(', ')}; native ${times.native.map((t) => t.toFixed(2)).join(', ')}]`);
}

/** A way the helper reaches Walrus, with the environment that selects it and the connections it opened so far. */
interface HelperPath {
  label: string;
  env: Record<string, string>;
  connections(): number;
  stop(): Promise<void>;
}

/** A `git walrus devnet` server of `numShards` shards (its state created at that count first), behind a proxy. */
async function devnetBehindProxy(world: World, numShards: number, extra: string[] = []): Promise<{ proxy: LatencyProxy; printed: string; stop(): Promise<void> }> {
  const stateDir = `devnet-state-${numShards}${extra.length ? '-nodes' : ''}`;
  // A devnet's shard count is fixed when its state directory is created.
  await createWalrusService(world.path(stateDir, 'walrus'), { numShards }).epochClock();
  const devnet = await startDevnet(world, extra, stateDir);
  const proxy = await startLatencyProxy({ host: '127.0.0.1', port: Number(new URL(devnet.url).port) }, ONE_WAY_MS);
  return { proxy, printed: devnet.printed, stop: async () => { await proxy.close(); await devnet.stop(); } };
}

/** Writes through the devnet server's publisher, reads through its aggregator (testnet's way). */
async function publisherPath(world: World, numShards: number): Promise<HelperPath> {
  const { proxy, stop } = await devnetBehindProxy(world, numShards);
  return {
    label: `publisher and aggregator, ${numShards} shards`,
    env: { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: proxy.url },
    connections: () => proxy.connections,
    stop,
  };
}

/**
 * The SDK's direct mode (mainnet's way without a relay): `nodes` storage nodes, each behind a proxy of its own whose
 * address the committee names, so every sliver, confirmation and read pays the distance, as the chain's reads do.
 */
async function directPath(world: World, numShards: number, nodes: number): Promise<HelperPath> {
  const { proxies: nodeProxies, devnetArgs, follow } = await storageNodeProxies(nodes, ONE_WAY_MS);
  const devnet = await devnetBehindProxy(world, numShards, devnetArgs);
  follow(devnet.printed);
  const env = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: devnet.proxy.url, GIT_WALRUS_DIRECT: 'true' };
  // The SDK pays for storage in WAL from the key's own coins.
  const address = /^(0x[0-9a-f]{64})$/m.exec(await world.ok('.', ['walrus', 'whoami'], { env }))![1]!;
  const wal = await fetch(new URL(WAL_FAUCET_PATH, devnet.proxy.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient: address } }) });
  if (!wal.ok) throw new Error(`the devnet's WAL faucet answered ${wal.status}`);
  return {
    label: `direct to ${nodes} storage nodes, ${numShards} shards`,
    env,
    connections: () => devnet.proxy.connections + nodeProxies.reduce((sum, proxy) => sum + proxy.connections, 0),
    stop: async () => { await Promise.all(nodeProxies.map((proxy) => proxy.close())); await devnet.stop(); },
  };
}

/** The three comparisons through one helper path, each against native git over smart HTTP behind the same distance. */
async function compareThrough(world: World, path: HelperPath, native: LatencyProxy, rounds: number, commits: number, mirror: number | null): Promise<void> {
  console.log(`  ${path.label}:`);
  const env = path.env;
  const tag = path.label.replace(/[^a-z0-9]+/g, '-');
  const helperRemote = async (name: string) => walrusInit(world, 'project', name, ['--remote', name], { env });
  const nativeRemote = async (name: string) => {
    await world.ok('.', ['init', '-q', '--bare', `bare/${name}.git`]);
    await world.ok(`bare/${name}.git`, ['config', 'http.receivepack', 'true']);
    return `${native.url}/${name}.git`;
  };
  const sides = { helper: path.connections, native: () => native.connections };
  const remotes: { helper: string[]; native: string[] } = { helper: [], native: [] };
  await compare(`push of the history (${commits}+ commits)`, rounds, {
    helper: async (round) => { const url = await helperRemote(`${tag}-${round}`); remotes.helper.push(url); return seconds(() => world.ok('project', ['push', '-q', url, 'main'], { env })); },
    native: async (round) => { const url = await nativeRemote(`${tag}-${round}`); remotes.native.push(url); return seconds(() => world.ok('project', ['push', '-q', url, 'main'])); },
  }, sides);
  const steps: string[] = [];
  await compare('one-commit push', rounds, {
    // The native side goes first in each round: it makes the commit both then push.
    native: async (round) => {
      edits++;
      await commit(world, 'project', 'latency.txt', `edit ${edits}\n`, `edit ${edits}`);
      return seconds(() => world.ok('project', ['push', '-q', remotes.native[round]!, 'main']));
    },
    helper: async (round) => {
      world.takeStats();
      const time = await seconds(() => world.ok('project', ['push', '-q', remotes.helper[round]!, 'main'], { env }));
      steps.push(timeline(world.takeStats() as Stats[]));
      return time;
    },
  }, sides);
  // Where each helper push's time went, s since its process started: what waits on what.
  for (const [round, line] of steps.entries()) console.log(`      round ${round + 1}: ${line}`);
  await compare('clone', rounds, {
    helper: async (round) => seconds(() => world.ok('.', ['clone', '-q', remotes.helper[round]!, `clone-${++clones}`], { env })),
    native: async (round) => seconds(() => world.ok('.', ['clone', '-q', remotes.native[round]!, `clone-${++clones}`])),
  }, sides);
  if (!mirror) return;
  await compare(`mirror push (${mirror} refs)`, rounds, {
    helper: async (round) => { const url = await helperRemote(`${tag}-mirror-${round}`); return seconds(() => world.ok('project', ['push', '-q', '--mirror', url], { env })); },
    native: async (round) => { const url = await nativeRemote(`${tag}-mirror-${round}`); return seconds(() => world.ok('project', ['push', '-q', '--mirror', url])); },
  }, sides);
}

let edits = 0;
let clones = 0;

/**
 * Full mode: the devnet's 50 shards through its publisher, then 1000 shards (testnet's and mainnet's) through the
 * publisher and direct to eleven storage nodes (the devnet's fewest). Short mode: 50 shards both ways, one round.
 */
export async function run(short: boolean, rounds = short ? 1 : 3, directOnly = false): Promise<void> {
  const world = createWorld('walrus-bench-latency-');
  const bare = world.path('bare');
  mkdirSync(bare);
  const smartHttp = await startSmartHttp(bare, world.env);
  const native = await startLatencyProxy({ host: '127.0.0.1', port: smartHttp.port }, ONE_WAY_MS);
  const direct = () => directPath(world, short ? 50 : 1000, 11);
  const paths: (() => Promise<HelperPath>)[] = directOnly ? [direct]
    : short ? [() => publisherPath(world, 50), direct]
    : [() => publisherPath(world, 50), () => publisherPath(world, 1000), direct];
  try {
    console.log(`  ${ONE_WAY_MS} ms each way (a ${2 * ONE_WAY_MS} ms round trip) to the devnet server, to each storage node and to git http-backend; medians of ${rounds} round(s)`);
    const spec = short ? EXPRESS_SHORT : EXPRESS;
    await generate(world, 'project', spec.shape, 7);
    // The medium push, full mode only (a pack of the whole history per round and path): the project's branches and
    // tags mirrored, which the history push of main leaves out.
    const mirror = short ? null : (await addRefs(world, 'project', spec), (await world.ok('project', ['for-each-ref', '--format=%(refname)'])).split('\n').length);
    for (const start of paths) {
      const path = await start();
      try {
        await compareThrough(world, path, native, rounds, spec.shape.commits, mirror);
      } finally {
        await path.stop();
      }
    }
  } finally {
    await native.close();
    await smartHttp.close();
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const rounds = /^--rounds=(\d+)$/.exec(process.argv.find((arg) => arg.startsWith('--rounds=')) ?? '')?.[1];
  await run(process.argv.includes('--short'), rounds === undefined ? undefined : Number(rounds), process.argv.includes('--direct'));
  process.exit(0); // the blob-id worker and keep-alive sockets must not hold the process open
}
