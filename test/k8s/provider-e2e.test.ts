/**
 * The controller in provider mode end to end on the real plane with the process kubelet: a provider registers on a `git
 * walrus devnet` server on the node's host address and runs `git walrus controller --provider`; a tenant opens a lease
 * for the hello-npm repository → the controller makes the tenant's namespace and the lease's WalrusApp, which is built
 * and served → a `Deployed` record names the served commit and its artifact → `git walrus deployments --verify` passes
 * → the tenant closes the lease → the app and its namespace are removed, the escrow settled. Reuses the GitOps tests'
 * support (test/k8s/support/gitops.ts).
 */
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { devnetOfferFile, readyAt } from './support/gitops.ts';
import { leaseEndToEnd } from './support/lease-e2e.ts';
import { waitFor } from './support/control-plane.ts';
import { helloRepository, httpGet, TEST_BUILD_COMMAND } from '../../scripts/harness/gitops.ts';

const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;

const { test, step, waitBounded, stageTest } = leaseEndToEnd('provider-e2e', 'controller in provider mode end to end (process kubelet, devnet, a real npm build)');

stageTest('open a lease → served → Deployed record verified → close → removed and settled', async ({ node, kc, world, asTenant, walrus, registerProvider, startProvider, openLease }) => {
  await helloRepository(world, asTenant);
  await world.ok('app', ['commit', '-qm', 'hello v1']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const commit = await world.ok('app', ['rev-parse', 'HEAD']);

  const providerId = await registerProvider();
  assert.match(providerId, /^0x[0-9a-f]{64}$/);
  const specFile = world.path('lease-app.json');
  writeFileSync(specFile, JSON.stringify({
    replicas: 1, port: 8080,
    health: { path: '/healthz', periodSeconds: 1, failureThreshold: 2 },
    build: { command: TEST_BUILD_COMMAND },
  }));
  const offerFile = devnetOfferFile(world, node.network);
  const controller = await startProvider('provider-a', [
    '--provider', providerId, '--provider-app-spec', specFile, '--provider-offer', offerFile, '--provider-interval-ms', '1000', '--claim-every-ms', '5000',
  ]);

  const sent = Date.now();
  const { leaseId, tenant, namespace: tenantNs, name, read: readApp } = await openLease('walrus', providerId);
  assert.match(leaseId, /^0x[0-9a-f]{64}$/);
  // From the moment the lease is on chain (the command has its effects once it returns).
  const opened = Date.now();
  step(`git walrus lease open took ${((opened - sent) / 1000).toFixed(1)} s`);

  const app = await waitBounded(`WalrusApp ${tenantNs}/${name}`, () => readApp().catch(() => undefined), 30_000);
  step(`lease opened → its WalrusApp in ${((Date.now() - opened) / 1000).toFixed(1)} s`);
  assert.is(app.spec.repository, `walrus://${(await walrus(['lease', 'show', leaseId], asTenant)).match(/repository\s+(0x[0-9a-f]{64})/)![1]}`);
  assert.is(app.spec.ref, 'refs/heads/main');
  const namespaceObject = await kc.makeApiClient(CoreV1Api).readNamespace({ name: tenantNs });
  assert.is(namespaceObject.metadata?.annotations?.['market.walrus-git.dev/tenant'], tenant);
  await waitBounded('the tenant namespace isolated', async () => (await kc.makeApiClient(CoreV1Api).readNamespace({ name: tenantNs })).metadata?.annotations?.['market.walrus-git.dev/isolation-hash'], 30_000);

  const ready = await readyAt(readApp, commit, BUILD_MS + ROLLOUT_MS);
  const service = await kc.makeApiClient(CoreV1Api).readNamespacedService({ name, namespace: tenantNs });
  const served = await waitBounded('served through the Service', async () => {
    const { status, body } = await httpGet(service.spec!.clusterIP!, 80);
    return status === 200 && JSON.parse(body) as { version: string };
  });
  step(`lease opened → served in ${((Date.now() - opened) / 1000).toFixed(1)} s (version ${served.version})`);
  const artifact = ready.status!.artifact!;

  const records = await waitBounded('the Deployed record', async () => {
    const out = await walrus(['deployments', 'walrus'], asTenant);
    return out.includes(commit) && out;
  }, 30_000);
  assert.ok(records.includes(artifact.blobId), `the record names the served artifact ${artifact.blobId}:\n${records}`);
  assert.ok(records.includes(providerId) || records.includes(providerId.slice(0, 10)), records);
  assert.is(records.split('\n').filter((line) => line.includes(commit)).length, 1, 'recorded once');
  const verified = await world.run('app', ['walrus', 'deployments', 'walrus', '--verify'], { env: asTenant });
  assert.is(verified.code, 0, verified.stderr + verified.stdout);
  assert.match(verified.stdout, /verified: the artifact matches its sha256 and the commit was pushed/);
  const shown = await walrus(['lease', 'show', leaseId], asTenant);
  assert.match(shown, new RegExp(commit));

  // Earnings are claimed periodically (every 5 s here) while the lease runs.
  await waitFor('a periodic claim', async () => new RegExp(`lease ${leaseId}: claimed [1-9]\\d* MIST`).test(controller.output()), 30_000);

  const closed = await walrus(['lease', 'close', leaseId], asTenant);
  assert.match(closed, /^closed: [\d.]+ SUI refunded to the tenant, [\d.]+ SUI paid to the provider$/);
  const closedAt = Date.now();
  await waitBounded('the WalrusApp removed', () => readApp().then(() => false, () => true), 30_000);
  await waitBounded('its Deployment removed', () => kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name, namespace: tenantNs }).then(() => false, () => true), 60_000);
  await waitBounded('the tenant namespace removed', () => kc.makeApiClient(CoreV1Api).readNamespace({ name: tenantNs }).then(() => false, () => true), 120_000);
  step(`lease closed → app and namespace removed in ${((Date.now() - closedAt) / 1000).toFixed(1)} s`);
  const after = await walrus(['lease', 'show', leaseId], asTenant);
  assert.match(after, /state\s+closed/);
  assert.match(after, /escrow\s+0 SUI/);
  assert.match(controller.output(), new RegExp(`recorded the deploy of ${commit}`));
});

test.run();
