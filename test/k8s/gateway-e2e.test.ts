/**
 * The tenant's window on its app through the provider's gateway, on the real plane (process kubelet, devnet, npm
 * builds, the ingress stand-in): the provider registers the endpoint `http://gateway.provider.walrus.test`, runs its
 * controller and `git walrus gateway` out of cluster, and fronts the gateway with a Service, its Endpoints and an
 * Ingress at that host, as a provider whose gateway runs beside its cluster would (the in-cluster Deployment of
 * deploy/provider/gateway.yaml runs the same command). The tenant's CLI resolves that host to the ingress (the DNS
 * record a provider makes; test/support/host-resolver.ts) and so goes through the ingress like any tenant.
 *
 * The tenant sees: its push going live (`lease status --wait`), the release's build output with its tests, a line the
 * app writes arriving in `lease logs --follow`, a crash (the exit code and reason, and what the crashed run wrote
 * with `--previous`), the events, and a push whose tests fail: refused with TestsFailed and npm's output, the serving
 * commit unchanged. A stranger is refused with who may read; the provider (its cap's holder) reads.
 */
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { NetworkingV1Api } from '@kubernetes/client-node';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { EventView, StatusView } from '../../src/ports/gateway-api.ts';
import { LABELS } from '../../src/gitops/templates/names.ts';
import { initWorkRepo, REPO_ROOT, type World } from '../../scripts/harness/world.ts';
import { waitFor } from './support/control-plane.ts';
import { devnetOfferFile } from './support/gitops.ts';
import { leaseEndToEnd } from './support/lease-e2e.ts';
import { httpGet, within } from '../../scripts/harness/gitops.ts';
import { resolveHostsEnv } from '../support/host-resolver-env.ts';

const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;
const GATEWAY_HOST = 'gateway.provider.walrus.test';

const { test, step, stageTest } = leaseEndToEnd('gateway-e2e', 'the tenant\'s window through the provider\'s gateway at its endpoint (process kubelet, devnet, npm)');

/** A small app without dependencies: it logs each request, and `/crash` makes it exit 3. */
function writeApp(world: World, testsPass: boolean): void {
  const files: Record<string, string> = {
    'package.json': `${JSON.stringify({
      name: 'window-app', version: '1.0.0', private: true, type: 'module',
      scripts: { start: 'node server.js', test: 'node --test' },
      walrus: { version: 1, port: 3000, health: { path: '/health', periodSeconds: 5 }, test: 'npm test', start: 'node server.js', replicas: 1 },
    }, null, 2)}\n`,
    'package-lock.json': `${JSON.stringify({ name: 'window-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'window-app', version: '1.0.0' } } }, null, 2)}\n`,
    'server.js': [
      "import { createServer } from 'node:http';",
      'const server = createServer((request, response) => {',
      "  if (request.url !== '/health') console.log(`request ${request.url}`);",
      "  if (request.url === '/crash') { console.error('crashing on request'); process.exit(3); }",
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

stageTest('status, build output, follow, a crash and its previous run, events, a TestsFailed push; a stranger refused', async (stage) => {
  const { namespace, node, kc, core, world, walrus, registerProvider, startProvider, startGateway, openLease } = stage;
  const ingress = node.ingress.address;
  const throughIngress = resolveHostsEnv({ [GATEWAY_HOST]: ingress });
  const asTenant = { ...stage.asTenant, ...throughIngress };
  const asProvider = { ...stage.asProvider, ...throughIngress };
  const asStranger = { ...stage.asTenant, ...throughIngress, GIT_WALRUS_KEY: Ed25519Keypair.generate().getSecretKey() };
  const walrusRun = (args: string[], env: NodeJS.ProcessEnv) => world.run('app', ['walrus', ...args], { env });

  await initWorkRepo(world, 'app');
  writeApp(world, true);
  await world.ok('app', ['add', '-A']);
  await walrus(['init', 'window'], asTenant);
  await world.ok('app', ['commit', '-qm', 'window app']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const v1 = await world.ok('app', ['rev-parse', 'HEAD']);

  // The provider: its endpoint's host, its controller, its gateway behind the cluster's ingress at that host.
  const providerId = await registerProvider(`http://${GATEWAY_HOST}`);
  const offer = devnetOfferFile(world, node.network, { buildEnv: [{ name: 'NODE_EXTRA_CA_CERTS', value: '/etc/ssl/certs/ca-certificates.crt' }] });
  await startProvider('provider-g', ['--provider', providerId, '--offer', offer, '--provider-interval-ms', '1000'], asProvider);
  const gatewayUrl = await startGateway(['--provider', providerId]);
  await core.createNamespacedService({ namespace, body: { metadata: { name: 'walrus-gateway' }, spec: { ports: [{ name: 'http', port: 80, targetPort: Number(gatewayUrl.port) as never }] } } });
  await core.createNamespacedEndpoints({ namespace, body: { metadata: { name: 'walrus-gateway' }, subsets: [{ addresses: [{ ip: node.network.hostIp }], ports: [{ name: 'http', port: Number(gatewayUrl.port) }] }] } });
  await kc.makeApiClient(NetworkingV1Api).createNamespacedIngress({ namespace, body: {
    metadata: { name: 'walrus-gateway' },
    spec: { ingressClassName: node.ingress.className, rules: [{ host: GATEWAY_HOST, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'walrus-gateway', port: { name: 'http' } } } }] } }] },
  } });
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
  const follower = spawn(`${REPO_ROOT}/bin/git-walrus`, ['lease', 'logs', leaseId, '--follow'], { cwd: world.path('app'), env: { ...world.env, ...asTenant }, stdio: ['ignore', 'pipe', 'pipe'] });
  let followed = '';
  follower.stdout.setEncoding('utf8').on('data', (chunk: string) => { followed += chunk; });
  follower.stderr.setEncoding('utf8').on('data', (chunk: string) => { followed += chunk; });
  try {
    await waitFor('the follow open (the app\'s first line)', async () => followed.includes('listening on port 3000'), 60_000);
    const marker = `/marker-${Date.now()}`;
    assert.is((await httpGet(ip, 3000, marker)).status, 200);
    await waitFor('the new line followed', async () => followed.includes(`request ${marker}`), 30_000);
    assert.match(followed, new RegExp(`^\\[${appName}-[^\\]]+\\] request ${marker}$`, 'm'));
  } finally {
    follower.kill('SIGTERM');
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
  writeApp(world, false);
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
});

test.run();
