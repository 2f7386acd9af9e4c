/**
 * A lease's secrets delivered to its app, end to end on the real plane with the process kubelet and the devnet
 * server's Seal key servers: a tenant leases an app that answers with a digest of one secret's value → `git walrus
 * secrets set` → the app serves that digest → a rotation while a client asks without pause: no request fails, and the
 * new digest is served (the time from `secrets set` to it is printed) → `unset` → the app has none → the values are
 * a push whose manifest names a build secret the lease lacks stops at it, and `secrets set` builds it again with no
 * push → the values are nowhere they must not be: no object of any namespace (Secrets, ConfigMaps, Pods' specs and statuses, Deployments,
 * ReplicaSets, Jobs, WalrusApps, Events), not the controller's log, not the devnet's chain state or Walrus blobs.
 */
import * as assert from 'uvu/assert';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { AppsV1Api, BatchV1Api } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION } from '../../src/ports/walrus-app.ts';
import { devnetOfferFile, readyAt } from './support/gitops.ts';
import { leaseEndToEnd } from './support/lease-e2e.ts';
import { helloRepository, httpGet, TEST_BUILD_COMMAND } from '../../scripts/harness/gitops.ts';
import { filesUnder } from '../support/files-under.ts';

const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;
const KEY_SECRET = 'walrus-provider-key';

/** The app: GET /digest answers the sha256 of API_TOKEN (or "none"), never the value itself. */
const DIGEST_SERVER = `import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
const token = process.env.API_TOKEN;
const digest = token === undefined ? 'none' : createHash('sha256').update(token).digest('hex');
const server = createServer((request, response) => {
  if (request.url === '/healthz') return response.writeHead(200).end('ok\\n');
  if (request.url === '/digest') return response.writeHead(200).end(digest);
  response.writeHead(404).end();
});
server.listen(Number(process.env.PORT ?? 8080));
process.once('SIGTERM', () => setTimeout(() => server.close(() => process.exit(0)), 2000).unref());
`;

const { test, step, waitBounded, stageTest } = leaseEndToEnd('lease-secrets-e2e', "a lease's secrets reach its app only (process kubelet, devnet key servers)");
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

