/**
 * The GitOps controller end to end on the real plane with the process kubelet: git pushes to a `git walrus devnet`
 * server on the node's host address, `git walrus controller` out of cluster, build Jobs running `npm ci` for real,
 * Deployments rolling out behind a Service that kube-proxy serves. The tests run in order and share one app.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync } from 'node:fs';
import { AppsV1Api, BatchV1Api, CoordinationV1Api, CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CoreV1Event, KubeConfig } from '@kubernetes/client-node';
import { RECONCILE_NOW_ANNOTATION } from '../../src/gitops/api/types.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../src/ports/walrus-app.ts';
import { LEASE_NAME } from '../../src/gitops/controller.ts';
import { ANNOTATIONS } from '../../src/gitops/templates/names.ts';
import { createWorld, type World } from '../../scripts/harness/world.ts';
import { testCluster, waitFor } from './support/control-plane.ts';
import { explained, GitopsDiagnostics } from './support/diagnose.ts';
import { installWalrusAppCrd, readyAt as waitReadyAt, startDevnetRelay, type DevnetRelay } from './support/gitops.ts';
import { helloRepository, httpGet, startControllerProcess, startDevnetServer, TEST_BUILD_COMMAND, within, type ControllerProcess } from '../../scripts/harness/gitops.ts';
import { messageOf } from '../../src/core/errors.ts';

const APP = 'hello';
const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;

const cluster = testCluster('gitops-e2e');
const suiteOfTests = suite('GitOps controller end to end (process kubelet, devnet, real npm builds)');
/**
 * Each test says when it starts and, at once, why it failed (uvu reports failures only at the end of the run), with
 * the app's, its Jobs', pods' and controllers' state (support/diagnose.ts). The tests share one app: a test that
 * `needs` a version some earlier test failed to deploy fails at once, saying so, instead of waiting out its own timeouts.
 */
const deployed = new Map<string, boolean>();
const e2e = Object.assign((name: string, options: { deploys?: string; needs?: string }, body: () => Promise<void>) => suiteOfTests(name, async () => {
  step(name);
  try {
    if (options.needs && !deployed.get(options.needs)) throw new Error(`v${options.needs} did not deploy (an earlier test failed): nothing to test this on`);
    await explained(() => diagnostics, body);
    if (options.deploys) deployed.set(options.deploys, true);
  } catch (error) {
    // The first line here; the whole message, diagnostics included, in uvu's report at the end.
    step(`FAILED: ${name}: ${messageOf(error).split('\n')[0]}`);
    throw error;
  }
}), { after: suiteOfTests.after, run: suiteOfTests.run });

let world: World;
let devnetServer: Awaited<ReturnType<typeof startDevnetServer>>;
/** Everyone reaches the devnet through this relay, so a test can cut the node off it. */
let devnet: DevnetRelay;
const controllers: ControllerProcess[] = [];
let kc: KubeConfig;
let namespace: string;
let diagnostics: GitopsDiagnostics | undefined;
let repoUrl: string;
const commits: Record<string, string> = {};

e2e.after(async () => {
  await diagnostics?.stop();
  for (const controller of controllers) await controller.kill('SIGKILL');
  await devnet?.close();
  await devnetServer?.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
  world?.remove();
  await cluster.stop();
});

/** waitFor with each probe limited to 15 s, so one stuck request cannot outlast the wait's own timeout. */
const waitBounded = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs?: number) => waitFor(what, () => within(15_000, probe()), timeoutMs);
const step = (text: string) => process.stderr.write(`gitops-e2e: ${text}\n`);
interface Clients { objects: CustomObjectsApi; core: CoreV1Api; apps: AppsV1Api; batch: BatchV1Api; leases: CoordinationV1Api }
let clients: Clients | undefined;
const api = (): Clients => (clients ??= {
  objects: kc.makeApiClient(CustomObjectsApi), core: kc.makeApiClient(CoreV1Api), apps: kc.makeApiClient(AppsV1Api),
  batch: kc.makeApiClient(BatchV1Api), leases: kc.makeApiClient(CoordinationV1Api),
});
const objects = () => api().objects;
const where = () => ({ group: GROUP, version: VERSION, namespace, plural: PLURAL });
const readApp = async () => (await objects().getNamespacedCustomObject({ ...where(), name: APP })) as WalrusApp;
const condition = (app: WalrusApp, type: string) => app.status?.conditions?.find((c) => c.type === type);
const patchApp = (body: object) => objects().patchNamespacedCustomObject({ ...where(), name: APP, body }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));

let kubeconfigPath: string;

