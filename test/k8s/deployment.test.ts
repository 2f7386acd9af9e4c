import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppsV1Api, CoreV1Api, PatchStrategy, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig, V1Deployment, V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';
import { BEHAVIOR_ANNOTATION } from './support/fake-kubelet.ts';

const serverSideApply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

/** A Deployment as the GitOps controller will write it: 3 replicas, surge one at a time, never below 3. */
function deployment(name: string, version: string, podAnnotations: Record<string, string> = {}, progressDeadlineSeconds = 600): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 3,
      progressDeadlineSeconds,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: name }, annotations: podAnnotations },
        spec: { containers: [{ name: 'app', image: `registry.invalid/${name}:${version}` }] },
      },
    },
  };
}

async function apply(kc: KubeConfig, namespace: string, body: V1Deployment): Promise<V1Deployment> {
  return kc.makeApiClient(AppsV1Api).patchNamespacedDeployment(
    { name: body.metadata!.name!, namespace, body, fieldManager: 'smoke-test', force: true }, serverSideApply);
}

const condition = (d: V1Deployment, type: string) => d.status?.conditions?.find((c) => c.type === type);

/** Done rolling out: every replica updated and available, nothing old left, and the controller has seen the last change. */
async function rolledOut(kc: KubeConfig, namespace: string, name: string): Promise<V1Deployment> {
  const apps = kc.makeApiClient(AppsV1Api);
  return waitFor(`deployment ${name} rolled out`, async () => {
    const d = await apps.readNamespacedDeployment({ name, namespace });
    const s = d.status ?? {};
    const done = s.observedGeneration === d.metadata?.generation && s.updatedReplicas === 3 && s.availableReplicas === 3 &&
      s.replicas === 3 && condition(d, 'Available')?.status === 'True';
    return done && d;
  });
}

async function replicaSets(kc: KubeConfig, namespace: string, name: string): Promise<V1ReplicaSet[]> {
  const list = await kc.makeApiClient(AppsV1Api).listNamespacedReplicaSet({ namespace, labelSelector: `app=${name}` });
  return list.items;
}

const cluster = testCluster('deployments');
const rollout = suite('Deployment on the real control plane');
rollout.after(() => cluster.stop());

rollout('becomes available with 3 ready replicas', async () => {
  const { kc, namespace } = await cluster.get();
  await apply(kc, namespace, deployment('web', '1'));
  const d = await rolledOut(kc, namespace, 'web');
  assert.is(d.status?.readyReplicas, 3);
  const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: 'app=web' });
  assert.is(pods.items.length, 3);
  assert.ok(pods.items.every((p) => p.status?.phase === 'Running' && p.spec?.nodeName), 'all pods scheduled and running');
});

rollout('rolls a template change out through a new ReplicaSet, never below 3 available nor above 4 pods', async () => {
  const { kc, namespace } = await cluster.get();
  const [before] = await replicaSets(kc, namespace, 'web');
  const core = kc.makeApiClient(CoreV1Api);
  // Watch every pod change during the rollout; each event is a consistent step of the cluster's state.
  const pods = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${namespace}/pods`, () => core.listNamespacedPod({ namespace }), 'app=web');
  let fewestAvailable = Infinity;
  let mostPods = 0;
  let synced = false;
  const observe = () => {
    // The initial list arrives one pod at a time; count from the first complete view on.
    if (!synced) return;
    const live = pods.list().filter((p) => !p.metadata?.deletionTimestamp);
    const ready = live.filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    fewestAvailable = Math.min(fewestAvailable, ready.length);
    mostPods = Math.max(mostPods, live.length);
  };
  for (const verb of ['add', 'update', 'delete'] as const) pods.on(verb, observe);
  await pods.start();
  synced = true;
  observe();
  try {
    await apply(kc, namespace, deployment('web', '2'));
    await rolledOut(kc, namespace, 'web');
    const sets = await replicaSets(kc, namespace, 'web');
    const old = sets.find((rs) => rs.metadata?.name === before.metadata?.name);
    const current = sets.find((rs) => rs.metadata?.name !== before.metadata?.name);
    assert.is(sets.length, 2);
    assert.is(old?.status?.replicas, 0, 'old ReplicaSet scaled to 0');
    assert.is(current?.status?.availableReplicas, 3, 'new ReplicaSet has all 3');
    assert.is(current?.spec?.template?.spec?.containers[0].image, 'registry.invalid/web:2');
    assert.ok(fewestAvailable >= 3, `available pods dipped to ${fewestAvailable}`);
    assert.is(mostPods, 4, 'surged by exactly one pod');
  } finally {
    await pods.stop();
  }
});

rollout('reports ProgressDeadlineExceeded when new pods never become ready, and rolls back', async () => {
  const { kc, namespace } = await cluster.get();
  const good = deployment('stuck', '1');
  await apply(kc, namespace, good);
  await rolledOut(kc, namespace, 'stuck');
  const [healthy] = await replicaSets(kc, namespace, 'stuck');

  await apply(kc, namespace, deployment('stuck', '2', { [BEHAVIOR_ANNOTATION]: 'never-ready' }, 4));
  const apps = kc.makeApiClient(AppsV1Api);
  const failed = await waitFor('ProgressDeadlineExceeded', async () => {
    const d = await apps.readNamespacedDeployment({ name: 'stuck', namespace });
    const current = d.status?.observedGeneration === d.metadata?.generation;
    return current && condition(d, 'Progressing')?.reason === 'ProgressDeadlineExceeded' && d;
  });
  assert.is(condition(failed, 'Progressing')?.status, 'False');
  assert.is(failed.status?.availableReplicas, 3, 'the old pods kept serving');
  assert.is(failed.status?.updatedReplicas, 1, 'only the surge pod was tried');

  // Rolling back is applying the previous template again: the controller reuses its ReplicaSet.
  await apply(kc, namespace, good);
  const back = await rolledOut(kc, namespace, 'stuck');
  assert.is(condition(back, 'Progressing')?.reason, 'NewReplicaSetAvailable');
  const sets = await replicaSets(kc, namespace, 'stuck');
  const active = sets.filter((rs) => (rs.spec?.replicas ?? 0) > 0);
  assert.equal(active.map((rs) => rs.metadata?.name), [healthy.metadata?.name]);
});

rollout.run();
