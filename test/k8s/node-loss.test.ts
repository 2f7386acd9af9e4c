/**
 * Node loss and drain on a three-node cluster: an app of two replicas placed as the controller places a WalrusApp's
 * run pods (runPlacement's spread on the hostname and the offer's short not-ready/unreachable tolerations, and
 * appDisruptionBudget's budget), served through the ingress to a client that keeps requesting it. The app is a small
 * HTTP server standing in for a released artifact: what is under test is what Kubernetes does with those templates
 * when a node dies or is drained. Then the in-cluster controller from deploy/ (two replicas, spread): the leader's
 * node is killed and the standby must take the Lease. The figures (times, failed requests) are printed, never
 * asserted against a clock.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { AppsV1Api, CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Node, V1Pod } from '@kubernetes/client-node';
import { appDisruptionBudget, runPlacement } from '../../src/gitops/templates/placement.ts';
import { selectorLabels } from '../../src/gitops/templates/names.ts';
import type { WalrusApp } from '../../src/ports/walrus-app.ts';
import type { Cluster } from '../cluster/node/node.ts';
import { LEASE_NAME } from '../../src/gitops/controller.ts';
import { createWorld, REPO_ROOT, type World } from '../../scripts/harness/world.ts';
import { startDevnetServer } from '../../scripts/harness/gitops.ts';
import { testCluster, waitFor } from './support/control-plane.ts';
import { kubectl } from './support/gitops.ts';
import { routeOf, ServingTimeline } from './support/serving-timeline.ts';

const run = promisify(execFile);
const NODES = 3;
/** What a provider's offer might set (nodeLossTolerationSeconds); short, so the test waits little after NotReady. */
const TOLERATION_SECONDS = 5;
const cluster = testCluster('node-loss', { nodes: NODES });
const nodeLoss = suite('node loss and drain (3 nodes)');
const INSTALL_NAMESPACE = 'walrus-gitops';
let world: World | undefined;
let devnet: Awaited<ReturnType<typeof startDevnetServer>> | undefined;
nodeLoss.after(async () => {
  await devnet?.stop();
  world?.remove();
  await cluster.stop();
});

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

/** A client requesting the app through the ingress in a loop, retrying a failed request once, as a browser or SDK would. */
class ClientLoop {
  attempts = 0;
  failedAttempts = 0;
  failedAfterRetry = 0;
  slowest = 0;
  readonly errors = new Map<string, number>();
  #running = true;
  readonly #done: Promise<void>;
  readonly #ingress: string;
  readonly #host: string;
  readonly #timeline: ServingTimeline | undefined;

  constructor(ingress: string, host: string, timeline?: ServingTimeline) {
    this.#ingress = ingress;
    this.#host = host;
    this.#timeline = timeline;
    this.#done = this.#loop();
  }

