/**
 * Whole reconcile passes over the recording cluster (support/fake-cluster.ts): the outcome each kind of situation
 * ends in, the conditions that outcome sets, what is written (the status once, at the end), and faults injected into
 * the cluster: a refused permission, a transient refusal, a status write that fails.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterAccessError, ClusterRequestError } from '../../src/ports/cluster-errors.ts';
import { reconcile, STEPS } from '../../src/gitops/reconcile/reconcile.ts';
import type { V1Deployment } from '@kubernetes/client-node';
import type { WalrusAppStatus } from '../../src/ports/walrus-app.ts';
import { PROVIDER_ANNOTATIONS } from '../../src/gitops/api/labels.ts';
import { ANNOTATIONS } from '../../src/gitops/templates/names.ts';
import { chainHead, failedPod, Fixture, NAMESPACE, oid, packedPod, SHA, walrusApp } from './support/reconcile-fixture.ts';
import { NPM_CI_FAILED } from './support/npm-output.ts';

const KEY = `${NAMESPACE}/web`;
const conditions = (status: WalrusAppStatus | undefined) => (status?.conditions ?? []).map((condition) => `${condition.type}: ${condition.status} ${condition.reason}`);
const jobName = (f: Fixture, commit = oid(1), attempt = 1) => f.templates.buildJobName(f.app!, commit, f.configHash(), attempt);
const refused = (call: string) => new ClusterAccessError('create', 'jobs', NAMESPACE, `jobs.batch is forbidden (${call})`);

const pass = suite('reconcile: one pass, its outcome and what it writes');

pass('the app is gone → Settled; it follows no repository; nothing is written', async () => {
  const f = new Fixture();
  const result = await reconcile(KEY, f.deps());
  assert.equal(result, { outcome: { kind: 'Settled' } });
  assert.equal(f.follows, [`${KEY} → null`]);
  assert.equal(f.cluster.actions, []);
});

pass('a new app → the build Job is created and the status written once: Waiting, Reconciling, Ready Unknown', async () => {
  const f = new Fixture(walrusApp());
  const { outcome, statusError } = await reconcile(KEY, f.deps());
  assert.equal(outcome, { kind: 'Waiting', reason: 'Building', message: `building ${oid(1).slice(0, 12)}`, afterMs: 15_000 });
  assert.is(statusError, undefined);
  assert.equal(f.cluster.actions, [`create jobs ${NAMESPACE}/${jobName(f)}`, `patch walrusapps/status ${KEY}`]);
  assert.equal(conditions(f.cluster.statuses[0]), ['Built: Unknown Building', 'Ready: Unknown Building', 'Reconciling: True Building']);
  assert.is(f.cluster.statuses[0].observedGeneration, 1);
  assert.equal(f.events.map((event) => event.split(':')[0]), ['Normal BuildStarted'], 'Reconciling and Unknown conditions make no event');
});

pass('the build done → released → Settled, Ready=True, one Normal event per condition that changed', async () => {
  const f = new Fixture(walrusApp());
  f.jobs.push(f.job(oid(1), 'succeeded'));
  f.cluster.pods.set(jobName(f), [packedPod('p1', JSON.stringify({ blobId: 'blob-1', sha256: SHA, size: 10 }))]);
  const { outcome } = await reconcile(KEY, f.deps());
  assert.equal(outcome, { kind: 'Settled' });
  const status = f.cluster.statuses[0];
  assert.equal(conditions(status), ['Built: True BuildSucceeded', 'Ready: True Succeeded', 'Released: True RolloutSucceeded']);
  assert.is(status.lastAppliedRevision, oid(1));
  assert.equal(f.events.map((event) => event.split(':')[0]), ['Normal BuildSucceeded', 'Normal Succeeded', 'Normal RolloutSucceeded']);
  assert.equal(f.cluster.actions.slice(-1), [`patch walrusapps/status ${KEY}`], 'the status is written last');
});

pass("a leased app: each pass starts the pods with the lease's current secrets version; a rotation changes the template (the app rolls out), an unset names the new version and nothing of the old", async () => {
  const lease = `0x${'c'.repeat(64)}`;
  const f = new Fixture(walrusApp());
  f.app!.metadata.annotations = { [PROVIDER_ANNOTATIONS.lease]: lease };
  let current = { blobId: 'sealed-v1', version: 1 };
  f.leaseSecrets = async (asked) => {
    assert.is(asked, lease);
    return current;
  };
  f.jobs.push(f.job(oid(1), 'succeeded'));
  f.cluster.pods.set(jobName(f), [packedPod('p1', JSON.stringify({ blobId: 'blob-1', sha256: SHA, size: 10 }))]);
  const passOn = async () => {
    const { outcome } = await reconcile(KEY, f.deps());
    assert.equal(outcome, { kind: 'Settled' });
    f.app!.status = f.cluster.statuses.at(-1);
    const deployment = f.cluster.applied.filter((object) => object.kind === 'Deployment').at(-1) as V1Deployment;
    const template = deployment.spec!.template;
    const step = template.spec!.initContainers!.find((container) => container.name === 'secrets')!;
    return { template, named: [template.metadata!.annotations![ANNOTATIONS.secretsVersion], template.metadata!.annotations![ANNOTATIONS.secretsBlobId], step.command!.join(' ')] };
  };
  const first = await passOn();
  assert.equal(first.named.slice(0, 2), ['1', 'sealed-v1']);
  assert.match(first.named[2]!, '--at-version 1 --blob=sealed-v1');
  current = { blobId: 'sealed-v2', version: 2 };
  const rotated = await passOn();
  assert.equal(rotated.named.slice(0, 2), ['2', 'sealed-v2']);
  assert.match(rotated.named[2]!, '--at-version 2 --blob=sealed-v2');
  assert.not.equal(rotated.template, first.template, 'a new template: the Deployment rolls its pods');
  current = { blobId: 'sealed-v3', version: 3 }; // an unset: the next version holds one name fewer
  const unset = await passOn();
  assert.equal(unset.named.slice(0, 2), ['3', 'sealed-v3']);
  assert.not.match(JSON.stringify(unset.template), /sealed-v[12]/, 'no pod of the new template can read an earlier version');
});

pass('a missing permission → Stalling AccessDenied: Ready=False and Stalled=True name the verb, resource and namespace; one Warning', async () => {
  const f = new Fixture(walrusApp());
  f.cluster.failOn('createJob', refused);
  const { outcome, statusError } = await reconcile(KEY, f.deps());
  assert.is(outcome.kind, 'Stalling');
  assert.is(statusError, undefined);
  if (outcome.kind !== 'Stalling') return;
  assert.equal([outcome.reason, outcome.step], ['AccessDenied', 'build']);
  const status = f.cluster.statuses[0];
  assert.equal(conditions(status), ['Ready: False AccessDenied', 'Stalled: True AccessDenied']);
  const stalled = status.conditions!.find((condition) => condition.type === 'Stalled')!;
  assert.match(stalled.message, `the controller may not create jobs in namespace ${NAMESPACE}`);
  assert.match(stalled.message, 'deploy/rbac.yaml');
  assert.equal(f.events.map((event) => event.split(':')[0]), ['Warning AccessDenied'], 'Ready=False and Stalled=True of one stall make one event');
});

pass('a transient refusal (HTTP 503) → Generic, retried; no condition claims more than is known', async () => {
  const f = new Fixture(walrusApp());
  f.cluster.failOn('createJob', () => new ClusterRequestError('create', 'jobs', 503, 'the server is currently unable to handle the request'));
  const { outcome } = await reconcile(KEY, f.deps());
  assert.equal([outcome.kind, 'step' in outcome && outcome.step], ['Generic', 'build']);
  assert.equal(f.cluster.actions, [`patch walrusapps/status ${KEY}`], 'the head read is written even so');
  assert.equal(conditions(f.cluster.statuses[0]), []);
  assert.is(f.cluster.statuses[0].head?.commit, oid(1));
});

pass('a stall seen again → the same outcome, nothing written, no event; once the head moves, Stalled goes', async () => {
  const f = new Fixture(walrusApp({ spec: { network: 'testnet' } }));
  assert.is((await reconcile(KEY, f.deps())).outcome.kind, 'Stalling');
  f.app!.status = f.cluster.statuses[0];
  f.now = new Date(f.now.getTime() + 60_000);
  f.cluster.actions.length = 0;
  f.events.length = 0;
  assert.is((await reconcile(KEY, f.deps())).outcome.kind, 'Stalling');
  assert.equal(f.cluster.actions, [], 'an unchanged status is not written: the stall keeps its transition time');
  assert.equal(f.events, []);

  f.app!.spec.network = 'devnet';
  f.app!.metadata.generation = 2;
  f.head = chainHead(oid(2));
  const { outcome } = await reconcile(KEY, f.deps());
  assert.is(outcome.kind, 'Waiting');
  const status = f.cluster.statuses.at(-1)!;
  assert.equal(conditions(status), ['Built: Unknown Building', 'Ready: False NetworkMismatch', 'Reconciling: True Building']);
});

pass('the status write fails → the pass\'s outcome and the write\'s error are both returned; no event before the status says it', async () => {
  const f = new Fixture(walrusApp());
  f.cluster.failOn('createJob', refused);
  const writeError = new ClusterRequestError('patch', 'walrusapps/status', 500, 'etcdserver: request timed out');
  f.cluster.failOn('patchAppStatus', () => writeError);
  const result = await reconcile(KEY, f.deps());
  assert.is(result.outcome.kind, 'Stalling');
  assert.is(result.outcome.kind === 'Stalling' && result.outcome.reason, 'AccessDenied');
  assert.is(result.statusError, writeError);
  assert.equal(f.events, []);
});

pass('the status is written at the version of the app the pass read: a pass on a stale cache cannot overwrite a newer status', async () => {
  const app = walrusApp();
  app.metadata.resourceVersion = '4711';
  const f = new Fixture(app);
  await reconcile(KEY, f.deps());
  assert.equal(f.cluster.actions.slice(-1), [`patch walrusapps/status ${KEY} at 4711`]);
});

pass('a changed spec → a commit that failed is tried again (the failure counters reset, as HelmRelease does)', async () => {
  const f = new Fixture(walrusApp({ generation: 2, status: {
    observedGeneration: 1, failedRevision: oid(1), build: { commit: oid(1), configHash: 'old', attempt: 1 },
    conditions: [{ type: 'Ready', status: 'False', reason: 'BuildFailed', message: '', lastTransitionTime: '' }],
  } }));
  const { outcome } = await reconcile(KEY, f.deps());
  assert.is(outcome.kind === 'Waiting' && outcome.reason, 'Building');
  assert.is(f.cluster.statuses[0].failedRevision, undefined);
});

pass('npm could not resolve the registry in the build step → retried after 10 s, not Stalled; the event names the host and code, never the buildEnv token', async () => {
  const token = 'npm_a1B2c3D4e5F6g7H8i9J0';
  const f = new Fixture(walrusApp());
  f.offer.buildEnv = [{ name: 'NPM_TOKEN', value: token }, { name: 'npm_config_strict_ssl', value: 'true' }];
  f.jobs.push(f.job(oid(1), 'failed'));
  // The build step's last words: the install echoing the token (as a careless script may), then npm's error.
  const output = `$ npm ci\nusing token ${token}\n${NPM_CI_FAILED.EAI_AGAIN}\n`;
  f.cluster.pods.set(jobName(f), [failedPod('p1', 'build', 1, output)]);
  f.cluster.logs.set('p1', output);

  const { outcome } = await reconcile(KEY, f.deps());
  assert.equal([outcome.kind, 'reason' in outcome && outcome.reason, 'afterMs' in outcome && outcome.afterMs], ['Waiting', 'BuildRetrying', 10_000]);
  const status = f.cluster.statuses[0];
  assert.equal(conditions(status), ['Built: Unknown BuildRetrying', 'Ready: Unknown BuildRetrying', 'Reconciling: True BuildRetrying']);
  assert.is(status.failedRevision, undefined, 'the commit is not marked failed');
  assert.equal([status.build?.attempt, status.build?.retryAt, status.build?.lastFailure?.reason], [2, new Date(f.now.getTime() + 10_000).toISOString(), 'RegistryUnreachable']);
  const built = status.conditions!.find((condition) => condition.type === 'Built')!;
  assert.match(built.message, 'attempt 1 of 3 to build 111111111111 failed (RegistryUnreachable, not the app\'s build); attempt 2 in 10 s: ');
  assert.match(built.message, 'the build step could not reach the package registry at registry.npmjs.org: npm EAI_AGAIN, its name did not resolve (a temporary DNS failure)');
  assert.match(built.message, 'using token $NPM_TOKEN\nnpm error code EAI_AGAIN', 'the log tail is quoted, the token written as its name');
  assert.not.match(JSON.stringify(status), token);
  assert.equal(f.events, [
    'Warning BuildRetrying: attempt 1 of 3 to build 111111111111 failed (RegistryUnreachable, not the app\'s build); attempt 2 in 10 s: the build step could not reach the package registry at registry.npmjs.org: npm EAI_AGAIN, its name did not resolve (a temporary DNS failure); the network or the registry failed, not the app (exit code 1):',
  ]);

  // 10 s later the first attempt's Job goes and the second's is made.
  f.app!.status = status;
  f.now = new Date(f.now.getTime() + 10_000);
  f.cluster.actions.length = 0;
  const next = await reconcile(KEY, f.deps());
  assert.equal([next.outcome.kind, 'reason' in next.outcome && next.outcome.reason], ['Waiting', 'Building']);
  assert.equal(f.cluster.actions, [`delete jobs ${NAMESPACE}/${jobName(f)}`, `create jobs ${NAMESPACE}/${jobName(f, oid(1), 2)}`, `patch walrusapps/status ${KEY}`]);
});

pass('the controller restarts with an offer without ingress while the next commit builds → the Ingress goes in that pass, the URL with it; later passes read nothing more', async () => {
  const f = new Fixture(walrusApp());
  f.offer.ingress = { domain: 'apps.example.com', scheme: 'http', from: [], loadBalancer: false };
  f.jobs.push(f.job(oid(1), 'succeeded'));
  f.cluster.pods.set(jobName(f), [packedPod('p1', JSON.stringify({ blobId: 'blob-1', sha256: SHA, size: 10 }))]);
  assert.is((await reconcile(KEY, f.deps())).outcome.kind, 'Settled');
  const url = f.cluster.statuses[0].url;
  assert.match(url ?? '', /^http:\/\/web-[0-9a-f]{12}\.apps\.example\.com\/$/);
  assert.ok(f.cluster.objects.has(`Ingress ${NAMESPACE}/web`));

  f.restartWith({ maxReplicas: 5 });
  f.app!.status = f.cluster.statuses[0];
  f.jobs.length = 0;
  f.head = chainHead(oid(2));
  f.cluster.actions.length = 0;
  f.events.length = 0;
  const { outcome } = await reconcile(KEY, f.deps());
  assert.equal([outcome.kind, 'reason' in outcome && outcome.reason], ['Waiting', 'Building']);
  assert.equal(f.cluster.actions, [`delete ingresses ${NAMESPACE}/web`, `create jobs ${NAMESPACE}/${jobName(f, oid(2))}`, `patch walrusapps/status ${KEY}`]);
  assert.not.ok(f.cluster.objects.has(`Ingress ${NAMESPACE}/web`));
  const status = f.cluster.statuses.at(-1)!;
  assert.is(status.url, undefined);
  assert.equal(f.events.filter((event) => event.startsWith('Normal ExposureChanged')), [`Normal ExposureChanged: the provider's offer changed how apps are exposed: Ingress web removed; ${url} is no longer served`]);

  // The informer's copy of the app may lag behind the status just written: a pass on it announces nothing again.
  f.events.length = 0;
  await reconcile(KEY, f.deps());
  assert.equal(f.events.filter((event) => event.startsWith('Normal ExposureChanged')), []);
  assert.is(f.cluster.statuses.at(-1)!.url, undefined);

  f.app!.status = f.cluster.statuses.at(-1)!;
  f.cluster.reads.length = 0;
  await reconcile(KEY, f.deps());
  assert.equal(f.cluster.reads.filter((read) => read.startsWith('get ingresses')), [], 'the offer\'s exposure is recorded: not looked at again');
});

pass('a step list out of order → Stalling ReconcileFailed naming the missing fact (a bug, not retried)', async () => {
  const f = new Fixture(walrusApp());
  const { outcome } = await reconcile(KEY, f.deps(), STEPS.filter((step) => step.name !== 'read-head'));
  assert.is(outcome.kind, 'Stalling');
  if (outcome.kind !== 'Stalling') return;
  assert.equal([outcome.reason, outcome.step], ['ReconcileFailed', 'policy']);
  assert.match(outcome.message, "found out 'head'");
});

pass.run();
