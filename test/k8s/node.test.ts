import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CoreV1Api, KubeConfig, VersionApi } from '@kubernetes/client-node';
import { leftoversOf, sweepDeadRuns } from '../cluster/node/cleanup.ts';
import { createNodeNetwork } from '../cluster/node/network.ts';
import { processStartTime } from '../cluster/node/run-state.ts';
import type { NodeNetwork } from '../cluster/node/network.ts';
import { testCluster, waitFor } from './support/control-plane.ts';
import { explainService } from './support/service-datapath.ts';

const sh = promisify(execFile);
const log = (line: string) => process.stderr.write(`${line}\n`);
const NETWORK_MODULE = fileURLToPath(new URL('../cluster/node/network.ts', import.meta.url));
const POD_A = '0a0a0a0a-1111-4111-8111-000000000001';
const POD_B = '0b0b0b0b-2222-4222-8222-000000000002';

/** A tiny HTTP server inside a pod's namespace answering with the address it was reached on. */
function serveIn(netnsPath: string, port: number): ChildProcess {
  const script = `require('http').createServer((q, s) => s.end(q.socket.localAddress)).listen(${port}, '0.0.0.0', () => console.log('listening'))`;
  const child = spawn('nsenter', [`--net=${netnsPath}`, process.execPath, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return child;
}

const listening = (child: ChildProcess) => new Promise<void>((resolve, reject) => {
  child.stdout!.once('data', () => resolve());
  child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
});

function httpGet(host: string, port: number, path = '/'): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, agent: false, timeout: 3000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve(body));
    });
    req.on('timeout', () => req.destroy(new Error(`GET http://${host}:${port}${path} timed out`))).on('error', reject).end();
  });
}

/** Runs a command in a namespace, returning its stdout. */
const inNetns = async (netnsPath: string, command: string, ...args: string[]) =>
  (await sh('nsenter', [`--net=${netnsPath}`, command, ...args], { timeout: 30_000 })).stdout;

const network = suite('node network');

network('pods get their own addresses on the bridge, reach each other, the host and the npm registry; nothing is left after destroy', async () => {
  const net: NodeNetwork = await createNodeNetwork({ stateDir: mkdtempSync(join(tmpdir(), 'grw-node-test-')), log });
  const servers: ChildProcess[] = [];
  try {
    const a = await net.attachPod(POD_A);
    const b = await net.attachPod(POD_B);
    assert.is.not(a.ip, b.ip);
    assert.equal(await net.attachPod(POD_A), a, 'attaching again returns the same pod network');
    // The same port in both pods: each has its own network namespace.
    for (const pod of [a, b]) servers.push(serveIn(pod.netnsPath, 8080));
    await Promise.all(servers.map(listening));
    assert.is(await httpGet(a.ip, 8080), a.ip, 'the host reaches a pod by its IP');
    assert.is(await httpGet(b.ip, 8080), b.ip);
    assert.is((await inNetns(a.netnsPath, 'curl', '-sS', '--max-time', '5', `http://${b.ip}:8080/`)), b.ip, 'pod to pod over the bridge');
    const hostSeen = await inNetns(a.netnsPath, 'ip', '-j', 'route', 'get', net.hostIp);
    assert.ok(hostSeen.includes(net.hostIp), 'a pod routes to the host address');
    // Egress through the node and the host's NAT: the registry answers a metadata request.
    const status = await inNetns(a.netnsPath, process.execPath, '-e',
      `fetch('https://registry.npmjs.org/is-number', { signal: AbortSignal.timeout(20000) }).then(async (r) => process.stdout.write(r.status + " " + (await r.json()).name))`);
    assert.is(status.trim(), '200 is-number', 'a pod reaches the npm registry through the node NAT');

    await net.detachPod(POD_B);
    await net.detachPod(POD_B);
    const namespaces = (await sh('ip', ['netns', 'list'])).stdout;
    assert.not.ok(namespaces.includes(b.netnsPath.split('/').pop()!), 'a detached pod\'s namespace is gone');
    assert.ok(namespaces.includes(a.netnsPath.split('/').pop()!));
  } finally {
    for (const server of servers) server.kill('SIGKILL');
    await net.destroy();
  }
  assert.equal(await leftoversOf(net.runId), []);
  const tag = `grw-${net.runId}`;
  const [netns, links, rules] = await Promise.all([sh('ip', ['netns', 'list']), sh('ip', ['link', 'show']), sh('iptables-save', [])]);
  for (const [what, out] of [['ip netns', netns], ['ip link', links], ['iptables-save', rules]] as const) {
    assert.not.ok(out.stdout.includes(tag), `${what} still shows ${tag}`);
  }
});