function startController(identity: string): ControllerProcess {
  const args = ['--kubeconfig', kubeconfigPath, '--namespace', namespace, '--controller-namespace', namespace, '--poll-ms', '500'];
  const controller = startControllerProcess(world, devnet.env, identity, args);
  controllers.push(controller);
  return controller;
}

/** Writes the app at `version` (healthy or not) and pushes it; returns the commit. */
async function pushVersion(version: string, options: { healthy?: boolean; dependency?: string; env?: NodeJS.ProcessEnv; startDelayMs?: number } = {}): Promise<string> {
  const pkg = JSON.parse(readFileSync(world.path('app', 'package.json'), 'utf8'));
  pkg.version = version;
  if (options.dependency) pkg.dependencies[options.dependency] = '^99.99.99';
  writeFileSync(world.path('app', 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  let server = readFileSync(world.path('app', 'server.js'), 'utf8').replace(/^const HEALTHY = (true|false);\nawait new Promise.*\n/, '');
  if (!server.includes('!HEALTHY')) server = server.replace("if (pathname === '/healthz') {", "if (pathname === '/healthz') {\n    if (!HEALTHY) { response.writeHead(500).end('unhealthy\\n'); return; }");
  const delay = `await new Promise((resolve) => setTimeout(resolve, ${options.startDelayMs ?? 0}));\n`;
  writeFileSync(world.path('app', 'server.js'), `const HEALTHY = ${options.healthy !== false};\n${delay}${server}`);
  await world.ok('app', ['commit', '-qam', `v${version}`]);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: { ...devnet.env, ...options.env } });
  const commit = await world.ok('app', ['rev-parse', 'HEAD']);
  commits[version] = commit;
  return commit;
}

async function serviceIp(): Promise<string> {
  const service = await api().core.readNamespacedService({ name: APP, namespace });
  return service.spec!.clusterIP!;
}

async function served(): Promise<string | undefined> {
  const { status, body } = await httpGet(await serviceIp(), 80);
  return status === 200 ? (JSON.parse(body) as { version: string }).version : undefined;
}

