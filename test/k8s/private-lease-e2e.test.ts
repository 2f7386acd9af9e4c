/**
 * A private repository deployed under a lease, end to end on the real plane with the process kubelet and the devnet
 * server's Seal key servers: a tenant pushes a private npm app → opens a lease → the provider's controller builds it
 * (checkout with the provider's key, under the lease) and serves it; Walrus holds no readable pack and no readable
 * tarball → a second push rolls out → the tenant closes the lease → a third push is not deployed and the provider's key
 * request is refused for "lease closed" → a reader's lease is built and served; once the owner removes that reader, a
 * push is not built (Stalled, TenantNotReader) while the release already running keeps serving, and the provider's
 * key request is refused for "tenant not a reader" → a stranger's controller given the same WalrusApp is refused from the start,
 * naming the address the owner would have to add; once the owner adds it as a reader, that app is built and served.
 */
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppsV1Api, BatchV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { API_VERSION, GROUP, KIND, PLURAL, VERSION, type WalrusApp } from '../../src/ports/walrus-app.ts';
import type { World } from '../../scripts/harness/world.ts';
import { waitFor } from './support/control-plane.ts';
import { devnetOfferFile, readyAt } from './support/gitops.ts';
import { leaseEndToEnd } from './support/lease-e2e.ts';
import { helloRepository, httpGet, TEST_BUILD_COMMAND } from '../../scripts/harness/gitops.ts';

const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;
const KEY_SECRET = 'walrus-provider-key';

const { test, step, waitBounded, stageTest } = leaseEndToEnd('private-lease-e2e', 'a private repository under a lease (process kubelet, devnet key servers, a real npm build)');
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

const strangerKey = Ed25519Keypair.generate();
const readerKey = Ed25519Keypair.generate();

/** Every blob file the devnet's Walrus stores, by blob id. */
function storedBlobs(world: World): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (dir.endsWith('/blobs')) found.set(entry, path);
    }
  };
  walk(world.path('devnet-state'));
  return found;
}

