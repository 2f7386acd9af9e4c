/**
 * A real network's distance: `node bench/latency.ts [--short]`. The helper talks to a `git walrus devnet` server
 * (Sui gRPC, the Walrus publisher and aggregator, the Seal key servers: one port) through a proxy that delays every
 * chunk 25 ms each way (a 50 ms round trip, as to a public RPC and publisher from another city); the baseline is
 * native git over smart HTTP (`git http-backend`) behind the same proxy, as a git host would serve it. Printed: a
 * one-commit push, the push of a project's history and a clone, each both ways (medians of a few rounds), with the
 * connections each opened. Walrus writes go through the server's publisher, which encodes on its side; the helper
 * still computes each blob's id itself to check what the publisher stored.
 */
import { mkdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { commit, createWorld, startDevnet, walrusInit } from '../scripts/harness/world.ts';
import { generate, EXPRESS, EXPRESS_SHORT } from './git.ts';
import { startLatencyProxy, type LatencyProxy } from './network/latency-proxy.ts';
import { startSmartHttp } from './network/smart-http.ts';

const ONE_WAY_MS = 25;

async function seconds(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return (performance.now() - started) / 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs `measure` `rounds` times, interleaving both sides, and prints each side's median with the ratio. */
async function compare(what: string, rounds: number, sides: { helper: (round: number) => Promise<number>; native: (round: number) => Promise<number> }, proxies: { helper: LatencyProxy; native: LatencyProxy }): Promise<void> {
  const times = { helper: [] as number[], native: [] as number[] };
  const connections = { helper: 0, native: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const side of ['native', 'helper'] as const) {
      const before = proxies[side].connections;
      times[side].push(await sides[side](round));
      connections[side] = proxies[side].connections - before;
    }
  }
  const [helper, native] = [median(times.helper), median(times.native)];
  console.log(`  ${what}: helper ${helper.toFixed(2)} s (${connections.helper} connections), smart HTTP ${native.toFixed(2)} s (${connections.native} connections): ${(helper / native).toFixed(2)}×` +
    `  [rounds: helper ${times.helper.map((t) => t.toFixed(2)).join(', ')}; native ${times.native.map((t) => t.toFixed(2)).join(', ')}]`);
}

export async function run(short: boolean): Promise<void> {
  const world = createWorld('walrus-bench-latency-');
  const devnet = await startDevnet(world);
  const walrusProxy = await startLatencyProxy({ host: '127.0.0.1', port: Number(new URL(devnet.url).port) }, ONE_WAY_MS);
  const bare = world.path('bare');
  mkdirSync(bare);
  const smartHttp = await startSmartHttp(bare, world.env);
  const httpProxy = await startLatencyProxy({ host: '127.0.0.1', port: smartHttp.port }, ONE_WAY_MS);
  const proxies = { helper: walrusProxy, native: httpProxy };
  const env = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: walrusProxy.url };
  const rounds = short ? 1 : 3;
  try {
    console.log(`  ${ONE_WAY_MS} ms each way (a ${2 * ONE_WAY_MS} ms round trip) to the devnet server and to git http-backend; medians of ${rounds} round(s)`);
    const spec = short ? EXPRESS_SHORT : EXPRESS;
    await generate(world, 'project', spec.shape, 7);
    // One repository per round and side: each push starts from nothing there.
    const helperRemote = async (name: string) => walrusInit(world, 'project', name, ['--remote', name], { env });
    const nativeRemote = async (name: string) => {
      await world.ok('.', ['init', '-q', '--bare', `bare/${name}.git`]);
      await world.ok(`bare/${name}.git`, ['config', 'http.receivepack', 'true']);
      return `${httpProxy.url}/${name}.git`;
    };
    const remotes: { helper: string[]; native: string[] } = { helper: [], native: [] };
    await compare(`push of the history (${spec.shape.commits} commits)`, rounds, {
      helper: async (round) => { const url = await helperRemote(`history-${round}`); remotes.helper.push(url); return seconds(() => world.ok('project', ['push', '-q', url, 'main'], { env })); },
      native: async (round) => { const url = await nativeRemote(`history-${round}`); remotes.native.push(url); return seconds(() => world.ok('project', ['push', '-q', url, 'main'])); },
    }, proxies);
    let edits = 0;
    await compare('one-commit push', rounds, {
      // The native side goes first in each round: it makes the commit both then push.
      native: async (round) => {
        await commit(world, 'project', 'latency.txt', `edit ${++edits}\n`, `edit ${edits}`);
        return seconds(() => world.ok('project', ['push', '-q', remotes.native[round]!, 'main']));
      },
      helper: async (round) => seconds(() => world.ok('project', ['push', '-q', remotes.helper[round]!, 'main'], { env })),
    }, proxies);
    let clones = 0;
    await compare('clone', rounds, {
      helper: async (round) => seconds(() => world.ok('.', ['clone', '-q', remotes.helper[round]!, `clone-${++clones}`], { env })),
      native: async (round) => seconds(() => world.ok('.', ['clone', '-q', remotes.native[round]!, `clone-${++clones}`])),
    }, proxies);
  } finally {
    await httpProxy.close();
    await smartHttp.close();
    await walrusProxy.close();
    await devnet.stop();
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  await run(process.argv.includes('--short'));
  process.exit(0); // the blob-id worker and keep-alive sockets must not hold the process open
}
