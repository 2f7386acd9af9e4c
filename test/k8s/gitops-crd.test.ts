import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiException, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { DEFAULTS } from '../../src/gitops/api/types.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../src/ports/walrus-app.ts';
import { ConflictError } from '../../src/ports/cluster-errors.ts';
import { KubernetesCluster } from '../../src/k8s/cluster.ts';
import { testCluster } from './support/control-plane.ts';
import { installWalrusAppCrd, kubectl } from './support/gitops.ts';

const cluster = testCluster('gitops-crd');
const crd = suite('WalrusApp CRD on the real plane');
crd.after(() => cluster.stop());

const REPO = `walrus://0x${'ab'.repeat(32)}`;

/** The test's namespace on the plane with the CRD installed, a client for custom objects, and where its WalrusApps are. */
async function withCrd() {
  const { kc, namespace } = await cluster.get();
  await installWalrusAppCrd(kc);
  return { kc, namespace, objects: kc.makeApiClient(CustomObjectsApi), where: { group: GROUP, version: VERSION, namespace, plural: PLURAL } };
}

crd("installs; the API server fills in every default but the app manifest's fields, and keeps status apart (subresource)", async () => {
  const { objects, where } = await withCrd();
  await objects.createNamespacedCustomObject({ ...where, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name: 'defaults' }, spec: { repository: REPO }, status: { lastAppliedRevision: 'x' } } });
  const app = (await objects.getNamespacedCustomObject({ ...where, name: 'defaults' })) as WalrusApp;
  // Unset, so that the app's manifest may set them (a value here is the operator's and wins).
  assert.is(app.spec.replicas, undefined);
  assert.is(app.spec.port, undefined);
  assert.is(app.spec.health, undefined);
  assert.is(app.spec.suspend, false);
  assert.equal(app.spec.build, { image: DEFAULTS.build.image, timeout: DEFAULTS.build.timeout, resources: DEFAULTS.build.resources });
  assert.equal(app.spec.run, { image: DEFAULTS.run.image });
  assert.equal(app.spec.rollout, DEFAULTS.rollout);
  assert.is(app.status, undefined, 'status is not writable through the main resource');
});

crd('validation refuses a bad port, a missing repository, a malformed pusher address and an unknown field type', async () => {
  const { objects, where } = await withCrd();
  const refused = async (name: string, spec: Record<string, unknown>, field: string) => {
    try {
      await objects.createNamespacedCustomObject({ ...where, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name }, spec } });
      assert.unreachable(`${name} was accepted`);
    } catch (error) {
      assert.instance(error, ApiException);
      assert.is((error as ApiException<unknown>).code, 422, name);
      assert.match(String((error as ApiException<unknown>).body), field);
    }
  };
  await refused('port', { repository: REPO, port: 70000 }, 'spec.port');
  await refused('repository', { port: 80 }, 'spec.repository');
  await refused('scheme', { repository: 'https://example.com/x.git' }, 'spec.repository');
  await refused('pusher', { repository: REPO, policy: { allowedPushers: ['alice'] } }, 'spec.policy.allowedPushers');
  await refused('replicas', { repository: REPO, replicas: 'two' }, 'spec.replicas');
});

crd('kubectl get walrusapps shows Ready, Revision, URL, Status and Age from the status', async () => {
  const { namespace, objects, where } = await withCrd();
  await objects.createNamespacedCustomObject({ ...where, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name: 'shown' }, spec: { repository: REPO } } });
  const revision = 'c0ffee'.padEnd(40, '0');
  const ready = { type: 'Ready', status: 'True', reason: 'Succeeded', message: 'serving c0ffee000000', lastTransitionTime: new Date().toISOString() };
  await objects.patchNamespacedCustomObjectStatus({ ...where, name: 'shown', body: { status: { lastAppliedRevision: revision, conditions: [ready] } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  await objects.patchNamespacedCustomObjectStatus({ ...where, name: 'shown', body: { status: { url: 'http://shown-0a1b2c3d4e5f.apps.example.com/' } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  const table = await kubectl(['get', 'walrusapps', '-n', namespace, 'shown']);
  const [header, row] = table.trim().split('\n');
  assert.equal(header.split(/\s{2,}/), ['NAME', 'READY', 'REVISION', 'URL', 'STATUS', 'AGE']);
  assert.match(row, new RegExp(`^shown\\s+True\\s+${revision}\\s+http://shown-0a1b2c3d4e5f\\.apps\\.example\\.com/\\s+serving c0ffee000000\\s+\\d+s$`));
  assert.match(await kubectl(['get', 'wapp', '-n', namespace, '-o', 'name']), 'walrusapp.gitops.walrus-git.dev/shown', 'the short name works');
});

crd('a status write at a version the app has moved past is refused (Conflict), and leaves the newer status', async () => {
  const { kc, namespace, objects, where } = await withCrd();
  await objects.createNamespacedCustomObject({ ...where, body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name: 'versions' }, spec: { repository: REPO } } });
  const read = async () => (await objects.getNamespacedCustomObject({ ...where, name: 'versions' })) as WalrusApp;
  const adapter = new KubernetesCluster(kc, { log: () => {} });
  const ref = { namespace, name: 'versions' };
  const stale = (await read()).metadata.resourceVersion!;
  await adapter.patchAppStatus(ref, { lastAppliedRevision: 'a'.repeat(40) }, stale);
  const written = await read();
  assert.is(written.status?.lastAppliedRevision, 'a'.repeat(40));
  const refused = await adapter.patchAppStatus(ref, { lastAppliedRevision: 'b'.repeat(40) }, stale).then(() => undefined, (error: unknown) => error);
  assert.instance(refused, ConflictError);
  assert.is((await read()).status?.lastAppliedRevision, 'a'.repeat(40), 'the newer status stays');
  // At the current version, or with none, it is written.
  await adapter.patchAppStatus(ref, { lastAppliedRevision: 'c'.repeat(40) }, written.metadata.resourceVersion);
  await adapter.patchAppStatus(ref, { lastAppliedRevision: 'd'.repeat(40) });
  assert.is((await read()).status?.lastAppliedRevision, 'd'.repeat(40));
});

crd.run();