stageTest('lease → private build served (nothing readable on Walrus) → rollout → close revokes → a stranger is refused', async (stage) => {
  const { namespace, node, kc, core, objects, world, devnet, providerKey, asTenant, asProvider, walrus } = stage;

  const url = await helloRepository(world, asTenant, 'secret-hello', { private: true });
  await world.ok('app', ['commit', '-qm', 'hello v1']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const first = await world.ok('app', ['rev-parse', 'HEAD']);

  // The provider: registered, its key in a Secret beside the controller (copied into each tenant namespace).
  const providerId = await stage.registerProvider();
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: KEY_SECRET }, stringData: { key: providerKey.getSecretKey() } } });
  const specFile = world.path('lease-app.json');
  writeFileSync(specFile, JSON.stringify({ replicas: 1, port: 8080, health: { path: '/healthz', periodSeconds: 1, failureThreshold: 2 }, build: { command: TEST_BUILD_COMMAND } }));
  // The devnet serves on the host link, inside the ranges the default offer closes to tenant pods.
  const offerFile = devnetOfferFile(world, node.network);
  const provider = await stage.startProvider('private-provider', [
    '--provider-key-secret', KEY_SECRET,
    '--provider', providerId, '--provider-app-spec', specFile, '--provider-offer', offerFile, '--provider-interval-ms', '1000', '--claim-every-ms', '60000',
  ]);

  const { leaseId, tenant, namespace: tenantNs, name: appName, read: readApp } = await stage.openLease('walrus', providerId);
  const opened = Date.now();

  const ready = await readyAt(readApp, first, BUILD_MS + ROLLOUT_MS);
  const service = await core.readNamespacedService({ name: appName, namespace: tenantNs });
  await waitBounded('served through the Service', async () => (await httpGet(service.spec!.clusterIP!, 80)).status === 200);
  step(`private: lease opened → built and served in ${seconds(opened)}`);
  const artifact = ready.status!.artifact!;

  // Walrus holds the private repository's packs and its build only encrypted.
  const blobs = storedBlobs(world);
  const artifactBytes = readFileSync(blobs.get(artifact.blobId)!);
  assert.is(artifactBytes.subarray(0, 4).toString(), 'wgsa', 'the artifact is sealed');
  assert.not.ok(artifactBytes[0] === 0x1f && artifactBytes[1] === 0x8b, 'the stored artifact is not a readable tarball');
  for (const [blobId, path] of blobs) {
    const head = readFileSync(path).subarray(0, 4).toString();
    assert.ok(head === 'wgpe' || head === 'wgsa', `blob ${blobId} starts with ${JSON.stringify(head)}: neither an encrypted pack nor a sealed artifact`);
    assert.not.ok(readFileSync(path).includes('hello-npm'), `blob ${blobId} holds plaintext`);
  }
  // The tool steps had the provider's key (the lease's secrets are tool steps too); the build and the app did not.
  const pods = (await core.listNamespacedPod({ namespace: tenantNs })).items;
  const keyed = (containers: { name: string; env?: { name: string }[] }[] | undefined) => (containers ?? []).filter((c) => c.env?.some((e) => e.name === 'GIT_WALRUS_KEY')).map((c) => c.name);
  for (const pod of pods) {
    const names = [...keyed(pod.spec!.initContainers), ...keyed(pod.spec!.containers)];
    assert.ok(names.every((name) => ['checkout', 'build-secrets', 'pack', 'fetch', 'secrets'].includes(name)), `${pod.metadata!.name}: the key reached ${names.join(', ')}`);
  }

  // The provider reads it by hand too, under the lease: one key request per key server of the quorum.
  world.takeStats();
  await walrus(['checkout', url, world.path('by-hand'), '--lease', leaseId], asProvider);
  const checkoutRequests = world.takeStats().reduce((n, s) => n + s.keyServerRequests, 0);
  await walrus(['artifact', 'fetch', artifact.blobId, '--sha256', artifact.sha256, world.path('unpacked'), '--lease', leaseId], asProvider);
  const fetchRequests = world.takeStats().reduce((n, s) => n + s.keyServerRequests, 0);
  step(`key-server requests: ${checkoutRequests} for a checkout of ${first.slice(0, 8)} (1 pack), ${fetchRequests} for an artifact fetch`);
  assert.ok(readFileSync(world.path('unpacked', 'server.js'), 'utf8').includes('listening'));

  // deployments --verify: the tenant checks the encrypted artifact; a stranger is told what was not checked.
  await waitBounded('the Deployed record', async () => (await walrus(['deployments', 'walrus'], asTenant)).includes(first), 30_000);
  assert.match(await walrus(['deployments', 'walrus', '--verify'], asTenant), /verified: the artifact matches its sha256 and the commit was pushed/);
  const asStranger = { ...devnet.env, GIT_WALRUS_KEY: strangerKey.getSecretKey() };
  const unchecked = await walrus(['deployments', url, '--verify'], asStranger);
  assert.match(unchecked, new RegExp(`NOT CHECKED: the artifact is encrypted \\(a private repository's build\\) and ${strangerKey.toSuiAddress()} may not read it`));

  // A second push rolls out.
  writeFileSync(world.path('app', 'NOTES.md'), 'v2\n');
  await world.ok('app', ['add', '-A']);
  await world.ok('app', ['commit', '-qm', 'hello v2']);
  const pushed = Date.now();
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const second = await world.ok('app', ['rev-parse', 'HEAD']);
  await readyAt(readApp, second, BUILD_MS + ROLLOUT_MS);
  step(`private: second push → rolled out in ${seconds(pushed)}`);
  const deployment = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: appName, namespace: tenantNs });
  assert.is(deployment.spec!.template.metadata!.annotations!['gitops.walrus-git.dev/commit'], second);

  // Closed: the app goes, a third push is deployed nowhere, and the provider gets no key for it.
  await walrus(['lease', 'close', leaseId], asTenant);
  await waitBounded('the WalrusApp removed', () => readApp().then(() => false, () => true), 30_000);
  writeFileSync(world.path('app', 'NOTES.md'), 'v3\n');
  await world.ok('app', ['commit', '-qam', 'hello v3']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const third = await world.ok('app', ['rev-parse', 'HEAD']);
  const refused = await world.run('app', ['walrus', 'checkout', url, world.path('after-close'), '--lease', leaseId], { env: asProvider });
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, new RegExp(`fatal: cannot decrypt the packs of repository 'secret-hello' \\(0x[0-9a-f]{64}\\): lease closed: the Seal key servers give ${providerKey.toSuiAddress()} no keys of ${tenant}'s repository under lease ${leaseId}, which is closed`));
  await waitFor('a few provider passes after the push', async () => true, 5_000);
  assert.not.match(await walrus(['deployments', 'walrus'], asTenant), new RegExp(third));
  assert.is((await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: tenantNs }).catch(() => ({ items: [] }))).items
    .filter((job) => job.metadata?.annotations?.['gitops.walrus-git.dev/commit'] === third).length, 0, 'no build of the third push');

  // A reader's lease is served; once the owner removes the reader, nothing new is built and the running release stays.
  const reader = readerKey.toSuiAddress();
  const asReader = { ...devnet.env, GIT_WALRUS_KEY: readerKey.getSecretKey() };
  await walrus(['readers', 'add', 'walrus', reader], asTenant);
  const { leaseId: readerLease, namespace: readerNs, name: readerApp, read: readReaderApp } = await stage.openLease(url, providerId, asReader);
  await readyAt(readReaderApp, third, BUILD_MS + ROLLOUT_MS);
  const readerService = await core.readNamespacedService({ name: readerApp, namespace: readerNs });
  await waitBounded('the reader\'s app served', async () => (await httpGet(readerService.spec!.clusterIP!, 80)).status === 200);
  await walrus(['readers', 'remove', 'walrus', reader], asTenant);
  writeFileSync(world.path('app', 'NOTES.md'), 'v4\n');
  await world.ok('app', ['commit', '-qam', 'hello v4']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const fourth = await world.ok('app', ['rev-parse', 'HEAD']);
  const tenantRefused = await waitBounded('the reader\'s app Stalled', async () => (await readReaderApp()).status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True'), 60_000);
  assert.is(tenantRefused.reason, 'TenantNotReader');
  assert.match(tenantRefused.message, new RegExp(`^tenant not a reader: private repository 'secret-hello' \\(0x[0-9a-f]{64}\\) of ${tenant}, served under lease ${readerLease}: its tenant ${reader} may not read the repository`));
  assert.is((await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: readerNs })).items.filter((job) => job.metadata?.annotations?.['gitops.walrus-git.dev/commit'] === fourth).length, 0, 'no build of the push after the removal');
  const kept = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: readerApp, namespace: readerNs });
  assert.is(kept.spec!.template.metadata!.annotations!['gitops.walrus-git.dev/commit'], third, 'the running release stays');
  assert.is((await httpGet(readerService.spec!.clusterIP!, 80)).status, 200, 'and keeps serving');
  const keysRefused = await world.run('app', ['walrus', 'checkout', url, world.path('after-removal'), '--lease', readerLease], { env: asProvider });
  assert.is.not(keysRefused.code, 0);
  assert.match(keysRefused.stderr, /: tenant not a reader: the Seal key servers give /);
  step('a reader\'s lease: served; reader removed → the next push not built, the running release kept');

  // A stranger's controller with the same WalrusApp: refused from the start, naming the address to add.
  await provider.kill('SIGTERM'); // it serves every namespace: the stranger's app is the stranger's controller's alone
  const strangerNs = `${namespace}-stranger`;
  stage.removeAfter(strangerNs);
  stage.explain({ namespace: strangerNs, name: 'copy' });
  await core.createNamespace({ body: { metadata: { name: strangerNs } } });
  await core.createNamespacedSecret({ namespace: strangerNs, body: { metadata: { name: KEY_SECRET }, stringData: { key: strangerKey.getSecretKey() } } });
  stage.startController('stranger', [
    '--kubeconfig', node.plane.kubeconfigPath, '--namespace', strangerNs, '--controller-namespace', strangerNs, '--poll-ms', '500', '--provider-key-secret', KEY_SECRET,
  ], asStranger);
  const copy: WalrusApp = { apiVersion: API_VERSION, kind: KIND, metadata: { name: 'copy', namespace: strangerNs }, spec: { repository: url, replicas: 1, port: 8080, build: { command: TEST_BUILD_COMMAND } } };
  await objects.createNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: strangerNs, body: copy });
  const stalled = await waitBounded('the stranger\'s app Stalled', async () => {
    const app = await objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: strangerNs, name: 'copy' }) as WalrusApp;
    return app.status?.conditions?.find((c) => c.type === 'Stalled' && c.status === 'True');
  }, 60_000);
  assert.is(stalled.reason, 'NotAReader');
  assert.match(stalled.message, new RegExp(`this controller's address ${strangerKey.toSuiAddress()}: its owner adds it with \`git walrus readers add ${url.replace(/[/.]/g, '\\$&')} ${strangerKey.toSuiAddress()}\``));
  assert.is((await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: strangerNs })).items.length, 0, 'no build was tried');

  // The owner makes that address a reader: the same app, now the controller's own, is built and served.
  await walrus(['readers', 'add', 'walrus', strangerKey.toSuiAddress()], asTenant);
  // A readers change moves no ref: the controller sees it at its next resync, or at once when the app is touched.
  await objects.patchNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: strangerNs, name: 'copy', body: { metadata: { annotations: { touched: '1' } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  const readCopy = () => objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: strangerNs, name: 'copy' }) as Promise<WalrusApp>;
  await readyAt(readCopy, fourth, BUILD_MS + ROLLOUT_MS);
  step('a reader\'s own app from the private repository: built and served once its address was added');
});

test.run();
