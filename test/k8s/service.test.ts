import { request } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';
import { explainService } from './support/service-datapath.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const PORT = 8080;

/**
 * The app: answers with its version and the pod address it was reached on. Ready unless READY=never.
 * On SIGTERM it keeps serving for 5 seconds (kube-proxy needs a moment to drop the endpoint, more on a busy machine), then
 * closes, as apps behind Services do.
 */
const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  if (req.url === '/ready') { res.statusCode = process.env.READY === 'never' ? 503 : 200; res.end(); return; }
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ version: process.env.VERSION, ip: req.socket.localAddress }));
});
server.listen(${PORT}, '0.0.0.0', () => console.log('serving ' + process.env.VERSION));
process.on('SIGTERM', () => {
  console.log('draining');
  setTimeout(() => server.close(() => process.exit(0)), 5000);
});`;

function deployment(version: string, extra: { ready?: 'never'; progressDeadlineSeconds?: number } = {}): V1Deployment {
  return {
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      progressDeadlineSeconds: extra.progressDeadlineSeconds ?? 600,
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 10,
          containers: [{
            name: 'web', image: 'node:22', command: ['node', '-e', SERVER],
            env: [{ name: 'VERSION', value: version }, ...(extra.ready ? [{ name: 'READY', value: extra.ready }] : [])],
            ports: [{ containerPort: PORT }],
            readinessProbe: { httpGet: { path: '/ready', port: PORT }, periodSeconds: 1, failureThreshold: 1 },
          }],
        },
      },
    },
  };
}

interface Answer {
  version: string;
  ip: string;
}

function get(ip: string, port: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // A new connection per request, as a client that is not pinned to one pod.
    const req = request({ host: ip, port, path: '/', agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => {
        if (res.statusCode === 200) resolve(JSON.parse(body) as Answer);
        else reject(new Error(`HTTP ${res.statusCode}`));
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout'))).on('error', reject).end();
  });
}

/** A client hitting the Service in a loop until stopped: counts requests and failures, keeps what answered. */
function clientLoop(ip: string, port: number) {
  const stats = { requests: 0, failures: [] as string[], answers: [] as Answer[] };
  let running = true;
  const done = (async () => {
    while (running) {
      stats.requests++;
      try {
        stats.answers.push(await get(ip, port));
      } catch (err) {
        stats.failures.push((err as Error).message);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return { stats, stop: async () => { running = false; await done; return stats; } };
}

async function rolledOut(kc: KubeConfig, namespace: string): Promise<V1Deployment | false> {
  const d = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace });
  const s = d.status ?? {};
  return (s.observedGeneration ?? 0) >= (d.metadata?.generation ?? 1) && s.updatedReplicas === 3 && s.availableReplicas === 3
    && s.replicas === 3 && (s.unavailableReplicas ?? 0) === 0 && d;
}

async function webPods(kc: KubeConfig, namespace: string): Promise<V1Pod[]> {
  return (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: 'app=web' })).items;
}

const isReady = (p: V1Pod) => p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(1);

const cluster = testCluster('service');
const service = suite('Deployment behind a Service, through kube-proxy');
service.after(() => cluster.stop());
let clusterIp = '';

service('3 replicas of a Node server become Ready on distinct pod IPs and all serve through the ClusterIP', async () => {
  const { kc, namespace } = await cluster.get();
  const started = Date.now();
  await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({ namespace, body: deployment('v1') });
  const svc = await kc.makeApiClient(CoreV1Api).createNamespacedService({ namespace, body: {
    metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: PORT }] },
  } });
  clusterIp = svc.spec!.clusterIP!;
  await waitFor('3 replicas available', () => rolledOut(kc, namespace), 120_000);
  const rollout = seconds(started);
  const pods = await webPods(kc, namespace);
  assert.is(pods.length, 3);
  assert.ok(pods.every(isReady));
  const ips = pods.map((p) => p.status!.podIP!).sort();
  assert.is(new Set(ips).size, 3, `three distinct pod IPs: ${ips}`);
  await waitFor(`Service ${clusterIp} answers`, () => get(clusterIp, 80).catch(() => undefined), 30_000);
  const reachable = seconds(started);
  const seen = new Set<string>();
  const versions = new Set<string>();
  // kube-proxy programs the endpoints as their EndpointSlice says, a sync behind the Deployment's availability (on a
  // loaded node, seconds): ask until every replica has answered, each answer picked at random among those programmed.
  await waitFor('every replica answering through the Service', async () => {
    for (let i = 0; i < 20; i++) {
      const answer = await get(clusterIp, 80);
      versions.add(answer.version);
      seen.add(answer.ip);
    }
    return seen.size >= ips.length;
  }, 30_000).catch(() => {});
  assert.equal([...versions], ['v1']);
  // Each pod answers with the address the connection reached it on: the node DNATed the ClusterIP to it.
  assert.equal([...seen].sort(), ips, 'every replica serves through the Service');
  log(`k8s figures: 3 replicas available ${rollout}s after create; Service answering at ${reachable}s`);
});

service('a rolling update to a new version serves every request of a client looping on the Service', async () => {
  const { kc, namespace, cluster: node } = await cluster.get();
  assert.ok(clusterIp, 'the first test made the Service');
  const client = clientLoop(clusterIp, 80);
  await new Promise((resolve) => setTimeout(resolve, 500));
  const started = Date.now();
  await kc.makeApiClient(AppsV1Api).replaceNamespacedDeployment({ name: 'web', namespace, body: deployment('v2') });
  await waitFor('rollout to v2', async () => {
    const done = await rolledOut(kc, namespace);
    // Done only when the old pods are gone too (they drain for seconds after leaving the Service).
    return done && (await webPods(kc, namespace)).length === 3;
  }, 180_000);
  const rollout = seconds(started);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const stats = await client.stop();
  log(`k8s figures: rolling update of 3 replicas in ${rollout}s; ${stats.requests} requests during it, ${stats.failures.length} failed`);
  // The datapath's state is read only when a request failed (it takes a moment): it says what kube-proxy last did.
  const explained = stats.failures.length > 0 ? await explainService(node, clusterIp) : '';
  assert.equal(stats.failures, [], `requests failed during the rollout (${stats.failures.length} of ${stats.requests})${explained}`);
  assert.ok(stats.requests > 50, `the client kept going (${stats.requests} requests)`);
  const versions = stats.answers.map((a) => a.version);
  assert.is(versions[0], 'v1');
  assert.is(versions.at(-1), 'v2');
  const last = new Set(stats.answers.slice(-30).map((a) => a.version));
  assert.equal([...last], ['v2'], 'after the rollout only the new version answers');
  const pods = await webPods(kc, namespace);
  assert.ok(pods.every((p) => p.spec?.containers[0].env?.find((e) => e.name === 'VERSION')?.value === 'v2'));
});

service('a version that never becomes ready ends in ProgressDeadlineExceeded while the old pods keep serving', async () => {
  const { kc, namespace } = await cluster.get();
  assert.ok(clusterIp, 'the first test made the Service');
  const client = clientLoop(clusterIp, 80);
  await kc.makeApiClient(AppsV1Api).replaceNamespacedDeployment({ name: 'web', namespace, body: deployment('v3', { ready: 'never', progressDeadlineSeconds: 10 }) });
  const stuck = await waitFor('ProgressDeadlineExceeded', async () => {
    const d = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'web', namespace });
    const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
    return progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded' && d;
  }, 90_000);
  const pods = await webPods(kc, namespace);
  const stats = await client.stop();
  const fresh = pods.filter((p) => p.spec?.containers[0].env?.some((e) => e.value === 'v3'));
  assert.is(fresh.length, 1, 'maxSurge 1: one new pod was tried');
  assert.is(fresh[0].status?.phase, 'Running', 'the new pod runs...');
  assert.not.ok(isReady(fresh[0]), '...but is not ready');
  assert.is(stuck.status?.availableReplicas, 3, 'the old replicas stay available');
  assert.equal(stats.failures, [], `requests failed while the rollout was stuck (${stats.failures.length} of ${stats.requests})`);
  assert.equal([...new Set(stats.answers.map((a) => a.version))], ['v2'], 'only the ready old pods receive traffic');
  assert.not.ok(stats.answers.some((a) => a.ip === fresh[0].status?.podIP), 'the pod that is not ready gets no request');
  log(`k8s figures: stuck rollout: ${stats.requests} requests while waiting for ProgressDeadlineExceeded, ${stats.failures.length} failed`);
});

service('a pod reaches the npm registry through the node\'s egress NAT', async () => {
  const { kc, namespace, podLog } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespacedPod({ namespace, body: {
    metadata: { name: 'egress' },
    spec: {
      automountServiceAccountToken: false, restartPolicy: 'Never',
      // npm asks the registry for a tiny package's metadata, over HTTPS from the pod's own address.
      containers: [{
        name: 'npm', image: 'node:22', command: ['npm', 'view', 'is-number', 'name'],
        // This machine reaches the registry through a TLS-intercepting proxy whose CA only the machine's
        // bundle holds (the host's Node trusts it the same way); a pod must be told, as on any such node.
        env: [{ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/ssl/certs/ca-certificates.crt' }],
      }],
    },
  } });
  const pod = await waitFor('egress pod finished', async () => {
    const p = await core.readNamespacedPod({ name: 'egress', namespace });
    return (p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed') && p;
  }, 90_000);
  const output = await podLog('egress');
  assert.is(pod.status?.phase, 'Succeeded', `npm view failed; the pod's log:\n${output}`);
  assert.match(output, /^npm is-number$/m);
});

service.run();
