/**
 * Tenants isolated from each other on one provider, on the real plane with the node's NetworkPolicy enforcer: two
 * tenants open leases on a provider (a `git walrus devnet` server on the node's host address); `git walrus controller
 * --provider` makes their namespaces with the isolation its offer gives (its app template suspended: no build is
 * needed here), and each tenant's app pods run as the controller's templates make them (labels, Service, ingress
 * allowance, B's Ingress). Connections are opened from inside the pods' network namespaces and counted: across tenants
 * nothing gets through, within a tenant and from the ingress controller everything does, B's app answers through its
 * URL (the cluster's ingress stand-in) once its allowance admits the ingress's address; the API server and the provider
 * controller's pods are out of reach; a build over the quota is refused naming it; a changed offer reaches the
 * namespaces; a policy removed opens its path again; a lease closed takes its namespace and policies with it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { CoreV1Api, CustomObjectsApi, NetworkingV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1Pod } from '@kubernetes/client-node';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../src/ports/walrus-app.ts';
import { parseOffer } from '../../src/gitops/api/offer.ts';
import { leaseAppName, tenantNamespace } from '../../src/gitops/provider/plan.ts';
import { selectorLabels } from '../../src/gitops/templates/names.ts';
import { appService } from '../../src/gitops/templates/run.ts';
import { appHost, appIngress } from '../../src/gitops/templates/ingress.ts';
import { appNetworkPolicy } from '../../src/gitops/templates/network-policy.ts';
import { buildJob } from '../../src/gitops/templates/build-job.ts';
import { buildRefusal } from '../../src/gitops/reconcile/isolation.ts';
import { KubernetesCluster } from '../../src/k8s/cluster.ts';
import { createWorld, type World } from '../../scripts/harness/world.ts';
import { testCluster, waitFor } from './support/control-plane.ts';
import { explainService } from './support/service-datapath.ts';
import { installWalrusAppCrd, walrusIn } from './support/gitops.ts';
import { helloRepository, httpGet, startControllerProcess, startDevnetServer, type ControllerProcess } from '../../scripts/harness/gitops.ts';
import { pod, runningPod, shell } from './support/pods.ts';
import { probeFrom, refused, summary, tally, type Attempt } from './support/connect-probe.ts';

const cluster = testCluster('isolation');
const test = suite('tenant isolation: network policy, quota and limits on a shared provider (real plane, node enforcer)');
const step = (text: string) => process.stderr.write(`tenant-isolation: ${text}\n`);
const PORT = 8080;
const ATTEMPTS = 20;

const SERVER = `require('http').createServer((q, s) => s.end(process.env.HOSTNAME + '\\n')).listen(${PORT})`;

let kc: KubeConfig;
let world: World | undefined;
let devnet: Awaited<ReturnType<typeof startDevnetServer>> | undefined;
let controller: ControllerProcess | undefined;
let tenantNamespaces: string[] = [];

test.after(async () => {
  await controller?.kill('SIGKILL');
  const core = kc?.makeApiClient(CoreV1Api);
  for (const namespace of tenantNamespaces) await core?.deleteNamespace({ name: namespace }).catch(() => {});
  await devnet?.stop();
  world?.remove();
  await cluster.stop();
});

test('two tenants on one provider: isolated both ways, reachable as allowed, quota enforced, policies follow changes and the lease', async () => {
  const t = await cluster.get();
  ({ kc } = t);
  const { namespace: providerNs, cluster: node } = t;
  const core = kc.makeApiClient(CoreV1Api);
  const networking = kc.makeApiClient(NetworkingV1Api);
  await installWalrusAppCrd(kc);

  // The provider's side: its controller's pod and an ingress controller pod (both in its namespace), and the cluster's
  // ingress stand-in (nginx, from an address of its own). Room for the release and one default build (1 cpu, 1Gi); a container may ask up to 4Gi, more than the quota holds.
  const offerJson = {
    quota: { cpu: '2', memory: '2Gi', pods: 10 },
    limits: { default: { cpu: '100m', memory: '128Mi' }, max: { memory: '4Gi' } },
    ingress: {
      domain: 'apps.test', className: node.ingress.className,
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': providerNs } }, podSelector: { matchLabels: { role: 'ingress' } } }, { ipBlock: { cidr: `${node.ingress.address}/32` } }],
    },
  };
  const offer = parseOffer(offerJson);

  // Two tenants lease one repository from one provider on chain.
  world = createWorld('walrus-isolation-');
  devnet = await startDevnetServer(world, node.network.hostIp);
  const keys = { provider: Ed25519Keypair.generate(), a: Ed25519Keypair.generate(), b: Ed25519Keypair.generate() };
  const as = (key: Ed25519Keypair) => ({ ...devnet!.env, GIT_WALRUS_KEY: key.getSecretKey() });
  const walrus = walrusIn(world);
  await helloRepository(world, as(keys.a));
  await world.ok('app', ['commit', '-qm', 'hello']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: as(keys.a) });
  const providerId = await walrus(['provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', `http://${node.network.hostIp}`], as(keys.provider));
  const leases = [await walrus(['lease', 'open', 'walrus', '--provider', providerId, '--deposit', '5'], as(keys.a)), await walrus(['lease', 'open', 'walrus', '--provider', providerId, '--deposit', '5'], as(keys.b))];
  const tenantOf = async (lease: string) => (await walrus(['lease', 'show', lease], as(keys.a))).match(/^tenant\s+(0x[0-9a-f]{64})$/m)![1]!;
  const [nsA, nsB] = [tenantNamespace(await tenantOf(leases[0]!)), tenantNamespace(await tenantOf(leases[1]!))];
  assert.is.not(nsA, nsB);
  tenantNamespaces = [nsA, nsB];

  const runController = (withOffer: object, identity: string) => {
    const offerFile = world!.path(`${identity}-offer.json`);
    writeFileSync(offerFile, JSON.stringify(withOffer));
    const specFile = world!.path(`${identity}-app.json`);
    writeFileSync(specFile, JSON.stringify({ suspend: true, port: PORT }));
    return startControllerProcess(world!, as(keys.provider), identity, [
      '--kubeconfig', node.plane.kubeconfigPath, '--controller-namespace', providerNs, '--poll-ms', '500',
      '--provider', providerId, '--provider-app-spec', specFile, '--provider-offer', offerFile, '--provider-interval-ms', '1000',
    ]);
  };
  controller = runController(offerJson, 'provider-1');
  const isolated = (namespace: string) => core.readNamespace({ name: namespace }).then((ns) => ns.metadata?.annotations?.['market.walrus-git.dev/isolation-hash'], () => undefined);
  await waitFor('both tenant namespaces isolated', async () => (await isolated(nsA)) && (await isolated(nsB)), 60_000).catch((error: Error) => {
    throw new Error(`${error.message}\n${controller!.output().slice(-3000)}`);
  });
  for (const ns of tenantNamespaces) {
    const policies = (await networking.listNamespacedNetworkPolicy({ namespace: ns })).items.map((policy) => policy.metadata!.name).sort();
    assert.equal(policies, ['tenant-build-egress', 'tenant-default-deny', 'tenant-egress', 'tenant-same-namespace']);
    assert.is((await core.listNamespacedResourceQuota({ namespace: ns })).items[0]?.spec?.hard?.['limits.memory'], '2Gi');
    assert.is((await core.listNamespacedLimitRange({ namespace: ns })).items.length, 1);
  }

  // Each tenant's app: two pods as the Deployment's, its Service and its ingress allowance, from the templates; B's
  // Ingress too. The allowance first without the stand-in's address, to see B's URL closed before it opens.
  const objects = kc.makeApiClient(CustomObjectsApi);
  const appOf = (i: 0 | 1) => objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: tenantNamespaces[i]!, name: leaseAppName(leases[i]!) }) as Promise<WalrusApp>;
  const apps = [await waitFor('tenant A\'s app', () => appOf(0)), await waitFor('tenant B\'s app', () => appOf(1))];
  const serve = (app: WalrusApp, name: string) => runningPod(kc, app.metadata.namespace!, { ...pod(name, { containers: [shell('app', `exec node -e "${SERVER}"`, { ports: [{ name: 'http', containerPort: PORT }] })] }), metadata: { name, labels: selectorLabels(app, 'run') } });
  const apiObjects = new KubernetesCluster(kc, { log: step });
  for (const app of apps) {
    await apiObjects.apply(appService(app));
    await apiObjects.apply(appNetworkPolicy(app, offer.ingress!.from.filter((peer) => !peer.ipBlock)));
  }
  await apiObjects.apply(appIngress(apps[1]!, offer.ingress!));
  const [a0, a1, b0, b1, ingress, controllerPod] = await Promise.all([
    serve(apps[0]!, 'web-0'), serve(apps[0]!, 'web-1'), serve(apps[1]!, 'web-0'), serve(apps[1]!, 'web-1'),
    runningPod(kc, providerNs, { ...pod('ingress', { containers: [shell('nginx', `exec node -e "${SERVER}"`)] }), metadata: { name: 'ingress', labels: { role: 'ingress' } } }),
    runningPod(kc, providerNs, { ...pod('controller', { containers: [shell('controller', `exec node -e "${SERVER}"`)] }), metadata: { name: 'controller', labels: { role: 'controller' } } }),
  ]);
  const serviceB = (await core.readNamespacedService({ name: apps[1]!.metadata.name, namespace: nsB })).spec!.clusterIP!;
  const apiPort = Number(new URL(node.plane.server).port);
  const probe = (from: V1Pod, targets: { host: string; port: number; count?: number; http?: boolean }[]) => probeFrom(node.network.runId, from, targets);
  const ip = (p: V1Pod) => p.status!.podIP!;
  // Every server listens, the enforcer has every pod's address (as with a CNI, policy follows a new pod shortly
  // after it runs) and kube-proxy has B's Service's endpoints (it syncs a moment after the EndpointSlice changes:
  // until then the Service rejects as one with none) once each allowed path answers.
  const allAnswered = (attempts: Attempt[]) => attempts.every((attempt) => attempt.outcome === 'answered');
  const answers = async (from: V1Pod, to: V1Pod[]) => allAnswered((await probe(from, to.map((p) => ({ host: ip(p), port: PORT, http: true })))).flat());
  const serviceAnswers = async (from: V1Pod) => allAnswered((await probe(from, [{ host: serviceB, port: 80, http: true }]))[0]!);
  await waitFor('the allowed paths answer', async () => await answers(b0, [b1, b0]) && await answers(b1, [b0]) && await answers(a0, [a1]) && await answers(ingress, [b0, b1, controllerPod])
    && await serviceAnswers(b0) && await serviceAnswers(ingress), 30_000).catch(async (error: Error) => { throw new Error(`${error.message}${await podsNow(kc, [nsB])}${await explainService(node, serviceB)}`); });

  // B's URL through the ingress stand-in: no answer from B's app while its allowance leaves out the stand-in's address
  // (nginx's 502, or 504 if dropped), 200 from B's pods once it names it.
  const viaUrl = () => httpGet(node.ingress.address, 80, '/', 8000, { Host: appHost(apps[1]!, offer.ingress!.domain) });
  const closed = await waitFor('B\'s URL served by the ingress', async () => { const { status } = await viaUrl(); return status !== 404 && status !== 503 && status; }, 30_000);
  assert.ok(closed === 502 || closed === 504, `B's URL without the allowance: ${closed}`);
  await apiObjects.apply(appNetworkPolicy(apps[1]!, offer.ingress!.from));
  await waitFor('B\'s URL answering', async () => (await viaUrl()).status === 200, 30_000);
  const urlAnswers = await Promise.all(Array.from({ length: ATTEMPTS }, viaUrl));
  const fromB = urlAnswers.filter(({ status, body }) => status === 200 && /^web-[01]$/.test(body.trim()));
  step(`B's URL through the ingress: ${closed} from nginx without the allowance; with it ${urlAnswers.length} requests, ${fromB.length} answered 200 by B's pods, ${urlAnswers.length - fromB.length} failed`);
  assert.is(fromB.length, urlAnswers.length, JSON.stringify(urlAnswers.filter((answer) => !fromB.includes(answer))));

  const started = Date.now();
  const [toPodB, toServiceB, toOwn] = await probe(a0, [
    { host: ip(b0), port: PORT, count: ATTEMPTS }, { host: serviceB, port: 80, count: ATTEMPTS }, { host: ip(b1), port: PORT, count: ATTEMPTS },
  ]);
  const cross = [...toPodB!, ...toServiceB!, ...toOwn!];
  const through = cross.filter((attempt) => attempt.outcome === 'connected');
  step(`cross-tenant: ${cross.length} connection attempts (A → B's pods and Service), ${through.length} got through; outcomes ${JSON.stringify(tally(cross))}, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.is(through.length, 0, 'no connection across tenants');
  assert.ok(cross.every(refused), JSON.stringify(tally(cross)));
  // The other way round too.
  const back = (await probe(b0, [{ host: ip(a0), port: PORT, count: 5 }]))[0]!;
  assert.ok(back.every(refused), JSON.stringify(tally(back)));

  // What is allowed answers: B's own pods and Service from B; B's app from the ingress controller (pod and Service).
  const [own, ownService] = await probe(b0, [{ host: ip(b1), port: PORT, count: 5, http: true }, { host: serviceB, port: 80, count: 5, http: true }]);
  // The explanation is read only when it is needed: it takes a moment.
  const unanswered = async (pod: Attempt[], service: Attempt[]) => `pod ${JSON.stringify(tally(pod))}, Service ${JSON.stringify(tally(service))}${await podsNow(kc, [nsB])}${await explainService(node, serviceB)}`;
  const ownAnswered = allAnswered([...own!, ...ownService!]);
  assert.ok(ownAnswered, ownAnswered ? undefined : await unanswered(own!, ownService!));
  const [fromIngress, fromIngressService] = await probe(ingress, [{ host: ip(b0), port: PORT, count: 5, http: true }, { host: serviceB, port: 80, count: 5, http: true }]);
  const ingressAnswered = allAnswered([...fromIngress!, ...fromIngressService!]);
  assert.ok(ingressAnswered, ingressAnswered ? undefined : await unanswered(fromIngress!, fromIngressService!));
  // The provider's other pods are not the ingress controller: refused.
  assert.ok((await probe(controllerPod, [{ host: ip(b0), port: PORT, count: 3 }]))[0]!.every(refused));

  // Out of a tenant's reach: the API server (by its Service and its address) and the provider controller's pod.
  const [api, apiDirect, toController] = await probe(a0, [
    { host: node.network.apiServiceIp, port: 443, count: 3 }, { host: node.network.hostIp, port: apiPort, count: 3 }, { host: ip(controllerPod), port: PORT, count: 3 },
  ]);
  assert.ok([...api!, ...apiDirect!, ...toController!].every(refused), JSON.stringify(tally([...api!, ...apiDirect!, ...toController!])));

  // Added latency: the same source, one request per new connection, to a pod behind an ingress chain vs one not isolated.
  // Alternated, so both see the same load on this shared machine.
  const alternated = await probe(ingress, Array.from({ length: 200 }, () => [{ host: ip(b1), port: PORT, http: true }, { host: ip(controllerPod), port: PORT, http: true }]).flat());
  const toIsolated = alternated.filter((_, i) => i % 2 === 0).flat();
  const toOpen = alternated.filter((_, i) => i % 2 === 1).flat();
  step(`per request (new connection, HTTP): to an isolated pod ${summary(toIsolated)}, to a pod without policy ${summary(toOpen)}`);

  // A build asking more memory than the quota holds is refused, naming the quota.
  const greedy = { ...apps[1]!, spec: { ...apps[1]!.spec, build: { resources: { limits: { memory: '3Gi' } } } } };
  const refusal = await buildRefusal(apiObjects, buildJob(greedy, { commit: 'c'.repeat(40), configHash: 'f'.repeat(16) }));
  assert.ok(refusal, 'refused');
  assert.is(refusal.reason, 'QuotaExceeded');
  assert.ok(refusal.permanent);
  assert.match(refusal.message, /exceeded quota: tenant-quota/);
  assert.is(await buildRefusal(apiObjects, buildJob(apps[1]!, { commit: 'c'.repeat(40), configHash: 'f'.repeat(16) })), null, 'a build within the quota is admitted');

  // A changed offer reaches the namespaces (the controller restarted with it).
  await controller.kill('SIGTERM');
  const before = await isolated(nsB);
  controller = runController({ ...offerJson, quota: { ...offerJson.quota, pods: 9 } }, 'provider-2');
  await waitFor('the changed offer in B\'s namespace', async () => (await isolated(nsB)) !== before && (await core.listNamespacedResourceQuota({ namespace: nsB })).items[0]?.spec?.hard?.pods === '9', 60_000);

  // The enforcement follows the API: a policy isolating the controller's pod closes the ingress pod's path; removing it opens it again.
  const denyController = { metadata: { name: 'deny-controller' }, spec: { podSelector: { matchLabels: { role: 'controller' } }, policyTypes: ['Ingress'] } };
  const reaches = async () => (await probe(ingress, [{ host: ip(controllerPod), port: PORT }]))[0]![0]!.outcome;
  assert.is(await reaches(), 'connected');
  let since = Date.now();
  await networking.createNamespacedNetworkPolicy({ namespace: providerNs, body: denyController });
  await waitFor('the new policy enforced', async () => (await reaches()) === 'refused', 15_000);
  const closedIn = (Date.now() - since) / 1000;
  since = Date.now();
  await networking.deleteNamespacedNetworkPolicy({ namespace: providerNs, name: 'deny-controller' });
  await waitFor('the path open again', async () => (await reaches()) === 'connected', 15_000);
  step(`policy change → enforced: added ${closedIn.toFixed(2)} s, removed ${((Date.now() - since) / 1000).toFixed(2)} s`);

  // A lease closed: its namespace goes, and its policies and the enforcer's rules for its pods with it.
  const chainsBefore = await iptablesSave(node.network.nodeNetns);
  assert.ok(chainsBefore.includes(`-d ${ip(a0)}/32 -j GRW-NPI-`));
  assert.match(await walrus(['lease', 'close', leases[0]!], as(keys.a)), /^closed: /);
  await waitFor(`namespace ${nsA} removed`, () => core.readNamespace({ name: nsA }).then(() => false, () => true), 120_000);
  assert.equal((await networking.listNamespacedNetworkPolicy({ namespace: nsA })).items, []);
  await waitFor('the enforcer\'s rules for A\'s pods removed', async () => !(await iptablesSave(node.network.nodeNetns)).includes(`${ip(a0)}/32`), 15_000);
  assert.ok((await core.readNamespace({ name: nsB })).metadata, 'the other tenant keeps its namespace');
});

test('a container over its memory limit is OOMKilled, as a real node reports it', async () => {
  const { namespace } = await cluster.get();
  const hog = `exec node -e "const a = []; for (;;) a.push(Buffer.alloc(1 << 20, 1))"`;
  await kc.makeApiClient(CoreV1Api).createNamespacedPod({ namespace, body: pod('hog', { restartPolicy: 'Never', containers: [shell('hog', hog, { resources: { limits: { memory: '64Mi' } } })] }) });
  const ended = await waitFor('the hog ended', async () => {
    const current = await kc.makeApiClient(CoreV1Api).readNamespacedPod({ namespace, name: 'hog' });
    return current.status?.containerStatuses?.[0]?.state?.terminated;
  }, 60_000);
  assert.is(ended.reason, 'OOMKilled');
  assert.is(ended.exitCode, 137);
});

/** The pods of `namespaces` with their addresses, restarts and last ends: what explains a path that did not answer. */
async function podsNow(kc: KubeConfig, namespaces: string[]): Promise<string> {
  const lines: string[] = [];
  for (const namespace of namespaces) {
    for (const p of (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace })).items) {
      const container = p.status?.containerStatuses?.[0];
      lines.push(`${namespace}/${p.metadata!.name} ${p.status?.podIP} ${p.status?.phase} restarts ${container?.restartCount} last ${JSON.stringify(container?.lastState?.terminated ?? null)}`);
    }
  }
  return `\n${lines.join('\n')}`;
}

async function iptablesSave(netns: string): Promise<string> {
  return (await promisify(execFile)('ip', ['netns', 'exec', netns, 'iptables-save', '-t', 'filter'])).stdout;
}




test.run();
