import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppsV1Api, CoreV1Api, makeInformer } from '@kubernetes/client-node';
import type { KubeConfig, V1Container, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';

/** A real HTTP server: /healthz answers 503 until HEALTHY_AFTER_MS have passed since it started, then 200. */
const SERVER = `
const started = Date.now();
require('node:http').createServer((req, res) => {
  if (req.url === '/healthz') {
    const healthy = Date.now() - started >= Number(process.env.HEALTHY_AFTER_MS);
    res.statusCode = healthy ? 200 : 503;
    return res.end(healthy ? 'ok' : 'starting');
  }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ pod: process.env.POD_NAME, ip: process.env.POD_IP, hostname: require('node:os').hostname() }));
}).listen(8080, () => console.log('listening on 8080'));
process.on('SIGTERM', () => process.exit(0));
`;

function deployment(name: string, container: V1Container, replicas: number): V1Deployment {
  return {
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { automountServiceAccountToken: false, terminationGracePeriodSeconds: 5, containers: [container] },
      },
    },
  };
}

function server(healthyAfterMs: number): V1Container {
  return {
    name: 'web', image: 'node:22', command: ['node', '-e', SERVER],
    ports: [{ name: 'http', containerPort: 8080 }],
    env: [
      { name: 'HEALTHY_AFTER_MS', value: String(healthyAfterMs) },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      { name: 'POD_IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    ],
    readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1, failureThreshold: 1 },
  };
}

const isReady = (p: V1Pod) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** Records, per pod, whether it was ever seen running but not ready, and when it was first seen ready. */
async function watchPods(kc: KubeConfig, namespace: string, app: string) {
  const core = kc.makeApiClient(CoreV1Api);
  const informer = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${namespace}/pods`, () => core.listNamespacedPod({ namespace, labelSelector: `app=${app}` }), `app=${app}`);
  const runningUnready = new Set<string>();
  const readyAt = new Map<string, number>();
  const observe = (p: V1Pod) => {
    const name = p.metadata!.name!;
    const running = p.status?.containerStatuses?.every((s) => s.state?.running) ?? false;
    if (running && !isReady(p)) runningUnready.add(name);
    if (isReady(p) && !readyAt.has(name)) readyAt.set(name, Date.now());
  };
  informer.on('add', observe);
  informer.on('update', observe);
  await informer.start();
  return { runningUnready, readyAt, stop: () => informer.stop() };
}

const cluster = testCluster('deployments');
const rollout = suite('Deployments on the process kubelet');
rollout.after(() => cluster.stop());

rollout('3 replicas of a Node HTTP server: three pod IPs, each Ready only once its readiness probe passes', async () => {
  const { kc, namespace, cluster: node } = await cluster.get();
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const observed = await watchPods(kc, namespace, 'web');
  const created = Date.now();
  try {
    await apps.createNamespacedDeployment({ namespace, body: deployment('web', server(3000), 3) });
    await waitFor('3 ready replicas', async () => (await apps.readNamespacedDeployment({ name: 'web', namespace })).status?.readyReplicas === 3);
  } finally {
    await observed.stop();
  }
  const pods = (await core.listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
  assert.is(pods.length, 3);
  const ips = pods.map((p) => p.status!.podIP!);
  assert.is(new Set(ips).size, 3, `distinct pod IPs: ${ips}`);
  const prefix = node.network.podCidr.replace(/\.0\/24$/, '.');
  assert.ok(ips.every((ip) => ip.startsWith(prefix)), `pod IPs ${ips} in ${node.network.podCidr}`);
  for (const p of pods) {
    const name = p.metadata!.name!;
    assert.ok(observed.runningUnready.has(name), `${name} was seen running but not ready while /healthz failed`);
    const started = Date.parse(String(p.status!.containerStatuses![0].state!.running!.startedAt));
    const ready = p.status!.conditions!.find((c) => c.type === 'Ready')!;
    // Second precision on both sides: a 3 s delay shows as at least 2 s.
    assert.ok(Date.parse(String(ready.lastTransitionTime)) - started >= 2000, `${name} became Ready before its server was healthy`);
    assert.is(p.status!.containerStatuses![0].ready, true);
    assert.is(p.status!.conditions!.find((c) => c.type === 'ContainersReady')?.status, 'True');
    // The server answers on its own pod IP, and knows its own name and IP from the downward API.
    const answer = await (await fetch(`http://${p.status!.podIP}:8080/`)).json() as { pod: string; ip: string; hostname: string };
    assert.equal(answer, { pod: name, ip: p.status!.podIP, hostname: name });
  }
  const slowest = Math.max(...observed.readyAt.values()) - created;
  process.stderr.write(`kubelet: 3 replicas (3 s health delay) all Ready ${(slowest / 1000).toFixed(1)} s after the Deployment was created\n`);
});

rollout('pod start to Ready: a server with a TCP readiness probe', async () => {
  const { kc, namespace } = await cluster.get();
  const apps = kc.makeApiClient(AppsV1Api);
  const observed = await watchPods(kc, namespace, 'quick');
  const created = Date.now();
  const container = { ...server(0), readinessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 1 } };
  try {
    await apps.createNamespacedDeployment({ namespace, body: deployment('quick', container, 1) });
    await waitFor('the pod Ready', async () => observed.readyAt.size === 1);
  } finally {
    await observed.stop();
  }
  const [readyAt] = observed.readyAt.values();
  assert.ok(readyAt > created);
  process.stderr.write(`kubelet: pod start → Ready (Deployment created → its pod Ready, TCP probe every 1 s): ${((readyAt - created) / 1000).toFixed(2)} s\n`);
});

rollout('a crash-looping container shows CrashLoopBackOff and a rising restart count', async () => {
  const { kc, namespace } = await cluster.get();
  const apps = kc.makeApiClient(AppsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  await apps.createNamespacedDeployment({ namespace, body: deployment('crash', { name: 'app', image: 'node:22', command: ['sh', '-c', 'echo starting; exit 3'] }, 1) });
  // The first restart is immediate, the second waits out a 10 s back-off.
  const looping = await waitFor('CrashLoopBackOff after 2 restarts', async () => {
    const [p] = (await core.listNamespacedPod({ namespace, labelSelector: 'app=crash' })).items;
    const s = p?.status?.containerStatuses?.[0];
    return s?.state?.waiting?.reason === 'CrashLoopBackOff' && s.restartCount >= 2 && p;
  }, 60_000);
  const s = looping.status!.containerStatuses![0];
  assert.is(looping.status?.phase, 'Running', 'a crash-looping pod under restartPolicy Always stays Running');
  assert.is(s.ready, false);
  assert.match(s.state?.waiting?.message ?? '', /^back-off \d+s restarting failed container=app pod=crash-/);
  assert.is(s.lastState?.terminated?.exitCode, 3);
  assert.is(s.lastState?.terminated?.reason, 'Error');
  assert.is(looping.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
  // The kubelet's events tell the same story to `kubectl describe pod`.
  const events = (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${looping.metadata!.name}` })).items;
  const reasons = new Set(events.filter((e) => e.source?.component === 'kubelet').map((e) => e.reason));
  for (const reason of ['Pulled', 'Created', 'Started', 'BackOff']) assert.ok(reasons.has(reason), `a ${reason} event (got ${[...reasons]})`);
  assert.ok(events.some((e) => e.reason === 'BackOff' && e.involvedObject.fieldPath === 'spec.containers{app}' && e.type === 'Warning'));
});

rollout.run();