  async #loop(): Promise<void> {
    while (this.#running) {
      const started = Date.now();
      if (!(await this.#attempt()) && !(await this.#attempt())) this.failedAfterRetry++;
      this.slowest = Math.max(this.slowest, Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async #attempt(): Promise<boolean> {
    this.attempts++;
    const outcome = await getThroughIngress(this.#ingress, this.#host);
    if (outcome === 'ok') return true;
    this.failedAttempts++;
    this.#timeline?.mark(`client: ${outcome}`);
    this.errors.set(outcome, (this.errors.get(outcome) ?? 0) + 1);
    return false;
  }

  async stop(): Promise<string> {
    this.#running = false;
    await this.#done;
    const errors = [...this.errors].map(([what, count]) => `${count}× ${what}`).join(', ') || 'none';
    return `${this.attempts} attempts, ${this.failedAttempts} failed (${errors}), ${this.failedAfterRetry} failed after one retry, slowest request ${seconds(this.slowest)}`;
  }
}

/** One GET of the app's URL on a new connection: 'ok' for a 200, else what went wrong. */
function getThroughIngress(ingress: string, host: string): Promise<string> {
  return new Promise<string>((resolve) => {
    const req = request({ host: ingress, port: 80, path: '/', headers: { Host: host }, agent: false, timeout: 5000 }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode === 200 ? 'ok' : `HTTP ${res.statusCode}`));
    });
    req.on('timeout', () => req.destroy(new Error('timeout after 5s'))).on('error', (err) => resolve(err.message)).end();
  });
}

/** The app as the controller would run it, with the controller's placement and budget. */
async function deployApp(kc: KubeConfig, node: Cluster, namespace: string, name: string): Promise<{ host: string; labels: Record<string, string> }> {
  const app = { metadata: { name, namespace, uid: '00000000-0000-4000-8000-000000000042' } } as WalrusApp;
  const labels = selectorLabels(app, 'run');
  const host = `${name}.${namespace}.test`;
  const budget = appDisruptionBudget(app, 2)!;
  // No WalrusApp exists here to own it (the garbage collector would delete an object whose owner is missing).
  budget.metadata!.ownerReferences = undefined;
  const server = "require('http').createServer((q, s) => s.end(require('os').hostname() + '\\n')).listen(8080)";
  const objects = [
    {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace },
      spec: {
        replicas: 2, selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            ...runPlacement(app, 2, TOLERATION_SECONDS),
            terminationGracePeriodSeconds: 10,
            containers: [{
              name: 'app', image: 'node:22', command: ['node', '-e', server], ports: [{ containerPort: 8080 }],
              readinessProbe: { httpGet: { path: '/', port: 8080 }, periodSeconds: 1 },
            }],
          },
        },
      },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { selector: labels, ports: [{ port: 80, targetPort: 8080 }] } },
    {
      apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, namespace },
      spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: 80 } } } }] } }] },
    },
    budget,
  ];
  await kubectlApply(node, objects);
  await waitFor('two ready replicas', async () => (await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name, namespace })).status?.readyReplicas === 2, 120_000);
  // The ingress renders its configuration a moment after the Endpoints change (as ingress-nginx does) and reloads:
  // until both replicas are in it and the old workers are gone it may answer 503 for the host, which is the app not
  // yet published, not a failure of what the test disturbs.
  await waitFor('the ingress sending the host to both replicas', async () => {
    await node.ingress.settled();
    const route = routeOf(await readFile(join(node.ingress.dir, 'nginx.conf'), 'utf8'), host);
    return /^upstream \[\S+, \S+\]$/.test(route) && (await getThroughIngress(node.ingress.address, host)) === 'ok';
  }, 60_000);
  return { host, labels };
}

function kubectlApply(node: Cluster, objects: object[]): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const child = execFile(node.kubectl, ['apply', '-f', '-'], { env: { ...process.env, KUBECONFIG: node.plane.kubeconfigPath } }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    child.stdin!.end(JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  });
}

const selector = (labels: Record<string, string>) => Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(',');
const livePods = async (core: CoreV1Api, namespace: string, labels: Record<string, string>) =>
  (await core.listNamespacedPod({ namespace, labelSelector: selector(labels) })).items.filter((pod) => !pod.metadata?.deletionTimestamp);
