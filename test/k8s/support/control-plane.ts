/**
 * Gives Kubernetes tests a real cluster: one node network, control plane, process kubelet and
 * kube-proxy per test run (the first test to ask pays), shared by every test file; each file gets its
 * own namespace on the one node. Files that need several nodes ask for them (`{ nodes: 3 }`) and share
 * a cluster of that many, started and stopped the same way.
 *
 *   const cluster = testCluster('deployments');
 *   rollout.after(() => cluster.stop());
 *   rollout('...', async () => { const { kc, namespace } = await cluster.get(); ... });
 *
 * `get()` rejects with the reason when the cluster cannot start (no root, no namespaces, no iptables,
 * a component failing), so every test asking for it fails loudly and none is skipped (uvu would swallow
 * an error thrown from a `before` hook, which is why the cluster is not started there).
 *
 * The run is removed when the last handle made by testCluster() is stopped (every file stops its own
 * in `after`, failed tests included), and otherwise as the process exits: on SIGINT/SIGTERM/SIGHUP it
 * is stopped in order, and on any other end (kill -9 included) the process's watchdog (scripts/harness/reaper.ts) runs the
 * sweep once this process is gone.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startCluster } from '../../cluster/node/node.ts';
import { runAfterExit } from '../../../scripts/harness/reaper.ts';
import type { Cluster } from '../../cluster/node/node.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const SWEEPER = fileURLToPath(new URL('../../cluster/node/sweep.ts', import.meta.url));

/** One shared cluster per node count: the one-node cluster most files use, and a multi-node one for node-loss tests. */
interface Shared {
  cluster?: Promise<Cluster>;
  stopped?: Promise<void>;
  openHandles: number;
}
const clusters = new Map<number, Shared>();
let exitHandlersInstalled = false;
const sharedOf = (nodes: number): Shared => {
  let entry = clusters.get(nodes);
  if (!entry) clusters.set(nodes, entry = { openHandles: 0 });
  return entry;
};

/** The run's cluster of `nodes` nodes (1 by default), started on first use. */
export function sharedCluster(nodes = 1): Promise<Cluster> {
  const entry = sharedOf(nodes);
  if (entry.stopped) return Promise.reject(new Error(`the test run's ${nodes}-node cluster was already stopped (every testCluster handle was stopped)`));
  entry.cluster ??= (async () => {
    installExitHandlers();
    return startCluster({ log, nodes });
  })();
  return entry.cluster;
}

function stopShared(entry: Shared): Promise<void> {
  entry.stopped ??= (async () => {
    const cluster = await entry.cluster?.catch(() => undefined);
    await cluster?.stop();
  })();
  return entry.stopped;
}

function installExitHandlers(): void {
  if (exitHandlersInstalled) return;
  exitHandlersInstalled = true;
  // However this process ends (kill -9 included), the run is removed once it is gone.
  runAfterExit([process.execPath, SWEEPER, '--after', String(process.pid)]);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      const code = 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[signal];
      // A stop that hangs is cut short; the exit handler's sweeper then finishes the job.
      setTimeout(() => process.exit(code), 20_000).unref();
      Promise.all([...clusters.values()].map(stopShared)).finally(() => process.exit(code));
    });
  }
}

/** An admin KubeConfig for the run's cluster of `nodes` nodes. */
export async function kubeConfig(nodes = 1): Promise<KubeConfig> {
  const kc = new KubeConfig();
  kc.loadFromFile((await sharedCluster(nodes)).plane.kubeconfigPath);
  return kc;
}

export interface TestCluster {
  kc: KubeConfig;
  /** A fresh namespace whose `default` service account already has its token, so pods are admitted at once. */
  namespace: string;
  /** The run's cluster: its first node's name and network (hostIp for servers pods must reach, podCidr, serviceCidr), every node, kubectl. */
  cluster: Cluster;
  /** What the named pod's containers printed so far (one log per pod, lines prefixed with the container name). */
  podLog(name: string): Promise<string>;
}

export interface TestClusterHandle {
  get(): Promise<TestCluster>;
  /** Deletes the namespace; the last handle stopped also stops the run's cluster. Safe when `get` never ran or failed. */
  stop(): Promise<void>;
}

/**
 * A namespace on the run's shared cluster, made on first `get()`. `nodes` picks a cluster of that many nodes
 * (every file asking for the same count shares one; a test that kills a node starts it again before it ends).
 */
export function testCluster(name: string, options: { nodes?: number } = {}): TestClusterHandle {
  const nodes = options.nodes ?? 1;
  const entry = sharedOf(nodes);
  let made: Promise<TestCluster> | undefined;
  let open = true;
  entry.openHandles++;
  return {
    get: () => (made ??= makeTestCluster(name, nodes)),
    async stop() {
      if (!open) return;
      open = false;
      const test = await made?.catch(() => undefined);
      await test?.kc.makeApiClient(CoreV1Api).deleteNamespace({ name: test.namespace }).catch(() => {});
      if (--entry.openHandles === 0) await stopShared(entry);
    },
  };
}

async function makeTestCluster(name: string, nodes: number): Promise<TestCluster> {
  const cluster = await sharedCluster(nodes);
  const kc = await kubeConfig(nodes);
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = `${name}-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await waitFor(`service account token in namespace ${namespace}`, async () => {
    const account = await core.readNamespacedServiceAccount({ name: 'default', namespace }).catch(() => undefined);
    return (account?.secrets?.length ?? 0) > 0;
  });
  // The log is on the node that runs (or ran) the pod.
  const podLog = async (pod: string) =>
    (await Promise.all(cluster.nodes.map((node) => readFile(node.podLogPath(namespace, pod), 'utf8').catch(() => '')))).join('');
  return { kc, namespace, cluster, podLog };
}

/**
 * Polls until `probe` returns something other than undefined/false, and returns it. On timeout it throws
 * with `what` and the last value seen, so a failing test says what it was waiting for.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      last = value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what} (last: ${last instanceof Error ? last.message : JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