async function events(): Promise<CoreV1Event[]> {
  return (await api().core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${APP},involvedObject.kind=WalrusApp` })).items;
}

/** How many build Jobs were started for the commit (a retry after an infrastructure failure is one more). */
const buildsOf = async (commit: string) => (await events()).filter((event) => event.reason === 'BuildStarted' && event.message?.includes(commit.slice(0, 12)))
  .reduce((sum, event) => sum + (event.count ?? 1), 0);

const readyAt = (commit: string, timeoutMs = BUILD_MS + ROLLOUT_MS) => waitReadyAt(readApp, commit, timeoutMs);

e2e('push v1 → built in a Job, rolled out, served through the Service', { deploys: '1.0.0' }, async () => {
  ({ kc, namespace } = await cluster.get());
  const node = (await cluster.get()).cluster;
  diagnostics = new GitopsDiagnostics({ kc, cluster: node, apps: () => [{ namespace, name: APP }], controllers: () => controllers });
  diagnostics.start();
  kubeconfigPath = node.plane.kubeconfigPath;
  await installWalrusAppCrd(kc);
  world = createWorld('walrus-gitops-e2e-');
  devnetServer = await startDevnetServer(world, node.network.hostIp);
  devnet = await startDevnetRelay(devnetServer.url, node.network.hostIp);
  repoUrl = await helloRepository(world, devnet.env);
  const v1 = await pushVersion('1.0.0');
  startController('controller-a');

  await objects().createNamespacedCustomObject({ ...where(), body: {
    apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name: APP },
    spec: {
      repository: repoUrl, ref: 'main', replicas: 2, port: 8080,
      health: { path: '/healthz', periodSeconds: 1, failureThreshold: 2 },
      rollout: { maxSurge: 1, maxUnavailable: 0, progressDeadlineSeconds: 25 },
      build: { command: TEST_BUILD_COMMAND },
    },
  } });
  const app = await readyAt(v1);
  assert.is(condition(app, 'Built')?.status, 'True');
  assert.is(condition(app, 'Released')?.reason, 'RolloutSucceeded');
  assert.is(app.status?.artifact?.commit, v1);
  assert.is(app.status?.head?.commit, v1);
  assert.is(app.status?.history?.[0]?.result, 'Released');
  await waitBounded('the Service to serve v1', async () => (await served()) === '1.0.0', ROLLOUT_MS);
  await waitBounded('the finished build Job cleaned up', async () => (await api().batch.listNamespacedJob({ namespace })).items.length === 0, 30_000);
});

e2e('push v2 → rolled out with no failed request from a client looping on the Service', { needs: '1.0.0', deploys: '2.0.0' }, async () => {
  const ip = await serviceIp();
  let failures = 0;
  let requests = 0;
  const seen = new Set<string>();
  let looping = true;
  const loop = (async () => {
    while (looping) {
      const { status, body } = await httpGet(ip, 80, '/', 5000);
      requests++;
      if (status !== 200) failures++;
      else seen.add((JSON.parse(body) as { version: string }).version);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    const v2 = await pushVersion('2.0.0');
    await readyAt(v2);
    await waitBounded('every replica serving v2', async () => (await served()) === '2.0.0' && (await served()) === '2.0.0' && (await served()) === '2.0.0', ROLLOUT_MS);
  } finally {
    looping = false;
    await loop;
  }
  assert.ok(requests > 20, `${requests} requests`);
  assert.is(failures, 0, `${failures} of ${requests} requests failed during the rollout`);
  assert.ok(seen.has('1.0.0') && seen.has('2.0.0'), `versions seen: ${[...seen]}`);
});

e2e('push v3 that never becomes ready → rolled back, v2 keeps serving, status and events say so, v3 is not rebuilt', { needs: '2.0.0' }, async () => {
  const v2 = commits['2.0.0'];
  const v3 = await pushVersion('3.0.0', { healthy: false });
  const app = await waitBounded('the rollback', async () => {
    const current = await readApp();
    return condition(current, 'Remediated')?.status === 'True' && current.status?.failedRevision === v3 && current;
  }, BUILD_MS + ROLLOUT_MS);
  assert.is(condition(app, 'Remediated')?.reason, 'RollbackSucceeded');
  assert.is(condition(app, 'Released')?.status, 'False');
  assert.is(condition(app, 'Ready')?.status, 'False');
  assert.is(condition(app, 'Ready')?.reason, 'RolledBack');
  assert.is(app.status?.lastAppliedRevision, v2);
  assert.is(app.status?.history?.[0]?.result, 'RolledBack');
  // Events follow the status patch: wait for them rather than race the controller.
  await waitBounded('a RollbackSucceeded warning', async () => (await events()).some((event) => event.type === 'Warning' && event.reason === 'RollbackSucceeded'), 30_000);
  await waitBounded('v2 serving after the rollback', async () => (await served()) === '2.0.0' && (await served()) === '2.0.0', ROLLOUT_MS);
  // A forced pass and a wait: v3 is still not built again.
  const builds = await buildsOf(v3);
  assert.ok(builds >= 1, 'v3 was built');
  await patchApp({ metadata: { annotations: { [RECONCILE_NOW_ANNOTATION]: String(Date.now()) } } });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  assert.is(await buildsOf(v3), builds, 'v3 not built again');
  assert.is((await readApp()).status?.failedRevision, v3);
  assert.is(await served(), '2.0.0');
});

e2e('push v4 while the node cannot reach the chain → the checkout fails, is retried after a back-off, v4 deploys (a new head clears the failed revision)', { needs: '1.0.0', deploys: '4.0.0' }, async () => {
  // The pods lose the devnet (chain and Walrus); the controller and the pusher keep it.
  devnet.cutPods(true);
  let v4: string;
  try {
    v4 = await pushVersion('4.0.0');
    await waitBounded('a BuildRetrying warning for v4', async () => (await events()).some((event) =>
      event.type === 'Warning' && event.reason === 'BuildRetrying' && event.message?.includes(v4.slice(0, 12))), BUILD_MS);
  } finally {
    devnet.cutPods(false);
  }
  assert.ok(devnet.refused() > 0, 'the checkout tried to reach the devnet');
  const retrying = (await events()).find((event) => event.reason === 'BuildRetrying' && event.message?.includes(v4.slice(0, 12)))!;
  assert.match(retrying.message!, /attempt 1 of 3 to build \w+ failed \(CheckoutFailed, not the app's build\)/);
  assert.match(retrying.message!, /did not answer \/v1\/devnet/, 'the checkout said why, in one line');
  const app = await readyAt(v4);
  assert.is(app.status?.build?.attempt, 2);
  assert.is(app.status?.build?.lastFailure?.reason, 'CheckoutFailed');
  assert.is(await buildsOf(v4), 2, 'one Job per attempt');
  assert.is(condition(app, 'Remediated'), undefined, 'Remediated goes with the next good release');
  assert.is(app.status?.failedRevision, undefined, 'the release clears the failed revision');
  await waitBounded('v4 serving', async () => (await served()) === '4.0.0', ROLLOUT_MS);
});

e2e('a build that fails (npm ci error) → the previous version keeps serving, the status carries the error', { needs: '4.0.0' }, async () => {
  const v5 = await pushVersion('5.0.0', { dependency: 'walrus-git-no-such-package-xyz' });
  const app = await waitBounded('Built=False', async () => {
    const current = await readApp();
    return condition(current, 'Built')?.status === 'False' && current.status?.failedRevision === v5 && current;
  }, BUILD_MS);
  const built = condition(app, 'Built')!;
  assert.is(built.reason, 'BuildFailed');
  assert.match(built.message, /container build exited with code [1-9]/);
  assert.match(built.message, /npm (error|ERR!)/, 'the message carries npm\'s own last lines');
  assert.is(condition(app, 'Ready')?.reason, 'BuildFailed');
  assert.is(app.status?.lastAppliedRevision, commits['4.0.0']);
  assert.is(await served(), '4.0.0');
  // Fix the build for what follows.
  const pkg = JSON.parse(readFileSync(world.path('app', 'package.json'), 'utf8'));
  delete pkg.dependencies['walrus-git-no-such-package-xyz'];
  writeFileSync(world.path('app', 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
});

e2e('a push by an address not in allowedPushers → not deployed (PushRefused)', { needs: '4.0.0' }, async () => {
  const allowed = (await world.ok('app', ['walrus', 'whoami'], { env: devnet.env })).match(/0x[0-9a-f]{64}/)![0];
  const otherHome = { ...devnet.env, GIT_WALRUS_HOME: world.path('other-walrus-home') };
  const other = (await world.ok('app', ['walrus', 'whoami'], { env: otherHome })).match(/0x[0-9a-f]{64}/)![0];
  await world.ok('app', ['walrus', 'writers', 'add', 'walrus', other], { env: devnet.env });
  await patchApp({ spec: { policy: { allowedPushers: [allowed] } } });
  const v6 = await pushVersion('6.0.0', { env: otherHome });
  const app = await waitBounded('PushRefused', async () => {
    const current = await readApp();
    return condition(current, 'Ready')?.reason === 'PushRefused' && current.status?.head?.commit === v6 && current;
  }, 60_000);
  assert.match(condition(app, 'Ready')!.message, other);
  assert.is(await buildsOf(v6), 0, 'nothing built');
  await waitBounded('a PushRefused warning', async () => (await events()).some((event) => event.type === 'Warning' && event.reason === 'PushRefused'), 30_000);
  assert.is(await served(), '4.0.0');
});

e2e('the controller killed mid-rollout and restarted → finishes the rollout without rebuilding', { needs: '1.0.0', deploys: '7.0.0' }, async () => {
  // v7's pods take 10 s to listen: the rollout of 2 replicas (one at a time) lasts long enough to kill in.
  const v7 = await pushVersion('7.0.0', { startDelayMs: 10_000 });
  await waitBounded('v7 built and rolling out', async () => {
    const deployment = await api().apps.readNamespacedDeployment({ name: APP, namespace });
    return deployment.spec?.template.metadata?.annotations?.[ANNOTATIONS.commit] === v7 && (await readApp()).status?.lastAppliedRevision !== v7;
  }, BUILD_MS);
  await controllers[0].kill('SIGKILL');
  startController('controller-b');
  const app = await readyAt(v7, ROLLOUT_MS + 30_000);
  assert.is(await buildsOf(v7), app.status?.build?.attempt, 'v7 not built again after the restart');
  await waitBounded('v7 serving', async () => (await served()) === '7.0.0', ROLLOUT_MS);
});

e2e('two controller replicas → only the leader acts; the other takes over when it dies', { needs: '7.0.0' }, async () => {
  const follower = startController('controller-c');
  const holder = async () => (await api().leases.readNamespacedLease({ name: LEASE_NAME, namespace })).spec?.holderIdentity;
  assert.is(await holder(), 'controller-b');
  const since = new Date(Date.now() - 1000);
  const v8 = await pushVersion('8.0.0');
  await readyAt(v8);
  const acting = (await events()).filter((event) => event.lastTimestamp && new Date(event.lastTimestamp) >= since);
  assert.ok(acting.length > 0);
  for (const event of acting) assert.is(event.reportingInstance, 'controller-b', `${event.reason} reported by ${event.reportingInstance}`);
  assert.not.match(follower.output(), /build job|released|leads/, 'the follower did nothing');
  await controllers[1].kill('SIGTERM');
  await waitBounded('controller-c to take the lease', async () => (await holder()) === 'controller-c', 30_000);
  const v9 = await pushVersion('9.0.0');
  await readyAt(v9);
  assert.match(follower.output(), /controller-c leads/);
});

e2e.run();
