/**
 * The tenant's window on its app through the provider's gateway, on the real plane (process kubelet, devnet, npm
 * builds, the ingress stand-in): the provider registers the endpoint `http://gateway.provider.walrus.test`, runs its
 * controller, and installs its gateway as deploy/provider/ does (`kubectl apply -k`: the in-cluster Deployment with
 * its ServiceAccount and ClusterRole, its Service, and the Ingress at that host). The tenant's CLI resolves that host to
 * the ingress (the DNS record a provider makes; test/support/host-resolver.ts) and so goes through the ingress to the
 * gateway's pod, which reads the cluster (logs through the kubelet included) with its own ServiceAccount.
 *
 * The tenant sees: its push going live (`lease status --wait`), the release's build output with its tests, a line the
 * app writes arriving in `lease logs --follow`, a crash (the exit code and reason, and what the crashed run wrote
 * with `--previous`), an OOM kill past the offer's memory limit, the events, a push whose tests fail: refused with
 * TestsFailed and npm's output, the serving commit unchanged; a release that crash-loops (CrashLoopBackOff, its last
 * exit and its crashed run's output) while the last good one serves; a follow across the rolling update of a good
 * release (the new replica joins, from its first line) that ends, saying why, when the lease does. A
 * stranger is refused with who may read; the provider (its cap's holder) reads.
 */
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { EventView, StatusView } from '../../src/ports/gateway-api.ts';
import { LABELS } from '../../src/gitops/templates/names.ts';
import { initWorkRepo, REPO_ROOT, type World } from '../../scripts/harness/world.ts';
import { waitFor } from './support/control-plane.ts';
import { devnetOfferFile, kubectl } from './support/gitops.ts';
import { leaseEndToEnd, type LeaseStage } from './support/lease-e2e.ts';
import { httpGet, within } from '../../scripts/harness/gitops.ts';
import { resolveHostsEnv } from '../support/host-resolver-env.ts';

const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;
const GATEWAY_HOST = 'gateway.provider.walrus.test';
const INSTALL_NAMESPACE = 'walrus-gitops';

const { test, step, stageTest } = leaseEndToEnd('gateway-e2e', 'the tenant\'s window through the provider\'s gateway at its endpoint (process kubelet, devnet, npm)');

/**
 * A small app without dependencies: it logs each request, `/crash` makes it exit 3 and `/hog` allocates until its
 * memory limit stops it. `release` says what the commit is: its tests pass, fail, or it passes them and exits 4 as
 * soon as it starts (a release that crash-loops).
 */