const isReady = (pod: V1Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
const nodeReady = (node: V1Node) => node.status?.conditions?.find((c) => c.type === 'Ready')?.status;

nodeLoss('a dead node goes NotReady and is tainted, its replica is evicted after the tolerations and runs again elsewhere; a drain keeps the budget and fails no request', async () => {
  const { kc, namespace, cluster: node } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  const { host, labels } = await deployApp(kc, node, namespace, 'survivor');
  const placed = await livePods(core, namespace, labels);
  const nodesUsed = new Set(placed.map((pod) => pod.spec?.nodeName));
  assert.is(nodesUsed.size, 2, `the spread puts the two replicas on two nodes: ${placed.map((p) => p.spec?.nodeName).join(', ')}`);

  // Node loss: the node of one replica dies under a client loop. Not the first node: the ingress stand-in is one nginx
  // on that node's bridge, and losing the only ingress is not what this tests (a provider runs it replicated behind
  // its load balancer). The spread leaves at least one replica elsewhere.
  const victimPod = placed.find((pod) => pod.spec?.nodeName !== node.nodes[0].name)!;
  const victim = node.nodes.find((candidate) => candidate.name === victimPod.spec!.nodeName)!;
  const timeline = new ServingTimeline(kc, { namespace, name: 'survivor', labelSelector: selector(labels), host, ingressDir: node.ingress.dir });
  const client = new ClientLoop(node.ingress.address, host, timeline);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const killedAt = Date.now();
  timeline.mark(`killing ${victim.name}`);
  await victim.kill();
  const notReadyAt = await waitFor('the dead node NotReady', async () => nodeReady(await core.readNode({ name: victim.name })) !== 'True' && Date.now(), 120_000);
  const taints = await waitFor('the unreachable taint', async () => {
    const taint = (await core.readNode({ name: victim.name })).spec?.taints?.find((t) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute');
    return taint && Date.now();
  }, 60_000);
  const evictedAt = await waitFor('the dead node\'s replica evicted', async () => {
    const pod = await core.readNamespacedPod({ name: victimPod.metadata!.name!, namespace }).catch(() => undefined);
    return (!pod || pod.metadata?.deletionTimestamp) && Date.now();
  }, 120_000);
  const readyElsewhereAt = await waitFor('two ready replicas on live nodes', async () => {
    const pods = (await livePods(core, namespace, labels)).filter((pod) => pod.spec?.nodeName !== victim.name && isReady(pod));
    return pods.length === 2 && Date.now();
  }, 120_000);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const lossFigures = await client.stop();
  const served = await timeline.stop();
  const replacement = (await livePods(core, namespace, labels)).map((pod) => pod.spec?.nodeName);
  process.stderr.write([
    `node-loss: killed ${victim.name}; NotReady after ${seconds(notReadyAt - killedAt)}, tainted unreachable:NoExecute after ${seconds(taints - killedAt)},`,
    `  replica evicted after ${seconds(evictedAt - killedAt)} (tolerations ${TOLERATION_SECONDS}s), two ready replicas again after ${seconds(readyElsewhereAt - killedAt)} on ${replacement.join(', ')}`,
    `  client through the ingress: ${lossFigures}`,
  ].join('\n') + '\n');
  assert.ok(!replacement.includes(victim.name), 'no replica left on the dead node');
  if (client.failedAttempts > 0) process.stderr.write(`node-loss: what served the app meanwhile:\n${served}\n`);
  assert.is(client.failedAfterRetry, 0, `no request failed twice in a row: ${lossFigures}`);

  // The node comes back; then a drain of a node serving the app under a new client loop.
  await victim.start();
  await waitFor('the node Ready again', async () => nodeReady(await core.readNode({ name: victim.name })) === 'True', 120_000);
  const serving = (await livePods(core, namespace, labels))[0].spec!.nodeName!;
  const drainClient = new ClientLoop(node.ingress.address, host);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const drainStarted = Date.now();
  const { stdout } = await run(node.kubectl, ['drain', serving, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=180s'],
    { env: { ...process.env, KUBECONFIG: node.plane.kubeconfigPath } });
  const drained = Date.now();
  await waitFor('two ready replicas after the drain', async () => (await livePods(core, namespace, labels)).filter(isReady).length === 2, 120_000);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const drainFigures = await drainClient.stop();
  await run(node.kubectl, ['uncordon', serving], { env: { ...process.env, KUBECONFIG: node.plane.kubeconfigPath } });
  process.stderr.write(`node-loss: drain of ${serving} took ${seconds(drained - drainStarted)}; client: ${drainFigures}\n`);
  assert.match(stdout, /evicting pod|evicted/, stdout);
  assert.ok((await livePods(core, namespace, labels)).every((pod) => pod.spec?.nodeName !== serving), 'the drained node runs no replica');
  assert.is(drainClient.failedAttempts, 0, `a drain fails no request: ${drainFigures}`);
});

nodeLoss('a drain of the node holding both replicas must wait on the budget: one eviction is refused (429) and retried, no request fails', async () => {
  const { kc, namespace, cluster: node } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  const env = { ...process.env, KUBECONFIG: node.plane.kubeconfigPath };
  // Both replicas on one node: the others are cordoned while the app is placed (the spread is only preferred).
  const target = node.nodes[0].name;
  const others = node.nodes.slice(1).map((n) => n.name);
  for (const name of others) await run(node.kubectl, ['cordon', name], { env });
  const { host, labels } = await deployApp(kc, node, namespace, 'packed').finally(async () => {
    for (const name of others) await run(node.kubectl, ['uncordon', name], { env });
  });
  assert.equal((await livePods(core, namespace, labels)).map((pod) => pod.spec?.nodeName), [target, target], 'both replicas on the one schedulable node');

  const client = new ClientLoop(node.ingress.address, host);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const started = Date.now();
  // kubectl evicts both pods at once; the budget (one unavailable at most) lets one go and refuses the other with
  // 429 Too Many Requests, which kubectl reports and retries until the first one's replacement is ready.
  const { stdout, stderr } = await run(node.kubectl, ['drain', target, '--ignore-daemonsets', '--delete-emptydir-data', '--timeout=180s'], { env });
  const drained = Date.now();
  await waitFor('two ready replicas after the drain', async () => (await livePods(core, namespace, labels)).filter(isReady).length === 2, 120_000);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const figures = await client.stop();
  await run(node.kubectl, ['uncordon', target], { env });
  const refusals = stderr.split('\n').filter((line) => /Cannot evict pod as it would violate the pod's disruption budget/.test(line));
  process.stderr.write(`node-loss: drain of ${target} holding both replicas took ${seconds(drained - started)}, ${refusals.length} eviction(s) refused by the budget and retried; client: ${figures}\n`);
  assert.ok(refusals.length >= 1, `the budget refused an eviction (429) and kubectl waited:\n${stderr}`);
  assert.match(stdout, /evicted/, stdout);
  assert.ok((await livePods(core, namespace, labels)).every((pod) => pod.spec?.nodeName !== target), 'the drained node runs no replica');
  assert.is(client.failedAttempts, 0, `a drain that waits on the budget fails no request: ${figures}`);
});

nodeLoss('the in-cluster controller\'s standby takes the leader Lease when the leader\'s node dies', async () => {
  const { kc, cluster: node } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  const leases = kc.makeApiClient(CoordinationV1Api);
  const on = { kubeconfig: node.plane.kubeconfigPath, kubectlPath: node.kubectl };
  world = createWorld('walrus-node-loss-');
  devnet = await startDevnetServer(world, node.network.hostIp);
  await kubectl(['apply', '-k', join(REPO_ROOT, 'deploy')], on);
  // The pods reach the devnet server on the first node's host address, from whichever node they run on.
  await kubectl(['-n', INSTALL_NAMESPACE, 'patch', 'configmap', 'walrus-network', '--type', 'merge', '--patch', JSON.stringify({ data: devnet.env })], on);
  const selector = 'app.kubernetes.io/component=controller';
  const readyControllers = async () => (await core.listNamespacedPod({ namespace: INSTALL_NAMESPACE, labelSelector: selector })).items
    .filter((pod) => !pod.metadata?.deletionTimestamp && isReady(pod));
  const pods = await waitFor('both controller replicas ready', async () => {
    const ready = await readyControllers();
    return ready.length === 2 && ready;
  }, 240_000);
  assert.is(new Set(pods.map((pod) => pod.spec?.nodeName)).size, 2, 'the controller\'s replicas run on two nodes');
  const holder = async () => (await leases.readNamespacedLease({ name: LEASE_NAME, namespace: INSTALL_NAMESPACE })).spec?.holderIdentity;
  const leader = await waitFor('a leader', async () => {
    const identity = await holder().catch(() => undefined);
    return pods.find((pod) => pod.metadata?.name === identity);
  }, 120_000);
  const standby = pods.find((pod) => pod !== leader)!;
  const victim = node.nodes.find((candidate) => candidate.name === leader.spec!.nodeName)!;
  const killedAt = Date.now();
  await victim.kill();
  const tookOverAt = await waitFor('the standby holding the Lease', async () => (await holder()) === standby.metadata!.name && Date.now(), 120_000);
  process.stderr.write(`node-loss: the leading controller's node ${victim.name} killed; the standby ${standby.metadata!.name} took the Lease after ${seconds(tookOverAt - killedAt)}\n`);
  await victim.start();
  await kubectl(['-n', INSTALL_NAMESPACE, 'scale', 'deployment', LEASE_NAME, '--replicas=0'], on);
});

nodeLoss.run();
