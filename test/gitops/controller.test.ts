/**
 * The Controller's loop (src/gitops/controller.ts) over the recording cluster, with the reconcile steps replaced by
 * one whose outcome each test sets, a work queue that records what is done with each key, and a clock the test
 * moves: the queue follows the outcome (sample-controller's Forget / AddRateLimited / AddAfter), a failed status write
 * is reported with the error it hid, a restarted watch gets every app looked at again, and a lost Lease stops it all.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Controller, type ControllerOptions } from '../../src/gitops/controller.ts';
import { PROVIDER_ANNOTATIONS } from '../../src/gitops/api/labels.ts';
import { ANNOTATIONS } from '../../src/gitops/templates/names.ts';
import type { WalrusApp } from '../../src/ports/walrus-app.ts';
import { ClusterAccessError, ClusterRequestError, ConflictError } from '../../src/ports/cluster-errors.ts';
import { WorkQueue } from '../../src/gitops/queue.ts';
import type { Outcome } from '../../src/gitops/reconcile/outcome.ts';
import type { Step } from '../../src/gitops/reconcile/reconcile.ts';
import { createTemplates } from '../../src/gitops/templates/create-templates.ts';
import { FakeCluster } from './support/fake-cluster.ts';
import { NAMESPACE, walrusApp } from './support/reconcile-fixture.ts';
import { ManualClock, settle } from '../support/manual-clock.ts';

const KEY = `${NAMESPACE}/web`;

/** A WorkQueue that records forget / addAfter / addRateLimited / done (delayed adds are recorded, not scheduled). */
class RecordingQueue extends WorkQueue {
  readonly actions: string[] = [];
  #onDone: (() => void)[] = [];