function writeApp(world: World, release: 'good' | 'failing tests' | 'crashing at start'): void {
  const testsPass = release !== 'failing tests';
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify({
      name: 'window-app', version: '1.0.0', private: true, type: 'module',
      scripts: { start: 'node server.js', test: 'node --test' },
      walrus: { version: 1, port: 3000, health: { path: '/health', periodSeconds: 5 }, test: 'npm test', start: 'node server.js', replicas: 1 },
    }, null, 2)}\n`,
    'package-lock.json': `${JSON.stringify({ name: 'window-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'window-app', version: '1.0.0' } } }, null, 2)}\n`,
    'server.js': [
      "import { createServer } from 'node:http';",
      ...(release === 'crashing at start' ? ["console.error('DATABASE_URL is not set: exiting');", 'process.exit(4);'] : []),
      'const server = createServer((request, response) => {',
      "  if (request.url !== '/health') console.log(`request ${request.url}`);",
      "  if (request.url === '/crash') { console.error('crashing on request'); process.exit(3); }",
      "  if (request.url === '/hog') { const held = []; for (;;) held.push(Buffer.alloc(1 << 20, 1)); }",
      "  response.end('ok');",
      '});',
      "server.listen(3000, () => console.log('listening on port 3000'));",
      "process.once('SIGTERM', () => server.close(() => process.exit(0)));",
      '',
    ].join('\n'),
    'test/sum.test.js': [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      `test('adds two numbers', () => assert.equal(1 + 1, ${testsPass ? 2 : 3}));`,
      '',
    ].join('\n'),
  };
  mkdirSync(world.path('app', 'test'), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(world.path('app', file), text);
}

stageTest('status, build output, follow, a crash and its previous run, an OOM kill, events, a TestsFailed push, a crash-looping release, the end; a stranger refused', async (stage) => {
  const { node, core, world, walrus, registerProvider, startProvider, openLease } = stage;
  const ingress = node.ingress.address;
  const throughIngress = resolveHostsEnv({ [GATEWAY_HOST]: ingress });
  const asTenant = { ...stage.asTenant, ...throughIngress };
  const asProvider = { ...stage.asProvider, ...throughIngress };
  const asStranger = { ...stage.asTenant, ...throughIngress, GIT_WALRUS_KEY: Ed25519Keypair.generate().getSecretKey() };
  const walrusRun = (args: string[], env: NodeJS.ProcessEnv) => world.run('app', ['walrus', ...args], { env });

  await initWorkRepo(world, 'app');
  writeApp(world, 'good');
  await world.ok('app', ['add', '-A']);
  await walrus(['init', 'window'], asTenant);
  await world.ok('app', ['commit', '-qm', 'window app']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const v1 = await world.ok('app', ['rev-parse', 'HEAD']);

  // The provider: its endpoint's host, its controller, its gateway behind the cluster's ingress at that host.
  const providerId = await registerProvider(`http://${GATEWAY_HOST}`);
  // The app's containers get the offer's default limits (the tenant namespace's LimitRange): 128 MiB of memory here, and
  // 400m of CPU, so that a rollout's two replicas and a build's 1 CPU fit the test node's 2 beside the gateway's pod.
  const limits = { default: { cpu: '400m', memory: '128Mi', ephemeralStorage: '1Gi' }, max: { cpu: '2', memory: '4Gi', ephemeralStorage: '10Gi' } };
  const offer = devnetOfferFile(world, node.network, { limits, buildEnv: [{ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/ssl/certs/ca-certificates.crt' }] });
  await startProvider('provider-g', ['--provider', providerId, '--offer', offer, '--provider-interval-ms', '1000'], asProvider);
  await installGateway(stage, providerId, GATEWAY_HOST);
  await waitFor('the gateway through the ingress at its host', async () => {
    const { status, body } = await httpGet(ingress, 80, '/v1/health', 3000, { Host: GATEWAY_HOST });
    return status === 200 && JSON.parse(body).provider === providerId;
  }, 60_000);

  const { leaseId, namespace: tenantNs, name: appName } = await openLease('walrus', providerId, asTenant);
  const statusJson = async (env = asTenant) => JSON.parse(await walrus(['lease', 'status', leaseId, '--json'], env)) as StatusView;

  // Live: the tenant follows its commit through the gateway until it serves.
  const live = await within(BUILD_MS + ROLLOUT_MS, walrusRun(['lease', 'status', leaseId, '--wait', v1], asTenant));
  assert.ok(live, 'lease status --wait ended');
  assert.is(live.code, 0, live.stderr);
  assert.match(live.stdout, new RegExp(`${v1.slice(0, 12)}: building`));
  assert.match(live.stdout, new RegExp(`${v1.slice(0, 12)}: live at`));
  const serving = await statusJson();
  assert.is(serving.phase, 'Live', serving.message);
  assert.is(serving.serving?.commit, v1);
  assert.equal(serving.replicas, { desired: 1, ready: 1, updated: 1 });
  step(`live: ${serving.message}`);

  // (b) The release's build output, its tests included, kept after the Job.
  const built = await walrus(['lease', 'logs', leaseId, '--build'], asTenant);
  assert.match(built, new RegExp(`^release ${v1}: Released`, 'm'));
  assert.match(built, /^----- test: exit 0/m);
  assert.match(built, /adds two numbers/);

  // (c) A line the app writes reaches a follower.
  const podIp = async () => (await core.listNamespacedPod({ namespace: tenantNs, labelSelector: `${LABELS.component}=run` })).items
    .find((pod) => pod.status?.phase === 'Running' && pod.status.podIP)?.status?.podIP;
  const ip = await waitFor('the app\'s pod', podIp, 30_000);
  const follower = followLogs(world, leaseId, asTenant);
  try {
    await waitFor('the follow open (the app\'s first line)', async () => follower.text().includes('listening on port 3000'), 60_000);
    const marker = `/marker-${Date.now()}`;
    assert.is((await httpGet(ip, 3000, marker)).status, 200);
    await waitFor('the new line followed', async () => follower.text().includes(`request ${marker}`), 30_000);
    assert.match(follower.text(), new RegExp(`^\\[${appName}-[^\\]]+\\] request ${marker}$`, 'm'));
  } finally {
    follower.stop();
  }

  // (d) A crash: the replica's restart, its last exit (Error, code 3), and what the crashed run wrote.
  await httpGet(ip, 3000, '/crash').catch(() => undefined);
  const crashed = await waitFor('the crash in the status', async () => {
    const view = await statusJson();
    const container = view.pods.flatMap((pod) => pod.containers).find((c) => c.lastTermination?.exitCode === 3);
    return container && { view, container };
  }, 60_000);
  assert.is(crashed.container.lastTermination?.reason, 'Error');
  assert.ok(crashed.container.restarts >= 1);
  const previous = await walrus(['lease', 'logs', leaseId, '--previous'], asTenant);
  assert.match(previous, /crashing on request/);
  assert.match(previous, /request \/crash/);

  // An OOM kill: past its memory limit the kernel kills the app; the status says OOMKilled (exit 137), as a node does.
  const restartsBefore = crashed.container.restarts;
  await waitFor('the app answering again', async () => (await httpGet(ip, 3000, '/health')).status === 200, 60_000);
  await httpGet(ip, 3000, '/hog', 30_000);
  const killed = await waitFor('the OOM kill in the status', async () => {
    const view = await statusJson();
    return view.pods.flatMap((pod) => pod.containers).find((c) => c.lastTermination?.reason === 'OOMKilled' && c.restarts > restartsBefore);
  }, 60_000);
  assert.is(killed.lastTermination?.exitCode, 137);
  assert.match(await walrus(['lease', 'status', leaseId], asTenant), /last exit OOMKilled \(code 137\)/);
  step(`OOM-killed: ${JSON.stringify(killed.lastTermination)}`);

  // (e) Events of the app and its pods, newest first.
  const list = JSON.parse(await walrus(['lease', 'events', leaseId, '--json'], asTenant)) as EventView[];
  assert.ok(list.some((event) => event.reason === 'Started' && event.object.startsWith(`Pod/${appName}-`)), JSON.stringify(list.slice(0, 5)));
  assert.equal(list.map((event) => event.time), [...list.map((event) => event.time)].sort().reverse(), 'newest first');

  // Who may read: a stranger is refused with who may; the provider (its cap's holder) reads.
  const stranger = await walrusRun(['lease', 'status', leaseId], asStranger);
  assert.is.not(stranger.code, 0);
  assert.match(stranger.stderr, /refused \(403\): lease 0x[0-9a-f]+ may be read by its tenant/);
  assert.is((await statusJson(asProvider)).serving?.commit, v1);

  // (a) A push whose tests fail: refused with TestsFailed and npm's output; the serving commit is unchanged.
  writeApp(world, 'failing tests');
  await world.ok('app', ['commit', '-qam', 'a failing test']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const v2 = await world.ok('app', ['rev-parse', 'HEAD']);
  const refused = await within(BUILD_MS, walrusRun(['lease', 'status', leaseId, '--wait', v2], asTenant));
  assert.ok(refused, 'lease status --wait ended');
  assert.is(refused.code, 1, refused.stderr);
  assert.match(refused.stdout, new RegExp(`${v2.slice(0, 12)}: refused: TestsFailed`));
  const after = await statusJson();
  assert.is(after.refused?.commit, v2);
  assert.is(after.refused?.reason, 'TestsFailed');
  // npm's last lines: the failed assertion's report.
  assert.match(after.refused!.message, /^the app's tests failed \(exit code 1\):[\s\S]*AssertionError[\s\S]*expected: 3/);
  assert.is(after.serving?.commit, v1, 'the last good commit keeps serving');
  const failedBuild = await walrus(['lease', 'logs', leaseId, '--build', v2], asTenant);
  assert.match(failedBuild, /^----- test: exit 1/m);
  assert.match(failedBuild, /adds two numbers/);
  step(`refused: ${after.message}`);

  // A release that crash-loops: its new replica waits in CrashLoopBackOff with its last exit, its crashed run's output
  // is readable, and the replica of the last good release keeps serving meanwhile.
  writeApp(world, 'crashing at start');
  await world.ok('app', ['commit', '-qam', 'a release that exits at start']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const v3 = await world.ok('app', ['rev-parse', 'HEAD']);
  const looping = await waitFor('the new replica crash-looping in the status', async () => {
    const view = await statusJson();
    const pod = view.pods.find((candidate) => candidate.commit === v3 && candidate.containers.some((c) => c.reason === 'CrashLoopBackOff'));
    return pod && { view, pod };
  }, BUILD_MS + ROLLOUT_MS);
  assert.is(looping.view.phase, 'Failing', looping.view.message);
  assert.match(looping.view.message, new RegExp(`^${looping.pod.name} is crash-looping \\(\\d+ restarts?, last exit Error code 4\\)$`));
  const app = looping.pod.containers.find((c) => c.reason === 'CrashLoopBackOff')!;
  assert.equal([app.state, app.lastTermination?.reason, app.lastTermination?.exitCode], ['waiting', 'Error', 4]);
  assert.match(app.message ?? '', /^back-off \d+s restarting failed container=/);
  assert.ok(looping.view.pods.some((pod) => pod.commit === v1 && pod.ready), 'the last good release keeps serving');
  const pods = [...looping.view.pods].map((pod) => pod.name).sort();
  const crashedRun = await walrus(['lease', 'logs', leaseId, '--previous', '--replica', String(pods.indexOf(looping.pod.name))], asTenant);
  assert.match(crashedRun, /DATABASE_URL is not set: exiting/);
  step(`crash-looping: ${looping.view.message}`);

  // A follow across a rolling update: a good release replaces the replicas; the follow takes the new replica from its
  // first line, saying so in one line, and a line it writes; then the lease ends and so does the follow, saying why.
  const rolling = followLogs(world, leaseId, asTenant);
  try {
    writeApp(world, 'good');
    await world.ok('app', ['commit', '-qam', 'the good release again']);
    await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
    const v4 = await world.ok('app', ['rev-parse', 'HEAD']);
    const rolled = await waitFor('the good release rolled out alone', async () => {
      const view = await statusJson();
      return view.serving?.commit === v4 && view.pods.length === 1 && view.pods[0]!.commit === v4 && view.pods[0]!.ready && view.pods[0]!;
    }, BUILD_MS + ROLLOUT_MS);
    const joined = new RegExp(`^-- following ${rolled.name}, a new replica \\(release ${v4.slice(0, 12)}\\)$`, 'm');
    await waitFor('the new replica joined the follow', async () => joined.test(rolling.text()), 30_000);
    await waitFor('the new replica\'s first line followed', async () => rolling.text().includes(`[${rolled.name}] listening on port 3000`), 30_000);
    const newIp = await waitFor('the new replica\'s address', async () => (await core.readNamespacedPod({ namespace: tenantNs, name: rolled.name })).status?.podIP, 30_000);
    const marker = `/after-rollout-${Date.now()}`;
    assert.is((await httpGet(newIp, 3000, marker)).status, 200);
    await waitFor('the new replica\'s line followed', async () => rolling.text().includes(`[${rolled.name}] request ${marker}`), 30_000);
    assert.is(rolling.text().match(/^-- following /gm)?.length, 1, rolling.text());
    step(`followed across the rollout to ${rolled.name}`);

    // The lease ends: the follow ends by itself, saying why; the gateway's status says why, and `lease show` too.
    await walrus(['lease', 'close', leaseId], asTenant);
    const code = await within(60_000, rolling.exited);
    assert.is(code, 0, rolling.text());
    assert.match(rolling.text(), /^-- the lease ended: closed by the tenant at \S+; the follow ends$/m);
  } finally {
    rolling.stop();
  }
  const ended = await waitFor('the status of the ended lease', async () => {
    const view = await statusJson();
    return view.phase === 'Ended' && view;
  }, 60_000);
  assert.match(ended.message, /^the lease ended: closed by the tenant at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z/);
  assert.is(ended.ended?.reason, 'closed_by_tenant');
  assert.match(await walrus(['lease', 'status', leaseId], asTenant), /^phase {7}Ended: the lease ended: closed by the tenant at /m);
  assert.match(await walrus(['lease', 'show', leaseId], asTenant), /^ended {7}closed by the tenant at /m);
  step(`ended: ${ended.message}`);
});

/** `git walrus lease logs <lease> --follow` as the tenant, its stdout and stderr together as they come. */
function followLogs(world: World, leaseId: string, env: NodeJS.ProcessEnv) {
  const child = spawn(`${REPO_ROOT}/bin/git-walrus`, ['lease', 'logs', leaseId, '--follow'], { cwd: world.path('app'), env: { ...world.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { text: () => text, exited, stop: () => { if (child.exitCode === null) child.kill('SIGTERM'); } };
}

/**
 * The provider's gateway as deploy/provider/ installs it in the cluster: its namespace and network ConfigMap from
 * deploy/ (the devnet's settings patched in, as a provider on a devnet sets them), then `kubectl apply -k` of an overlay
 * of deploy/provider/ that sets what gateway.yaml leaves to the provider (its id, the Ingress's host and class). Its
 * pod reads the cluster with its own ServiceAccount (the ClusterRole of gateway.yaml) and is ready behind its probes.
 */
async function installGateway(stage: LeaseStage, providerId: string, host: string): Promise<void> {
  const { world, node, devnet, core } = stage;
  await kubectl(['apply', '-f', join(REPO_ROOT, 'deploy', 'namespace.yaml')]);
  await kubectl(['-n', INSTALL_NAMESPACE, 'apply', '-f', join(REPO_ROOT, 'deploy', 'network.yaml')]);
  await kubectl(['-n', INSTALL_NAMESPACE, 'patch', 'configmap', 'walrus-network', '--type', 'merge', '--patch', JSON.stringify({ data: devnet.env })]);
  const overlay = world.path('gateway-overlay');
  mkdirSync(overlay, { recursive: true });
  writeFileSync(join(overlay, 'kustomization.yaml'), [
    'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization',
    'bases:', `  - ${relative(overlay, join(REPO_ROOT, 'deploy', 'provider'))}`,
    'patchesStrategicMerge:', '  - gateway-deployment.yaml', '  - gateway-ingress.yaml', '',
  ].join('\n'));
  writeFileSync(join(overlay, 'gateway-deployment.yaml'), JSON.stringify({
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'walrus-gateway' },
    spec: { template: { spec: { containers: [{ name: 'gateway', command: ['git-walrus', 'gateway', '--provider', providerId, '--host', '0.0.0.0', '--port', '8080'] }] } } },
  }));
  writeFileSync(join(overlay, 'gateway-ingress.yaml'), JSON.stringify({
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'walrus-gateway' },
    spec: { ingressClassName: node.ingress.className, rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'walrus-gateway', port: { name: 'http' } } } }] } }] },
  }));
  const applied = await kubectl(['apply', '-k', overlay]);
  stage.undoAfter(() => kubectl(['delete', '-k', overlay, '--ignore-not-found', '--wait=false']));
  for (const made of ['serviceaccount/walrus-gateway', 'clusterrole.rbac.authorization.k8s.io/walrus-gateway', 'deployment.apps/walrus-gateway', 'service/walrus-gateway', 'ingress.networking.k8s.io/walrus-gateway']) assert.match(applied, made);
  await waitFor('the gateway pod ready behind its probes', async () => (await core.listNamespacedPod({ namespace: INSTALL_NAMESPACE, labelSelector: 'app.kubernetes.io/component=gateway' })).items
    .some((pod) => !pod.metadata?.deletionTimestamp && pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True')), 240_000);
}

test.run();
