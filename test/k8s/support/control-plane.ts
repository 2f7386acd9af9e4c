/**
 * Gives Kubernetes tests a real control plane: started once per test run (the first test to ask pays),
 * torn down when the process exits. Each test file gets its own namespace and its own fake kubelet.
 *
 *   const cluster = testCluster('deployments');
 *   rollout.after(() => cluster.stop());
 *   rollout('...', async () => { const { kc, namespace } = await cluster.get(); ... });
 *
 * `get()` rejects with the reason when the plane cannot start, so every test asking for it fails loudly
 * (uvu would swallow an error thrown from a `before` hook, which is why the plane is not started there).
 */
import { randomBytes } from 'node:crypto';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ensureBinaries, killControlPlaneSync, startControlPlane } from '../../../scripts/k8s/control-plane.ts';
import type { ControlPlane } from '../../../scripts/k8s/control-plane.ts';
import { FakeKubelet } from './fake-kubelet.ts';
import type { FakeKubeletOptions } from './fake-kubelet.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
let shared: Promise<ControlPlane> | undefined;

/** The run's control plane, started on first use. */
export function sharedControlPlane(): Promise<ControlPlane> {
  shared ??= (async () => {
    const started = Date.now();
    const binDir = await ensureBinaries();
    log(`k8s: binaries ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
    const plane = await startControlPlane({ binDir, dieWithParent: true, log });
    process.once('exit', () => killControlPlaneSync(plane.dir));
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        killControlPlaneSync(plane.dir);
        process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[signal]);
      });
    }
    return plane;
  })();
  return shared;
}

/** An admin KubeConfig for the run's control plane. */
export async function kubeConfig(): Promise<KubeConfig> {
  const kc = new KubeConfig();
  kc.loadFromFile((await sharedControlPlane()).kubeconfigPath);
  return kc;
}

export interface TestCluster {
  kc: KubeConfig;
  /** A fresh namespace whose `default` service account already has its token, so pods are admitted at once. */
  namespace: string;
  kubelet: FakeKubelet;
}

export interface TestClusterHandle {
  get(): Promise<TestCluster>;
  /** Stops the kubelet and deletes the namespace; safe to call when `get` was never called or failed. */
  stop(): Promise<void>;
}

/** A namespace and a fake kubelet on the shared plane, made on first `get()`. */
export function testCluster(name: string, kubelet: Partial<FakeKubeletOptions> = {}): TestClusterHandle {
  let made: Promise<TestCluster> | undefined;
  return {
    get: () => (made ??= makeTestCluster(name, kubelet)),
    async stop() {
      const cluster = await made?.catch(() => undefined);
      if (!cluster) return;
      await cluster.kubelet.stop();
      await cluster.kc.makeApiClient(CoreV1Api).deleteNamespace({ name: cluster.namespace }).catch(() => {});
    },
  };
}

async function makeTestCluster(name: string, options: Partial<FakeKubeletOptions>): Promise<TestCluster> {
  const kc = await kubeConfig();
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = `${name}-${randomBytes(3).toString('hex')}`;
  await core.createNamespace({ body: { metadata: { name: namespace } } });
  await waitFor(`service account token in namespace ${namespace}`, async () => {
    const account = await core.readNamespacedServiceAccount({ name: 'default', namespace }).catch(() => undefined);
    return (account?.secrets?.length ?? 0) > 0;
  });
  const kubelet = new FakeKubelet(kc, { nodeName: `node-${namespace}`, log, ...options });
  await kubelet.start();
  return { kc, namespace, kubelet };
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
