/**
 * The tenant's journey end to end on the real plane (process kubelet, devnet, real npm builds, the ingress stand-in):
 * a repository holding an ordinary Express app (examples/express-app: port 3000, health /, npm test, two replicas in
 * its manifest) → `git walrus lease open` → the provider's controller builds and serves it → the URL from
 * `git walrus lease show` answers through the ingress, from more than one replica (and through a LoadBalancer
 * address, as the offer asks) → a new push rolls out with no
 * failed request through the URL → a push whose tests fail is not released (TestsFailed) and the URL keeps serving →
 * a manifest asking more replicas than the offer is refused (ManifestRefused) and the URL keeps serving → the app
 * without a manifest deploys on the npm defaults → the provider restarts its controller with another domain and no
 * LoadBalancer: the app answers at the new URL (stated on chain), the old one 404s, the Service is a ClusterIP one,
 * nothing is rebuilt → and with no ingress at all and another buildEnv: the Ingress goes, the URL with it (withdrawn
 * from the lease too), the running commit is built again → `lease close` → the app gone.
 */
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { AppsV1Api, CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { WalrusApp } from '../../src/ports/walrus-app.ts';
import { initWorkRepo, REPO_ROOT } from '../../scripts/harness/world.ts';
import { devnetOfferFile, kubectl, readyAt } from './support/gitops.ts';
import { leaseEndToEnd } from './support/lease-e2e.ts';
import { httpGet } from '../../scripts/harness/gitops.ts';

const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;
const DOMAIN = 'apps.walrus.test';
const MOVED_DOMAIN = 'apps.moved.walrus.test';
const APP_FILES = ['package.json', 'package-lock.json', 'app.js', 'server.js', 'test/app.test.js'];

const { test, step, waitBounded, stageTest } = leaseEndToEnd('tenant-e2e', 'a tenant\'s app: its manifest, its URL through the ingress, its releases (process kubelet, devnet, npm)');

interface Answer { version: string; instance: string; client: string; greeting: string }

stageTest('lease → URL through the ingress → zero-failure rollout → TestsFailed and ManifestRefused keep serving → defaults → close → 404', async ({ node, kc, world, asTenant, walrus, registerProvider, startProvider, openLease }) => {
  const ingress = node.ingress.address;

  // The tenant's repository: the example app, as committed.
  await initWorkRepo(world, 'app');
  mkdirSync(world.path('app', 'test'), { recursive: true });
  for (const file of APP_FILES) copyFileSync(`${REPO_ROOT}/examples/express-app/${file}`, world.path('app', file));
  const manifestOf = () => JSON.parse(readFileSync(world.path('app', 'package.json'), 'utf8')) as Record<string, unknown> & { version: string; walrus?: Record<string, unknown> };
  const commitPackage = async (change: (pkg: ReturnType<typeof manifestOf>) => void, message: string) => {
    const pkg = manifestOf();
    change(pkg);
    writeFileSync(world.path('app', 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    await world.ok('app', ['commit', '-qam', message]);
    await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
    return world.ok('app', ['rev-parse', 'HEAD']);
  };
  await world.ok('app', ['add', '-A']);
  await walrus(['init', 'shop'], asTenant);
  await world.ok('app', ['commit', '-qm', 'express app v1']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const v1 = await world.ok('app', ['rev-parse', 'HEAD']);

  // The provider: an offer with an ingress domain served by the cluster's ingress (class nginx), a replica cap of 3,
  // and the build environment this machine's npm needs (its proxy's CA bundle).
  const providerId = await registerProvider();
  // Its tenants reach the devnet on the host link (devnetOfferFile), and the ingress stand-in's address reaches apps.
  const caBundle = { name: 'NODE_EXTRA_CA_CERTS', value: '/etc/ssl/certs/ca-certificates.crt' };
  const offerOf = (changes: { ingress?: Record<string, unknown>; buildEnv?: Record<string, string>[] }) => devnetOfferFile(world, node.network, {
    maxReplicas: 3,
    buildEnv: [caBundle],
    ...changes,
  });
  const exposedAt = (domain: string, loadBalancer: boolean) => ({ ingress: { domain, className: node.ingress.className, from: [{ ipBlock: { cidr: `${ingress}/32` } }], loadBalancer } });
  const provide = (identity: string, offerFile: string) => startProvider(identity, ['--provider', providerId, '--offer', offerFile, '--provider-interval-ms', '1000']);
  let controller = await provide('provider-t', offerOf(exposedAt(DOMAIN, true)));

  const { leaseId, namespace: tenantNs, name, read: readApp } = await openLease('walrus', providerId);
  const opened = Date.now();
  const condition = (app: WalrusApp, type: string) => app.status?.conditions?.find((c) => c.type === type);

  // Served: the URL the provider stated on chain answers through the ingress, from both replicas of the manifest.
  const ready = await readyAt(readApp, v1, BUILD_MS + ROLLOUT_MS);
  assert.is(ready.status?.manifest?.port, 3000);
  assert.is(ready.status?.manifest?.source, 'package.json');
  const url = await waitBounded('the URL stated on chain', async () => (await walrus(['lease', 'show', leaseId], asTenant)).match(/^url\s+(http:\/\/\S+)$/m)?.[1], 60_000);
  assert.is(url, ready.status?.url);
  const host = new URL(url).host;
  assert.ok(host.endsWith(`.${DOMAIN}`), host);
  const get = (timeoutMs = 3000) => httpGet(ingress, 80, '/', timeoutMs, { Host: host });
  const first = await waitBounded('the URL answering through the ingress', async () => {
    const { status, body } = await get();
    return status === 200 && (JSON.parse(body) as Answer);
  });
  step(`lease opened → URL answering through the ingress in ${((Date.now() - opened) / 1000).toFixed(1)} s`);
  assert.is(first.version, '1.0.0');
  assert.is(first.greeting, 'hello from walrus', 'the manifest\'s env reaches the app');
  assert.is(first.client.replace(/^::ffff:/, ''), ingress, 'the app is called from the ingress\'s own address');
  const instances = new Set<string>();
  for (let n = 0; n < 30 && instances.size < 2; n++) {
    const { status, body } = await get();
    assert.is(status, 200, body);
    instances.add((JSON.parse(body) as Answer).instance);
  }
  assert.is(instances.size, 2, `requests through the URL reach both replicas: ${[...instances].join(', ')}`);
  assert.is((await httpGet(ingress, 80, '/', 3000, { Host: `nobody.${DOMAIN}` })).status, 404, 'an unknown host: 404 from the ingress');
  assert.match(await kubectl(['get', 'walrusapps', '-n', tenantNs, name]), new RegExp(`URL[\\s\\S]*${url.replace(/[.]/g, '\\.')}`));
  await waitBounded('the URL in git walrus deployments', async () => (await walrus(['deployments', 'walrus'], asTenant)).includes(`url ${url}`), 30_000);

  // The offer asks for LoadBalancer Services too: the cluster gives the app an address of its pool, which answers.
  const balanced = await waitBounded('a LoadBalancer address', async () => (await kc.makeApiClient(CoreV1Api).readNamespacedService({ namespace: tenantNs, name })).status?.loadBalancer?.ingress?.[0]?.ip, 30_000);
  assert.ok(node.network.loadBalancerPool.includes(balanced), balanced);
  await waitBounded('the app through its LoadBalancer address', async () => { const { status, body } = await httpGet(balanced, 80); return status === 200 && JSON.parse(body).app === 'express-app'; }, 30_000);

  // The ingress's added latency: the same request through the URL and straight to a pod.
  const pod = (await kc.makeApiClient(CoreV1Api).readNamespacedEndpoints({ namespace: tenantNs, name })).subsets![0]!.addresses![0]!.ip;
  const timeOf = async (request: () => Promise<{ status: number }>) => {
    const started = process.hrtime.bigint();
    for (let n = 0; n < 100; n++) assert.is((await request()).status, 200);
    return Number(process.hrtime.bigint() - started) / 1e6 / 100;
  };
  const direct = await timeOf(() => httpGet(pod, 3000, '/'));
  const through = await timeOf(() => get());
  step(`latency per request (100 sequential, a new connection each): direct to a pod ${direct.toFixed(2)} ms, through the ingress ${through.toFixed(2)} ms (${(through - direct).toFixed(2)} ms)`);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const kept = (to: string, port: number, headers: Record<string, string> = {}) => () => new Promise<{ status: number }>((resolve, reject) => {
    request({ host: to, port, path: '/', agent, headers }, (res) => res.resume().on('end', () => resolve({ status: res.statusCode ?? 0 }))).on('error', reject).end();
  });
  const directKept = await timeOf(kept(pod, 3000));
  const throughKept = await timeOf(kept(ingress, 80, { Host: host }));
  agent.destroy();
  step(`latency per request (100 sequential, one kept-alive connection): direct to a pod ${directKept.toFixed(2)} ms, through the ingress ${throughKept.toFixed(2)} ms (${(throughKept - directKept).toFixed(2)} ms)`);

  // A new push rolls out with no failed request through the URL.
  const v2 = await commitPackage((pkg) => { pkg.version = '1.1.0'; }, 'v1.1.0');
  let served = 0;
  const failures: string[] = [];
  const versions = new Set<string>();
  let rolling = true;
  const hammer = async () => {
    while (rolling) {
      const { status, body } = await get(5000);
      served++;
      if (status === 200) versions.add((JSON.parse(body) as Answer).version);
      else failures.push(`${status} ${body.slice(0, 80)}`);
    }
  };
  const clients = [hammer(), hammer(), hammer()];
  try {
    await readyAt(readApp, v2, BUILD_MS + ROLLOUT_MS);
    await waitBounded('1.1.0 through the URL', async () => versions.has('1.1.0'), 30_000);
  } finally {
    rolling = false;
    await Promise.all(clients);
  }
  step(`rolling update through the URL: ${served} requests, ${failures.length} failed`);
  assert.equal(failures, [], 'no failed request through the URL during the rollout');
  assert.ok(versions.has('1.0.0') && versions.has('1.1.0'), [...versions].join(', '));

  // Failing tests: not released (TestsFailed, with the test output), and the URL keeps serving 1.1.0.
  writeFileSync(world.path('app', 'test', 'app.test.js'), `${readFileSync(world.path('app', 'test', 'app.test.js'), 'utf8')}\ntest('a regression', () => { assert.equal(greeting({}), 'hi'); });\n`);
  const broken = await commitPackage((pkg) => { pkg.version = '1.2.0'; }, 'v1.2.0 with a failing test');
  const refusedTests = await waitBounded('TestsFailed', async () => { const app = await readApp(); return app.status?.failedRevision === broken && app; }, BUILD_MS);
  assert.is(condition(refusedTests, 'Built')?.reason, 'TestsFailed');
  assert.is(condition(refusedTests, 'Ready')?.reason, 'TestsFailed');
  assert.match(condition(refusedTests, 'Built')!.message, /# fail 1/, 'the test output\'s last lines');
  assert.match(condition(refusedTests, 'Ready')!.message, new RegExp(`${v2.slice(0, 12)} (keeps serving|is serving)`));
  assert.is(JSON.parse((await get()).body).version, '1.1.0');

  // More replicas than the offer allows: refused naming the field, and the URL keeps serving 1.1.0.
  writeFileSync(world.path('app', 'test', 'app.test.js'), readFileSync(`${REPO_ROOT}/examples/express-app/test/app.test.js`, 'utf8'));
  const greedy = await commitPackage((pkg) => { pkg.version = '1.3.0'; pkg.walrus!.replicas = 5; }, 'v1.3.0 asking for 5 replicas');
  const refused = await waitBounded('ManifestRefused', async () => { const app = await readApp(); return app.status?.failedRevision === greedy && app; }, BUILD_MS);
  assert.is(condition(refused, 'Ready')?.reason, 'ManifestRefused');
  // Released says which field and why (Ready says what keeps serving, once the next pass holds the failed head).
  assert.match(condition(refused, 'Released')!.message, /^package\.json walrus\.replicas asks for 5 replicas; the provider's offer allows at most 3$/);
  // The event follows the status write that the wait above saw.
  await waitBounded('a Warning event naming the field', async () => (await kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: tenantNs })).items
    .some((event) => event.reason === 'ManifestRefused' && event.type === 'Warning' && /walrus\.replicas/.test(event.message ?? '')), 15_000);
  assert.is(JSON.parse((await get()).body).version, '1.1.0');

  // No manifest: the npm defaults (npm ci, npm start with PORT, health on /, one replica).
  const plain = await commitPackage((pkg) => { pkg.version = '1.4.0'; delete pkg.walrus; }, 'v1.4.0 without a manifest');
  const defaults = await readyAt(readApp, plain, BUILD_MS + ROLLOUT_MS);
  assert.equal(defaults.status?.manifest, { commit: plain, source: 'defaults', lockfile: true });
  await waitBounded('1.4.0 through the URL', async () => { const { status, body } = await get(); return status === 200 && JSON.parse(body).version === '1.4.0'; }, 30_000);
  const deployment = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace: tenantNs, name });
  assert.is(deployment.spec?.replicas, 1);
  assert.is(deployment.spec?.template.spec?.containers[0]?.ports?.[0]?.containerPort, 8080);

  // The provider moves its apps to another domain and drops the LoadBalancer: the restarted controller puts the
  // Ingress at the new host and states the new URL on chain; the old host 404s; the Service turns ClusterIP (its
  // address freed); the running commit is not built again (the buildEnv did not change).
  const artifact = defaults.status?.artifact;
  await controller.kill('SIGTERM');
  controller = await provide('provider-t2', offerOf(exposedAt(MOVED_DOMAIN, false)));
  const movedUrl = await waitBounded('the new URL stated on chain', async () => {
    const stated = (await walrus(['lease', 'show', leaseId], asTenant)).match(/^url\s+(http:\/\/\S+)$/m)?.[1];
    return stated?.endsWith(`.${MOVED_DOMAIN}/`) ? stated : undefined;
  }, 60_000);
  assert.is((await readApp()).status?.url, movedUrl);
  const movedHost = new URL(movedUrl).host;
  assert.ok(movedHost.endsWith(`.${MOVED_DOMAIN}`), movedHost);
  await waitBounded('the new URL answering through the ingress', async () => { const { status, body } = await httpGet(ingress, 80, '/', 3000, { Host: movedHost }); return status === 200 && JSON.parse(body).version === '1.4.0'; }, 30_000);
  await waitBounded('the old URL answering 404', async () => (await get()).status === 404, 30_000);
  const service = await waitBounded('a ClusterIP Service without a LoadBalancer address', async () => {
    const read = await kc.makeApiClient(CoreV1Api).readNamespacedService({ namespace: tenantNs, name });
    return read.spec?.type === 'ClusterIP' && !read.status?.loadBalancer?.ingress?.length && read;
  }, 30_000);
  assert.is(service.spec?.ports?.[0]?.nodePort, undefined, 'the node port the LoadBalancer had is released');
  const changed = async () => (await kc.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: tenantNs })).items.filter((event) => event.reason === 'ExposureChanged').map((event) => event.message ?? '');
  assert.ok((await changed()).some((message) => message.includes(`answers at ${movedUrl}`) && message.includes(`no longer at ${url}`) && message.includes('is ClusterIP now')), (await changed()).join('\n'));
  const moved = await readApp();
  assert.equal([moved.status?.artifact?.blobId, moved.status?.lastAppliedRevision], [artifact?.blobId, plain], 'not built again');

  // No ingress in the offer any more: the Ingress goes, the URL leaves the status, the new host 404s too, and the
  // provider withdraws the URL from the lease (withdraw_url), so no one is sent to it any more. The buildEnv changed
  // too (npm's funding message turned off): the running commit is built again with it, in a Job of a new name.
  await controller.kill('SIGTERM');
  controller = await provide('provider-t3', offerOf({ buildEnv: [caBundle, { name: 'npm_config_fund', value: 'false' }] }));
  await waitBounded('its Ingress removed', () => kc.makeApiClient(NetworkingV1Api).readNamespacedIngress({ namespace: tenantNs, name }).then(() => false, () => true), 60_000);
  await waitBounded('the URL gone from the status', async () => (await readApp()).status?.url === undefined, 30_000);
  await waitBounded('the moved URL answering 404', async () => (await httpGet(ingress, 80, '/', 3000, { Host: movedHost })).status === 404, 30_000);
  assert.ok((await changed()).some((message) => message.includes(`Ingress ${name} removed`) && message.includes(`${movedUrl} is no longer served`)), (await changed()).join('\n'));
  await waitBounded('the URL withdrawn from the lease', async () => /^url\s+none \(/m.test(await walrus(['lease', 'show', leaseId], asTenant)), 30_000);
  assert.match(controller.output(), new RegExp(`withdrew its URL ${movedUrl.replace(/[.]/g, '\\.')}`));
  assert.not.ok((await walrus(['deployments', 'walrus'], asTenant)).includes(`url ${movedUrl}`), 'git walrus deployments no longer shows it');
  const rebuilt = await waitBounded('the running commit built again with the new buildEnv, and serving', async () => {
    const app = await readApp();
    return app.status?.artifact?.commit === plain && app.status.artifact.configHash !== artifact?.configHash && condition(app, 'Ready')?.status === 'True' && app;
  }, BUILD_MS + ROLLOUT_MS);
  assert.is(rebuilt.status?.lastAppliedRevision, plain);
  assert.match(controller.output(), new RegExp(`build job ${name}-b-${plain.slice(0, 12)}-${rebuilt.status!.artifact!.configHash!.slice(0, 10)} created`));

  // Closed: the app goes, and the URL answers 404 from the ingress.
  await walrus(['lease', 'close', leaseId], asTenant);
  await waitBounded('the WalrusApp removed', () => readApp().then(() => false, () => true), 30_000);
  await waitBounded('the URL answering 404', async () => (await get()).status === 404, 30_000);
});

test.run();