  constructor() {
    super({ baseDelayMs: 500, maxDelayMs: 5 * 60_000 });
  }
  override forget(key: string): void {
    this.actions.push(`forget ${key}`);
    super.forget(key);
  }
  override addAfter(key: string, delayMs: number): void {
    this.actions.push(`after ${key} ${delayMs}`);
  }
  override addRateLimited(key: string): number {
    this.actions.push(`rate-limited ${key}`);
    return super.addRateLimited(key);
  }
  override done(key: string): void {
    super.done(key);
    this.actions.push(`done ${key}`);
    for (const resolve of this.#onDone.splice(0)) resolve();
  }
  /** Resolves when the next pass is done. */
  processed(): Promise<void> {
    return new Promise((resolve) => this.#onDone.push(resolve));
  }
}

const ledger = {
  resolve: async () => '0x1',
  getRepository: async () => { throw new Error('not read: the steps are the test\'s'); },
  listRefs: async () => new Map<string, string>(),
  listPushesAfter: async () => ({ events: [], cursor: null, hasNextPage: false }),
  latestPushCursor: async () => null,
};

function start(options: { outcome?: () => Outcome; leaderElection?: boolean; app?: WalrusApp; leaseSecrets?: ControllerOptions['leaseSecrets']; reconcileApps?: boolean } = {}) {
  const cluster = new FakeCluster();
  const app = options.app ?? walrusApp();
  cluster.informers.walrusapps.objects.set(KEY, app);
  const clock = new ManualClock();
  const queue = new RecordingQueue();
  const logs: string[] = [];
  let outcome = options.outcome ?? (() => ({ kind: 'Settled' }) as Outcome);
  const steps: Step[] = [{ name: 'fixed', run: () => outcome() }];
  let companion = 'idle';
  const controller = new Controller({
    cluster, ledger, templates: createTemplates({}), network: 'devnet', packageId: '0x2', namespace: null, controllerNamespace: 'walrus-gitops',
    identity: 'a', leaderElection: options.leaderElection ?? false, steps, queue, clock, log: (line) => logs.push(line),
    companions: [{ start: () => { companion = 'running'; }, stop: async () => { companion = 'stopped'; } }],
    ...(options.leaseSecrets ? { leaseSecrets: options.leaseSecrets } : {}),
    ...(options.reconcileApps === undefined ? {} : { reconcileApps: options.reconcileApps }),
  });
  const processed = queue.processed();
  const running = controller.run();
  return {
    controller, cluster, clock, queue, logs, running, processed, app,
    companion: () => companion,
    setOutcome: (next: () => Outcome) => { outcome = next; },
  };
}

const worker = suite('controller: what the work queue does after each outcome');
const refusal = new ClusterAccessError('create', 'jobs', NAMESPACE, 'jobs.batch is forbidden');
const rows: { name: string; outcome: () => Outcome; actions: string[]; log?: RegExp }[] = [
  { name: 'Settled → forgotten, not requeued', outcome: () => ({ kind: 'Settled' }), actions: [`forget ${KEY}`] },
  { name: 'Waiting → forgotten, requeued after its delay', outcome: () => ({ kind: 'Waiting', reason: 'Building', message: 'building', afterMs: 15_000 }), actions: [`forget ${KEY}`, `after ${KEY} 15000`] },
  {
    name: 'Stalling (a step threw a non-retryable error) → forgotten, not requeued; the log says why and where',
    outcome: () => { throw refusal; }, actions: [`forget ${KEY}`],
    log: new RegExp(`^${KEY}: stalled \\(AccessDenied\\) \\(step fixed\\): the controller may not create jobs in namespace ${NAMESPACE}`),
  },
  {
    name: 'Generic (a step threw a transient error) → retried after the per-key back-off',
    outcome: () => { throw new Error('socket hang up'); }, actions: [`rate-limited ${KEY}`, `after ${KEY} 500`],
    log: new RegExp(`^${KEY}: reconcile failed \\(step fixed\\): socket hang up; retry in 0.5s$`),
  },
];
for (const row of rows) {
  worker(row.name, async () => {
    const c = start({ outcome: row.outcome });
    await c.processed;
    assert.equal(c.queue.actions, [...row.actions, `done ${KEY}`]);
    if (row.log) assert.ok(c.logs.some((line) => row.log!.test(line)), c.logs.join('\n'));
    await c.controller.stop();
    await c.running;
  });
}

worker('the back-off doubles while a failure lasts, and a pass that goes through resets it', async () => {
  const c = start({ outcome: () => { throw new Error('socket hang up'); } });
  await c.processed;
  for (const delay of [1000, 2000]) {
    const next = c.queue.processed();
    c.queue.add(KEY);
    await next;
    assert.is(c.queue.actions.at(-2), `after ${KEY} ${delay}`);
  }
  c.setOutcome(() => ({ kind: 'Settled' }));
  let next = c.queue.processed();
  c.queue.add(KEY);
  await next;
  assert.is(c.queue.failures(KEY), 0, 'forgotten');
  c.setOutcome(() => { throw new Error('socket hang up'); });
  next = c.queue.processed();
  c.queue.add(KEY);
  await next;
  assert.is(c.queue.actions.at(-2), `after ${KEY} 500`);
  await c.controller.stop();
  await c.running;
});

worker('the status write fails → retried with back-off, and the log has both the write\'s error and the pass\'s own', async () => {
  const c = start({ outcome: () => { throw refusal; } });
  c.cluster.failOn('patchAppStatus', () => new ClusterRequestError('patch', 'walrusapps/status', 500, 'etcdserver: request timed out'));
  await c.processed;
  assert.equal(c.queue.actions, [`rate-limited ${KEY}`, `after ${KEY} 500`, `done ${KEY}`]);
  const line = c.logs.find((text) => text.includes('writing the status failed'))!;
  assert.match(line, 'patch walrusapps/status failed (HTTP 500): etcdserver: request timed out');
  assert.match(line, 'the pass itself: the controller may not create jobs');
  await c.controller.stop();
  await c.running;
});

worker('the status written since the pass read it (a stale cache) → the pass runs again, with back-off, on the newer version', async () => {
  const c = start();
  c.cluster.failOn('patchAppStatus', () => new ConflictError('the status of walrusapp shop/web (written since it was read)', { status: 409 }));
  await c.processed;
  assert.equal(c.queue.actions, [`rate-limited ${KEY}`, `after ${KEY} 500`, `done ${KEY}`]);
  assert.match(c.logs.join('\n'), `${KEY}: the status changed after this pass read the app; its own status is dropped and the app looked at again in 0.5s`);
  assert.not.match(c.logs.join('\n'), 'failed', 'a refused stale write is no failure');
  await c.controller.stop();
  await c.running;
});

worker('the status write refused for want of a permission → not retried (it cannot succeed), both errors logged', async () => {
  const c = start({ outcome: () => { throw new Error('socket hang up'); } });
  c.cluster.failOn('patchAppStatus', () => new ClusterAccessError('patch', 'walrusapps/status', NAMESPACE, 'forbidden'));
  await c.processed;
  assert.equal(c.queue.actions, [`forget ${KEY}`, `done ${KEY}`]);
  assert.match(c.logs.join('\n'), /may not patch walrusapps\/status .*the pass itself: socket hang up.*not retried until the app changes/);
  await c.controller.stop();
  await c.running;
});

worker.run();

const loop = suite('controller: what brings an app back to the queue');

loop('a change to a Job the app owns, a restarted watch, and the periodic resync each enqueue the app', async () => {
  const c = start();
  await c.processed;
  c.queue.actions.length = 0;

  let next = c.queue.processed();
  c.cluster.informers.jobs.emit('update', { metadata: { name: 'web-b-1', namespace: NAMESPACE, ownerReferences: [{ apiVersion: 'x', kind: 'WalrusApp', name: 'web', uid: 'uid-web', controller: true }] } });
  await next;
  assert.equal(c.queue.actions, [`forget ${KEY}`, `done ${KEY}`], 'the owner of the Job');
  c.cluster.informers.jobs.emit('update', { metadata: { name: 'other', namespace: NAMESPACE } });
  await settle();
  assert.is(c.queue.length, 0, 'a Job no app owns enqueues nothing');

  c.queue.actions.length = 0;
  next = c.queue.processed();
  c.cluster.informers.deployments.restart();
  await next;
  assert.equal(c.queue.actions, [`forget ${KEY}`, `done ${KEY}`], 'a restarted watch: every app gets a pass');

  c.queue.actions.length = 0;
  await c.clock.advance(5 * 60_000);
  assert.ok(c.queue.actions.some((action) => action.startsWith(`after ${KEY} `)), `resync: ${c.queue.actions}`);
  await c.controller.stop();
  await c.running;
});

loop("provider mode: a new version of a leased app's secrets enqueues the app at the next poll, once; the pods' own version, none", async () => {
  const lease = `0x${'c'.repeat(64)}`;
  const app = walrusApp();
  app.metadata.annotations = { [PROVIDER_ANNOTATIONS.lease]: lease };
  let version = 1;
  const asked: string[][] = [];
  const c = start({
    app,
    leaseSecrets: async (leaseIds) => {
      asked.push([...leaseIds]);
      return new Map(leaseIds.map((id) => [id, { blobId: `sealed-v${version}`, version }]));
    },
  });
  await c.processed;
  await settle(); // the first poll, made as the controller starts
  assert.equal(asked, [], 'an app with no Deployment yet is not watched: its first release reads the version itself');
  // The app released with version 1: its Deployment's pods name it (the object is the real template's).
  const deployment = createTemplates({}).runDeployment(app, { commit: 'a'.repeat(40), artifact: { blobId: 'b', sha256: 'c'.repeat(64), size: 1 }, secrets: { blobId: 'sealed-v1', version: 1 } });
  assert.is(deployment.spec!.template.metadata!.annotations![ANNOTATIONS.secretsVersion], '1');
  c.cluster.informers.deployments.objects.set(KEY, deployment);
  c.queue.actions.length = 0;
  await c.clock.advance(1000);
  await settle();
  assert.equal(asked, [[lease]], 'one read for every leased app');
  assert.equal(c.queue.actions, [], 'the pods run the current version: nothing to do');

  version = 2;
  const next = c.queue.processed();
  await c.clock.advance(1000);
  await next;
  assert.equal(c.queue.actions, [`forget ${KEY}`, `done ${KEY}`], 'a pass, without waiting for the resync');
  assert.ok(c.logs.includes(`${KEY}: lease secrets now at version 2 (the pods run 1)`), c.logs.join('\n'));
  c.queue.actions.length = 0;
  await c.clock.advance(1000);
  await settle();
  assert.equal(c.queue.actions, [], 'handed over once per version, even while the pods still run the old one');
  assert.is(asked.length, 3);
  await c.controller.stop();
  await c.running;
});

loop("provider mode: a head whose build lacked a build secret is enqueued once the lease's secrets move past that version, with no Deployment and no push", async () => {
  const lease = `0x${'c'.repeat(64)}`;
  const commit = 'a'.repeat(40);
  const app = walrusApp();
  app.metadata.annotations = { [PROVIDER_ANNOTATIONS.lease]: lease };
  // The first push's build stopped at the build-secrets step with the lease at version 1 (the status build.ts writes).
  app.status = {
    failedRevision: commit,
    build: { commit, configHash: 'h'.repeat(10), attempt: 1, secretsVersion: 1, lastFailure: { reason: 'BuildSecretNotSet', message: 'walrus.buildSecrets names NPM_TOKEN, …', time: '2026-01-01T00:00:00Z' } },
  };
  let version = 1;
  const asked: string[][] = [];
  const c = start({
    app,
    leaseSecrets: async (leaseIds) => {
      asked.push([...leaseIds]);
      return new Map(leaseIds.map((id) => [id, { blobId: `sealed-v${version}`, version }]));
    },
  });
  await c.processed;
  await settle();
  c.queue.actions.length = 0;
  await c.clock.advance(1000);
  await settle();
  assert.ok(asked.length >= 1, 'the held app is watched though it has no Deployment');
  assert.equal(c.queue.actions, [], 'still the version the build lacked the secret at: nothing to do');

  version = 2; // git walrus secrets set
  const next = c.queue.processed();
  await c.clock.advance(1000);
  await next;
  assert.equal(c.queue.actions, [`forget ${KEY}`, `done ${KEY}`], 'a pass, without a push or the resync');
  assert.ok(c.logs.includes(`${KEY}: lease secrets now at version 2 (its build lacked a build secret at version 1)`), c.logs.join('\n'));
  c.queue.actions.length = 0;
  await c.clock.advance(1000);
  await settle();
  assert.equal(c.queue.actions, [], 'handed over once per version');
  await c.controller.stop();
  await c.running;
});

loop('the Lease lost → the controller stops: queue shut down, watches stopped, the companion stopped, run() returns', async () => {
  const c = start({ leaderElection: true });
  await c.processed;
  assert.is(c.companion(), 'running');
  assert.ok(c.cluster.informers.walrusapps.started);
  let returned = false;
  void c.running.then(() => { returned = true; });
  c.cluster.failOn('readLease', () => new ClusterRequestError('get', 'leases', 503, 'unavailable'));
  c.cluster.failOn('replaceLease', () => new ClusterRequestError('update', 'leases', 503, 'unavailable'));
  await c.clock.advance(12_000);
  assert.ok(returned, 'run() returned');
  assert.is(c.companion(), 'stopped');
  assert.not.ok(c.cluster.informers.walrusapps.started);
  assert.is(await c.queue.get(), null, 'the queue is shut down');
  assert.match(c.logs.join('\n'), 'stops leading');
});

loop('reconcileApps false (an attester only): the companion runs, no WalrusApp is watched or reconciled, run() lasts until stop()', async () => {
  const c = start({ leaderElection: true, reconcileApps: false });
  await c.clock.advance(1);
  assert.is(c.companion(), 'running');
  assert.not.ok(c.cluster.informers.walrusapps.started);
  assert.not.ok(c.cluster.informers.jobs.started);
  let returned = false;
  void c.running.then(() => { returned = true; });
  await c.clock.advance(12_000);
  assert.not.ok(returned, 'run() lasts while it leads');
  assert.equal(c.queue.actions, []);
  await c.controller.stop();
  await c.running;
  assert.is(c.companion(), 'stopped');
  assert.match(c.logs.join('\n'), 'reconciling no WalrusApps');
});

loop.run();
