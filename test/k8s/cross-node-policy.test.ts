/**
 * NetworkPolicy between pods on different nodes of the three-node cluster: each node's enforcer sees only the packets
 * that cross its own namespace, so an ingress rule is held by the destination's node and an egress rule by the
 * source's, for peers whose addresses it learns from the API (pods it does not run). Pods are pinned to nodes
 * (`nodeName`) so every path here crosses between two nodes; connections are opened from inside the pods' network
 * namespaces and counted.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import { testCluster, waitFor } from './support/control-plane.ts';
import { pod, runningPod, shell } from './support/pods.ts';
import { probeFrom, refused, tally, type Attempt } from './support/connect-probe.ts';

const cluster = testCluster('netpol-nodes', { nodes: 3 });
const test = suite('NetworkPolicy between nodes (3 nodes, each with its enforcer)');
const PORT = 8080;
const ATTEMPTS = 10;
const SERVER = `require('http').createServer((q, s) => s.end(process.env.HOSTNAME + '\\n')).listen(${PORT})`;
let other: string | undefined;

test.after(async () => {
  const t = await cluster.get().catch(() => undefined);
  if (t && other) await t.kc.makeApiClient(CoreV1Api).deleteNamespace({ name: other }).catch(() => {});
  await cluster.stop();
});

const step = (text: string) => process.stderr.write(`cross-node-policy: ${text}\n`);
const answered = (attempts: Attempt[]) => attempts.every((attempt) => attempt.outcome === 'answered');

test('an ingress rule holds at the destination\'s node and an egress rule at the source\'s, for peers on other nodes; removing them opens the paths', async () => {
  const { kc, namespace, cluster: node } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  const networking = kc.makeApiClient(NetworkingV1Api);
  const [first, second, third] = node.nodes.map((n) => n.name);
  other = `${namespace}-other`;
  await core.createNamespace({ body: { metadata: { name: other } } });

  // srv on the second node admits only role=client pods of its namespace; open on the third admits everyone.
  const server = (name: string, on: string, labels: Record<string, string>) =>
    ({ ...pod(name, { nodeName: on, containers: [shell('app', `exec node -e "${SERVER}"`)] }), metadata: { name, labels } });
  const idle = (name: string, on: string, labels: Record<string, string>) =>
    ({ ...pod(name, { nodeName: on, containers: [shell('app', 'exec sleep 3600')] }), metadata: { name, labels } });
  const [srv, open, friend, stranger, foreign] = await Promise.all([
    runningPod(kc, namespace, server('srv', second, { app: 'srv' })),
    runningPod(kc, namespace, server('open', third, { app: 'open' })),
    runningPod(kc, namespace, idle('friend', third, { role: 'client' })),
    runningPod(kc, namespace, idle('stranger', first, { role: 'stranger' })),
    runningPod(kc, other, idle('foreign', third, { role: 'client' })),
  ]);
  const to = (p: V1Pod, count = 1) => ({ host: p.status!.podIP!, port: PORT, http: true, count });
  const attempts = async (from: V1Pod, target: V1Pod, count = 1) => (await probeFrom(node.network.runId, from, [to(target, count)]))[0]!;

  // Without a policy every path between the nodes answers.
  await waitFor('every pod reaching srv and open across nodes', async () => {
    for (const from of [friend, stranger, foreign]) if (!answered(await attempts(from, srv)) || !answered(await attempts(from, open))) return false;
    return true;
  }, 60_000);

  const policies: V1NetworkPolicy[] = [
    {
      metadata: { name: 'srv-from-clients' },
      spec: { podSelector: { matchLabels: { app: 'srv' } }, policyTypes: ['Ingress'], ingress: [{ _from: [{ podSelector: { matchLabels: { role: 'client' } } }], ports: [{ port: PORT }] }] },
    },
    { metadata: { name: 'stranger-no-egress' }, spec: { podSelector: { matchLabels: { role: 'stranger' } }, policyTypes: ['Egress'], egress: [] } },
  ];
  const appliedAt = Date.now();
  for (const body of policies) await networking.createNamespacedNetworkPolicy({ namespace, body });
  await waitFor('the policies enforced on every node', async () =>
    answered(await attempts(friend, srv)) && (await attempts(stranger, open)).every(refused) && (await attempts(foreign, srv)).every(refused), 30_000);
  step(`policies applied → enforced across nodes in ${((Date.now() - appliedAt) / 1000).toFixed(2)} s`);

  const allowed = await attempts(friend, srv, ATTEMPTS);
  const otherNamespace = await attempts(foreign, srv, ATTEMPTS);
  const noEgress = [...await attempts(stranger, open, ATTEMPTS), ...await attempts(stranger, srv, ATTEMPTS)];
  const stillOpen = await attempts(friend, open, ATTEMPTS);
  step(`friend (${third}) → srv (${second}): ${JSON.stringify(tally(allowed))}; foreign (other namespace, ${third}) → srv: ${JSON.stringify(tally(otherNamespace))}; ` +
    `stranger (${first}, no egress) → open and srv: ${JSON.stringify(tally(noEgress))}; friend → open (no policy): ${JSON.stringify(tally(stillOpen))}`);
  assert.ok(answered(allowed), `the rule's own peer gets through across nodes: ${JSON.stringify(tally(allowed))}`);
  assert.ok(otherNamespace.every(refused), `a pod with the right labels in another namespace does not: ${JSON.stringify(tally(otherNamespace))}`);
  assert.ok(noEgress.every(refused), `the egress rule holds on the source's node: ${JSON.stringify(tally(noEgress))}`);
  assert.ok(answered(stillOpen), `a pod no policy selects still answers: ${JSON.stringify(tally(stillOpen))}`);

  for (const body of policies) await networking.deleteNamespacedNetworkPolicy({ namespace, name: body.metadata!.name! });
  await waitFor('the paths open again once the policies are gone', async () =>
    answered(await attempts(foreign, srv)) && answered(await attempts(stranger, open)) && answered(await attempts(stranger, srv)), 30_000);
});

test.run();
