import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Job, V1PodSpec } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';
import { shell } from './support/pods.ts';

function job(name: string, spec: Partial<V1PodSpec> & Pick<V1PodSpec, 'containers'>): V1Job {
  return {
    metadata: { name },
    spec: { backoffLimit: 0, template: { spec: { restartPolicy: 'Never', automountServiceAccountToken: false, ...spec } } },
  };
}

/** Waits for the Job controller to declare the Job Complete or Failed. */
async function finished(kc: KubeConfig, namespace: string, name: string): Promise<V1Job> {
  const batch = kc.makeApiClient(BatchV1Api);
  return waitFor(`job ${name} finished`, async () => {
    const j = await batch.readNamespacedJob({ name, namespace });
    return j.status?.conditions?.some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True') && j;
  });
}

async function jobPod(kc: KubeConfig, namespace: string, name: string) {
  const [pod] = (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: `job-name=${name}` })).items;
  return pod;
}

const cluster = testCluster('jobs');
const jobs = suite('Jobs on the process kubelet');
jobs.after(() => cluster.stop());

jobs('an init container writes into an emptyDir, the main container reads it and leaves a termination message', async () => {
  const { kc, namespace } = await cluster.get();
  await kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: job('relay', {
    volumes: [{ name: 'shared', emptyDir: {} }],
    initContainers: [shell('prepare', 'echo "prepared by $(hostname)" > /data/greeting', { volumeMounts: [{ name: 'shared', mountPath: '/data' }] })],
    containers: [shell('use', 'printf "read: %s" "$(cat /in/greeting)" > /dev/termination-log', { volumeMounts: [{ name: 'shared', mountPath: '/in' }] })],
  }) });
  const done = await finished(kc, namespace, 'relay');
  assert.equal(done.status?.conditions?.map((c) => c.type), ['Complete']);
  assert.is(done.status?.succeeded, 1);
  const pod = await jobPod(kc, namespace, 'relay');
  assert.is(pod.status?.phase, 'Succeeded');
  const init = pod.status?.initContainerStatuses?.[0].state?.terminated;
  assert.equal([init?.exitCode, init?.reason], [0, 'Completed']);
  const main = pod.status?.containerStatuses?.[0].state?.terminated;
  assert.equal([main?.exitCode, main?.reason], [0, 'Completed']);
  assert.is(main?.message, `read: prepared by ${pod.metadata?.name}`);
  assert.is(pod.status?.conditions?.find((c) => c.type === 'Initialized')?.status, 'True');
});

jobs('a failing Job: its pod fails with the exit code, the message falls back to the log, the Job is Failed', async () => {
  const { kc, namespace } = await cluster.get();
  await kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: job('broken', {
    containers: [shell('task', 'echo "step 1 ok"; echo "step 2: database unreachable" >&2; exit 7', { terminationMessagePolicy: 'FallbackToLogsOnError' })],
  }) });
  const done = await finished(kc, namespace, 'broken');
  const failed = done.status?.conditions?.find((c) => c.type === 'Failed');
  assert.is(failed?.reason, 'BackoffLimitExceeded');
  assert.is(done.status?.failed, 1);
  assert.is(done.status?.succeeded, undefined);
  const pod = await jobPod(kc, namespace, 'broken');
  assert.is(pod.status?.phase, 'Failed');
  const terminated = pod.status?.containerStatuses?.[0].state?.terminated;
  assert.equal([terminated?.exitCode, terminated?.reason], [7, 'Error']);
  assert.is(terminated?.message, 'step 1 ok\nstep 2: database unreachable');
});

jobs('an init container that fails under restartPolicy Never fails the pod; the main container never runs', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  await kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: job('no-init', {
    initContainers: [shell('check', 'echo "precondition failed"; exit 4')],
    containers: [shell('main', 'echo "should not run"')],
  }) });
  const done = await finished(kc, namespace, 'no-init');
  assert.is(done.status?.conditions?.find((c) => c.type === 'Failed')?.reason, 'BackoffLimitExceeded');
  const pod = await jobPod(kc, namespace, 'no-init');
  assert.is(pod.status?.phase, 'Failed');
  assert.is(pod.status?.initContainerStatuses?.[0].state?.terminated?.exitCode, 4);
  assert.is(pod.status?.containerStatuses?.[0].state?.waiting?.reason, 'PodInitializing');
  assert.is(pod.status?.conditions?.find((c) => c.type === 'Initialized')?.status, 'False');
  assert.not.match(await podLog(pod.metadata!.name!), 'should not run');
});

jobs.run();
