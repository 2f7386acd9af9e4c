import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Job } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';
import { BEHAVIOR_ANNOTATION } from './support/fake-kubelet.ts';
import type { PodBehavior } from './support/fake-kubelet.ts';

function job(name: string, behavior: PodBehavior): V1Job {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name },
    spec: {
      backoffLimit: 0,
      template: {
        metadata: { annotations: { [BEHAVIOR_ANNOTATION]: behavior } },
        spec: { restartPolicy: 'Never', containers: [{ name: 'task', image: 'registry.invalid/task:1' }] },
      },
    },
  };
}

/** Waits for the Job controller to declare the Job Complete or Failed, and returns that condition's Job. */
async function finished(kc: KubeConfig, namespace: string, name: string): Promise<V1Job> {
  const batch = kc.makeApiClient(BatchV1Api);
  return waitFor(`job ${name} finished`, async () => {
    const j = await batch.readNamespacedJob({ name, namespace });
    return j.status?.conditions?.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') && j;
  });
}

const cluster = testCluster('jobs');
const jobs = suite('Job on the real control plane');
jobs.after(() => cluster.stop());

jobs('completes when its pod succeeds', async () => {
  const { kc, namespace } = await cluster.get();
  await kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: job('migrate', 'succeed') });
  const done = await finished(kc, namespace, 'migrate');
  assert.equal(done.status?.conditions?.map((c) => c.type), ['Complete']);
  assert.is(done.status?.succeeded, 1);
  assert.ok(done.status?.completionTime, 'completion time recorded');
});

jobs('fails with BackoffLimitExceeded when its pod fails', async () => {
  const { kc, namespace } = await cluster.get();
  await kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: job('broken', 'fail') });
  const done = await finished(kc, namespace, 'broken');
  const failed = done.status?.conditions?.find((c) => c.type === 'Failed');
  assert.is(failed?.reason, 'BackoffLimitExceeded');
  assert.is(done.status?.failed, 1);
  assert.is(done.status?.succeeded, undefined);
});

jobs.run();
