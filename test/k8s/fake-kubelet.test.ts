import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';
import { BEHAVIOR_ANNOTATION, DELAY_ANNOTATION, podBehavior } from './support/fake-kubelet.ts';
import type { PodBehavior } from './support/fake-kubelet.ts';

const behavior = suite('podBehavior');

const pod = (restartPolicy: string, asked?: string): V1Pod => ({
  metadata: { name: 'p', namespace: 'n', annotations: asked ? { [BEHAVIOR_ANNOTATION]: asked } : {} },
  spec: { restartPolicy, containers: [] },
});

behavior('defaults to ready for services and to succeed for run-to-completion pods', () => {
  assert.is(podBehavior(pod('Always')), 'ready');
  assert.is(podBehavior(pod('Never')), 'succeed');
  assert.is(podBehavior(pod('OnFailure')), 'succeed');
});

behavior('the restartPolicy decides between a crash loop and a failed pod', () => {
  assert.is(podBehavior(pod('Always', 'succeed')), 'crash-loop');
  assert.is(podBehavior(pod('OnFailure', 'fail')), 'crash-loop');
  assert.is(podBehavior(pod('Never', 'fail')), 'fail');
  assert.is(podBehavior(pod('Never', 'crash-loop')), 'fail');
  assert.is(podBehavior(pod('Always', 'never-ready')), 'never-ready');
});

behavior('rejects an unknown behavior by name', () => {
  assert.throws(() => podBehavior(pod('Always', 'sometimes')), /must be one of ready, never-ready/);
});

behavior.run();

const cluster = testCluster('kubelet', { heartbeatMs: 500, readyDelayMs: 200 });
const kubelet = suite('FakeKubelet');
kubelet.after(() => cluster.stop());

async function createPod(kc: KubeConfig, namespace: string, name: string, annotations: Record<string, string> = {}): Promise<void> {
  await kc.makeApiClient(CoreV1Api).createNamespacedPod({
    namespace,
    body: { metadata: { name, annotations }, spec: { containers: [{ name: 'main', image: 'registry.invalid/x:1' }] } },
  });
}

async function podWhen(kc: KubeConfig, namespace: string, name: string, what: string, test: (p: V1Pod) => boolean | undefined): Promise<V1Pod> {
  const core = kc.makeApiClient(CoreV1Api);
  return waitFor(`pod ${name}: ${what}`, async () => {
    const p = await core.readNamespacedPod({ name, namespace });
    return test(p) === true && p;
  }, 30_000);
}

const isReady = (p: V1Pod) => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';

kubelet('registers a Ready node and keeps its Lease fresh', async () => {
  const { kc, kubelet: k } = await cluster.get();
  const node = await kc.makeApiClient(CoreV1Api).readNode({ name: k.nodeName });
  assert.is(node.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'True');
  assert.equal(node.spec?.taints ?? [], [], 'the node lifecycle controller lifted the not-ready taint');
  const leases = kc.makeApiClient(CoordinationV1Api);
  const renewed = async () => String((await leases.readNamespacedLease({ name: k.nodeName, namespace: 'kube-node-lease' })).spec?.renewTime);
  const first = await renewed();
  await waitFor('lease renewed', async () => (await renewed()) !== first, 10_000);
});

kubelet('reports a scheduled pod Running and Ready after its delay', async () => {
  const { kc, namespace, kubelet: k } = await cluster.get();
  await createPod(kc, namespace, 'slow', { [DELAY_ANNOTATION]: '1500' });
  const pending = await podWhen(kc, namespace, 'slow', 'accepted by the kubelet', (p) => p.status?.containerStatuses !== undefined);
  assert.is(pending.status?.phase, 'Pending');
  const ready = await podWhen(kc, namespace, 'slow', 'ready', isReady);
  assert.is(ready.spec?.nodeName, k.nodeName, 'bound by the real scheduler');
  assert.is(ready.status?.phase, 'Running');
  assert.ok(ready.status?.podIP, 'has a pod IP');
  assert.is(ready.status?.containerStatuses?.[0].ready, true);
  const waited = Date.parse(String(ready.status?.containerStatuses?.[0].state?.running?.startedAt)) - Date.parse(String(ready.status?.startTime));
  assert.ok(waited >= 1000, `started after the requested delay, not ${waited} ms`);
});

for (const [name, kind, check] of [
  ['never-ready', 'never-ready', (p: V1Pod) => p.status?.phase === 'Running' && p.status?.containerStatuses?.[0].started === true],
  ['crasher', 'crash-loop', (p: V1Pod) => (p.status?.containerStatuses?.[0].restartCount ?? 0) >= 2],
] as const) {
  kubelet(`${kind}: the pod runs but is never Ready`, async () => {
    const { kc, namespace } = await cluster.get();
    await createPod(kc, namespace, name, { [BEHAVIOR_ANNOTATION]: kind satisfies PodBehavior });
    const p = await podWhen(kc, namespace, name, kind, check);
    assert.not.ok(isReady(p));
    if (kind === 'crash-loop') assert.is(p.status?.containerStatuses?.[0].state?.waiting?.reason, 'CrashLoopBackOff');
  });
}

kubelet('finalizes a deleted pod instead of leaving it terminating for its grace period', async () => {
  const { kc, namespace } = await cluster.get();
  await createPod(kc, namespace, 'doomed');
  await podWhen(kc, namespace, 'doomed', 'ready', isReady);
  const core = kc.makeApiClient(CoreV1Api);
  const started = Date.now();
  await core.deleteNamespacedPod({ name: 'doomed', namespace, gracePeriodSeconds: 30 });
  await waitFor('pod gone', async () => core.readNamespacedPod({ name: 'doomed', namespace }).then(() => false, (err) => err?.code === 404), 20_000);
  assert.ok(Date.now() - started < 20_000);
});

kubelet.run();