network('a run killed outright is removed by the next sweep, processes in its pods included', async () => {
  const script = `
    import { createNodeNetwork } from ${JSON.stringify(NETWORK_MODULE)};
    import { spawn } from 'node:child_process';
    const net = await createNodeNetwork({ stateDir: ${JSON.stringify(mkdtempSync(join(tmpdir(), 'grw-node-test-')))}, log: () => {} });
    const pod = await net.attachPod(${JSON.stringify(POD_A)});
    // A process of its own session, so it outlives this one: only the sweep can end it.
    spawn('nsenter', ['--net=' + pod.netnsPath, 'sleep', '600'], { detached: true, stdio: 'ignore' }).unref();
    console.log(net.runId);
    setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const runId = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').once('data', (line: string) => resolve(line.trim()));
    child.once('exit', (code) => reject(new Error(`the run exited (${code}) before it was up`)));
  });
  await waitFor('the pod\'s sleeper', async () => (await sh('ip', ['netns', 'pids', `grw-${runId}-0a0a0a0a`])).stdout.trim() !== '');
  const sleeper = Number((await sh('ip', ['netns', 'pids', `grw-${runId}-0a0a0a0a`])).stdout.trim());
  assert.ok((await leftoversOf(runId)).length >= 4, 'the run made namespaces, a link, rules and a state file');
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));

  await sweepDeadRuns(log);
  assert.equal(await leftoversOf(runId), []);
  assert.is(processStartTime(sleeper), undefined, 'the process left in the pod is gone');
});

network.run();

const cluster = testCluster('node');
const proxy = suite('kube-proxy');
proxy.after(() => cluster.stop());

proxy('the host reaches the apiserver through the kubernetes Service ClusterIP', async () => {
  const { kc, cluster: node } = await cluster.get();
  const service = await kc.makeApiClient(CoreV1Api).readNamespacedService({ name: 'kubernetes', namespace: 'default' });
  assert.is(service.spec?.clusterIP, node.network.apiServiceIp);
  // The same admin credentials, addressed to the ClusterIP: kube-proxy's DNAT, then the relay on hostIp.
  const viaService = new KubeConfig();
  viaService.loadFromOptions({
    clusters: [{ ...kc.getCurrentCluster()!, server: `https://${node.network.apiServiceIp}:443` }],
    users: kc.getUsers(), contexts: kc.getContexts(), currentContext: kc.getCurrentContext(),
  });
  const direct = await kc.makeApiClient(VersionApi).getCode();
  const throughService = await viaService.makeApiClient(VersionApi).getCode();
  assert.is(throughService.gitVersion, 'v1.20.2');
  assert.is(throughService.gitVersion, direct.gitVersion);
});

proxy('a Service reaches only the ready endpoints of its EndpointSlice', async () => {
  const { namespace, cluster: node } = await cluster.get();
  const uids = ['5e5e5e5e-0000-4000-8000-000000000001', '6f6f6f6f-1111-4000-8000-000000000002'];
  const pods = await Promise.all(uids.map((uid) => node.network.attachPod(uid)));
  const servers = pods.map((pod) => serveIn(pod.netnsPath, 9090));
  // kube-proxy 1.20 reads EndpointSlices. Written here for a Service without a selector (not as Endpoints:
  // 1.20.2's mirroring controller copies notReadyAddresses as ready, kubernetes#102683).
  const slice = (readyOfSecond: boolean) => JSON.stringify({
    apiVersion: 'discovery.k8s.io/v1beta1', kind: 'EndpointSlice', addressType: 'IPv4',
    metadata: { name: 'manual-1', namespace, labels: { 'kubernetes.io/service-name': 'manual', 'endpointslice.kubernetes.io/managed-by': 'node.test' } },
    ports: [{ port: 9090, protocol: 'TCP' }],
    endpoints: [
      { addresses: [pods[0].ip], conditions: { ready: true } },
      { addresses: [pods[1].ip], conditions: { ready: readyOfSecond } },
    ],
  });
  const kubectl = (input: string, ...args: string[]) => new Promise<string>((resolve, reject) => {
    const child = execFile(node.kubectl, ['--kubeconfig', node.plane.kubeconfigPath, ...args], (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)));
    child.stdin!.end(input);
  });
  const answers = async (ip: string, count: number) => {
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) seen.add(await httpGet(ip, 80));
    return [...seen].sort();
  };
  try {
    await Promise.all(servers.map(listening));
    await kubectl(JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'manual', namespace }, spec: { ports: [{ port: 80, targetPort: 9090 }] } }), 'apply', '-f', '-');
    await kubectl(slice(false), 'apply', '-f', '-');
    const ip = JSON.parse(await kubectl('', '-n', namespace, 'get', 'service', 'manual', '-o', 'json')).spec.clusterIP as string;
    const explained = async (error: Error) => { throw new Error(`${error.message}${await explainService(node, ip)}`); };
    await waitFor(`Service ${ip} to answer`, () => httpGet(ip, 80).catch(() => undefined), 30_000).catch(explained);
    // Each pod answers with the address the connection reached it on: the DNAT happened in the node.
    assert.equal(await answers(ip, 20), [pods[0].ip], 'the endpoint that is not ready gets no request');
    await kubectl(slice(true), 'apply', '-f', '-');
    await waitFor('both endpoints to answer', async () => (await answers(ip, 10)).length === 2, 30_000).catch(explained);
    assert.equal(await answers(ip, 40), pods.map((p) => p.ip).sort());
  } finally {
    for (const server of servers) server.kill('SIGKILL');
    for (const uid of uids) await node.network.detachPod(uid);
  }
});

proxy.run();