stageTest('secrets set → served digest → rotation with no failed request → unset → the values found nowhere else', async ({
  namespace, kc, core, objects, world, providerKey, asTenant, walrus, node, registerProvider, startProvider, openLease,
}) => {
  await helloRepository(world, asTenant, 'secret-digest');
  writeFileSync(world.path('app', 'server.js'), DIGEST_SERVER);
  await world.ok('app', ['add', '-A']);
  await world.ok('app', ['commit', '-qm', 'digest of API_TOKEN']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const commit = await world.ok('app', ['rev-parse', 'HEAD']);

  const providerId = await registerProvider();
  await core.createNamespacedSecret({ namespace, body: { metadata: { name: KEY_SECRET }, stringData: { key: providerKey.getSecretKey() } } });
  const specFile = world.path('lease-app.json');
  // Two replicas, so a rollout always leaves one serving.
  writeFileSync(specFile, JSON.stringify({ replicas: 2, port: 8080, health: { path: '/healthz', periodSeconds: 1, failureThreshold: 2 }, build: { command: TEST_BUILD_COMMAND } }));
  const controller = await startProvider('secrets-provider', [
    '--provider-key-secret', KEY_SECRET, '--provider', providerId, '--provider-app-spec', specFile, '--provider-offer', devnetOfferFile(world, node.network), '--provider-interval-ms', '1000', '--claim-every-ms', '60000',
  ]);

  const { namespace: tenantNs, name: appName, leaseId, read: readApp } = await openLease('walrus', providerId);
  await readyAt(readApp, commit, BUILD_MS + ROLLOUT_MS);
  const service = await core.readNamespacedService({ name: appName, namespace: tenantNs });
  const digest = async () => (await httpGet(service.spec!.clusterIP!, 80, '/digest')).body;
  // Every pod answers `expected` (six asks through the Service, so both replicas are hit): the rollout is over.
  const servedByAll = (what: string, expected: string) => waitBounded(what, async () => {
    const served = await Promise.all(Array.from({ length: 6 }, () => digest()));
    return served.every((body) => body === expected);
  }, ROLLOUT_MS);
  await servedByAll('served with no secret', 'none');

  // Values with a quote and a dollar sign: the shell that sources them must not read them as code.
  const first = `tok-${randomBytes(12).toString('hex')}'$HOME`;
  const second = `tok-${randomBytes(12).toString('hex')}"\`x\``;
  const setAt = Date.now();
  assert.is(await walrus(['secrets', 'set', leaseId, `API_TOKEN=${first}`], asTenant), '1');
  await servedByAll('the first digest served by every pod', sha256(first));
  // The rollout to version 1 over, its old pods gone (a terminating pod may still answer for a moment).
  const runPods = async () => {
    const deployment = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: appName, namespace: tenantNs });
    const selector = Object.entries(deployment.spec!.selector.matchLabels!).map(([key, value]) => `${key}=${value}`).join(',');
    return (await core.listNamespacedPod({ namespace: tenantNs, labelSelector: selector })).items;
  };
  await waitBounded('only pods of version 1', async () => (await runPods()).every((pod) =>
    !pod.metadata!.deletionTimestamp && pod.metadata!.annotations?.['gitops.walrus-git.dev/secrets-version'] === '1'), ROLLOUT_MS);
  step(`secrets set (version 1) → every pod serves its digest: ${((Date.now() - setAt) / 1000).toFixed(1)} s`);

  // A rotation while a client asks without pause: every answer is the old digest or the new one, none fails.
  let asking = true;
  const answers = new Map<string, number>();
  /** The answers in order, runs of one answer collapsed: old → new is a clean rotation. */
  const runs: string[] = [];
  const client = (async () => {
    while (asking) {
      const { status, body } = await httpGet(service.spec!.clusterIP!, 80, '/digest');
      const seen = status === 200 ? body : `HTTP ${status}: ${body}`;
      answers.set(seen, (answers.get(seen) ?? 0) + 1);
      const name = seen === sha256(first) ? 'old' : seen === sha256(second) ? 'new' : seen;
      if (runs.at(-1) !== name) runs.push(name);
    }
  })();
  const rotatedAt = Date.now();
  assert.is(await walrus(['secrets', 'set', leaseId, `API_TOKEN=${second}`], asTenant), '2');
  const setDone = Date.now();
  await servedByAll('the new digest served by every pod', sha256(second));
  const servedAfterMs = Date.now() - rotatedAt;
  asking = false;
  await client;
  step(`rotation: \`secrets set\` took ${((setDone - rotatedAt) / 1000).toFixed(1)} s; from its start to every pod serving the new value: ${(servedAfterMs / 1000).toFixed(1)} s; ` +
    `answers during it: ${[...answers].map(([body, n]) => `${body === sha256(first) ? 'old' : body === sha256(second) ? 'new' : body}×${n}`).join(', ')} (in order: ${runs.slice(0, 12).join(' → ')}${runs.length > 12 ? ' …' : ''})`);
  assert.equal([...answers.keys()].filter((body) => body !== sha256(first) && body !== sha256(second)), [], 'no failed or other answer during the rotation');
  assert.ok((answers.get(sha256(second)) ?? 0) > 0);

  assert.is(await walrus(['secrets', 'unset', leaseId, 'API_TOKEN'], asTenant), '3');
  await servedByAll('the app rolled out without the secret', 'none');
  const deployment = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: appName, namespace: tenantNs });
  assert.is(deployment.spec!.template.metadata!.annotations!['gitops.walrus-git.dev/secrets-version'], '3');

  // A push whose manifest names a build secret the lease has not set: the build stops, naming it; `secrets set`
  // builds the same commit again, with no new push, and it serves.
  const pkg = JSON.parse(readFileSync(world.path('app', 'package.json'), 'utf8')) as { walrus?: Record<string, unknown> };
  pkg.walrus = { ...pkg.walrus, buildSecrets: ['BUILD_TOKEN'] };
  writeFileSync(world.path('app', 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  await world.ok('app', ['commit', '-qam', 'the install needs BUILD_TOKEN']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const needsToken = await world.ok('app', ['rev-parse', 'HEAD']);
  const held = await waitBounded('the build stopped for the missing build secret', async () => {
    const current = await readApp();
    const built = current.status?.conditions?.find((condition) => condition.type === 'Built');
    return current.status?.failedRevision === needsToken && built?.reason === 'BuildSecretNotSet' && built;
  }, BUILD_MS);
  assert.match(held.message, `walrus.buildSecrets names BUILD_TOKEN, which lease ${leaseId} has not set: run git walrus secrets set ${leaseId} BUILD_TOKEN=…`);
  const buildToken = `build-${randomBytes(12).toString('hex')}`;
  const retriedAt = Date.now();
  assert.is(await walrus(['secrets', 'set', leaseId, `BUILD_TOKEN=${buildToken}`], asTenant), '4');
  // The hold lifted at the controller's next chain poll (readyAt would take the held commit for a final failure).
  await waitBounded('the held commit built again', async () => (await readApp()).status?.failedRevision !== needsToken, ROLLOUT_MS);
  await readyAt(readApp, needsToken, BUILD_MS + ROLLOUT_MS);
  step(`secrets set of the missing build secret → ${needsToken.slice(0, 12)} built again and serving, no push: ${((Date.now() - retriedAt) / 1000).toFixed(1)} s`);

  // Nowhere else: every namespace's objects and events, the controller's log, the devnet's chain state and blobs.
  const apps = kc.makeApiClient(AppsV1Api);
  const dumps: [string, unknown][] = [
    ['secrets', await core.listSecretForAllNamespaces()],
    ['configmaps', await core.listConfigMapForAllNamespaces()],
    ['pods', await core.listPodForAllNamespaces()],
    ['events', await core.listEventForAllNamespaces()],
    ['deployments', await apps.listDeploymentForAllNamespaces()],
    ['replicasets', await apps.listReplicaSetForAllNamespaces()],
    ['jobs', await kc.makeApiClient(BatchV1Api).listJobForAllNamespaces()],
    ['walrusapps', await objects.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL })],
  ];
  const secretsOf = (values: string[]) => values.flatMap((value) => [value, Buffer.from(value).toString('base64')]);
  for (const [kind, dump] of dumps) {
    const text = JSON.stringify(dump);
    for (const value of secretsOf([first, second, buildToken])) assert.not.ok(text.includes(value), `a value in the cluster's ${kind}`);
  }
  const log = controller.output();
  for (const value of [first, second, buildToken]) assert.not.ok(log.includes(value), "a value in the controller's log");
  const stored = filesUnder(world.path('devnet-state'));
  assert.ok(stored.length > 0);
  for (const path of stored) {
    const bytes = readFileSync(path);
    for (const value of [first, second, buildToken]) assert.not.ok(bytes.includes(value), `a value in ${path}`);
  }
  step(`no value in ${dumps.length} kinds of object of every namespace, the controller's log, or ${stored.length} files of chain state and blobs`);
});

test.run();
