/** Helpers for tests that run real pods on the process kubelet. */
import { readdirSync, readFileSync } from 'node:fs';
import { CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Container, V1ContainerStatus, V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { waitFor } from './control-plane.ts';

/** A container on the `node:22` image (the project's Node 22) running a shell command. */
export function shell(name: string, script: string, extra: Partial<V1Container> = {}): V1Container {
  return { name, image: 'node:22', command: ['sh', '-c', script], ...extra };
}

/** A bare pod that opts out of the service-account token (these tests do not need it). */
export function pod(name: string, spec: Partial<V1PodSpec> & Pick<V1PodSpec, 'containers'>): V1Pod {
  return { metadata: { name }, spec: { automountServiceAccountToken: false, terminationGracePeriodSeconds: 5, ...spec } };
}

export async function createPod(kc: KubeConfig, namespace: string, body: V1Pod): Promise<V1Pod> {
  return kc.makeApiClient(CoreV1Api).createNamespacedPod({ namespace, body });
}

export async function readPod(kc: KubeConfig, namespace: string, name: string): Promise<V1Pod> {
  return kc.makeApiClient(CoreV1Api).readNamespacedPod({ name, namespace });
}

/** The status of the pod's first container, as the kubelet last reported it. */
export async function firstContainer(kc: KubeConfig, namespace: string, name: string): Promise<V1ContainerStatus | undefined> {
  return (await readPod(kc, namespace, name)).status?.containerStatuses?.[0];
}

/** Waits until the pod is Succeeded or Failed and returns it. */
export function finishedPod(kc: KubeConfig, namespace: string, name: string, timeoutMs = 60_000): Promise<V1Pod> {
  return waitFor(`pod ${name} finished`, async () => {
    const p = await readPod(kc, namespace, name);
    return (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') && p;
  }, timeoutMs);
}

/** The log lines one container printed (the pod log prefixes each with the container's name). */
export function containerLines(podLog: string, container: string): string[] {
  return podLog.split('\n').filter((line) => line.startsWith(`${container} `)).map((line) => line.slice(container.length + 1));
}

/** PIDs of processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  }).map(Number);
}

/** Creates the pod and waits until it runs with an address. */
export async function runningPod(kc: KubeConfig, namespace: string, body: V1Pod): Promise<V1Pod> {
  const core = kc.makeApiClient(CoreV1Api);
  // A new namespace's `default` service account (and its token) comes a moment after it: admission refuses pods until then.
  await waitFor(`service account token in namespace ${namespace}`, async () => {
    const account = await core.readNamespacedServiceAccount({ name: 'default', namespace }).catch(() => undefined);
    return (account?.secrets?.length ?? 0) > 0;
  });
  await core.createNamespacedPod({ namespace, body });
  return waitFor(`pod ${namespace}/${body.metadata!.name} running`, async () => {
    const current = await core.readNamespacedPod({ namespace, name: body.metadata!.name! });
    return current.status?.phase === 'Running' && current.status.podIP ? current : undefined;
  }, 60_000);
}
