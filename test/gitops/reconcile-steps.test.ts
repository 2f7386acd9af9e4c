/**
 * Each reconcile step on its own, one table per step (sample-controller's expected-actions style): an app and the
 * cluster and chain it sees, the steps before it run for real to find what it needs, then the step's result, the
 * writes it made to the cluster, and the conditions and status it left.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RepositoryNotFoundError } from '../../src/sui/errors.ts';
import type { Pass } from '../../src/gitops/reconcile/pass.ts';
import type { StepResult } from '../../src/gitops/reconcile/outcome.ts';
import { STEPS, type Step } from '../../src/gitops/reconcile/reconcile.ts';
import { BUILD_ATTEMPTS } from '../../src/gitops/reconcile/build-failure.ts';
import { deadlineExceeded, progressing } from './support/fake-cluster.ts';
import { addr, chainHead, failedPod, Fixture, NAMESPACE, NO_MANIFEST, oid, packedPod, SHA, walrusApp } from './support/reconcile-fixture.ts';
import type { WalrusAppStatus } from '../../src/ports/walrus-app.ts';
import { chainReadAccess } from '../../src/gitops/reconcile/repository-access.ts';
import type { RepositoryInfo } from '../../src/ports/ledger.ts';
import type { LeaseInfo, MarketLedger } from '../../src/ports/market.ts';
import { REPOSITORY_ID } from './support/reconcile-fixture.ts';
import { NPM_CI_FAILED } from './support/npm-output.ts';
import { BuildSecretNotSetError } from '../../src/core/lease-secrets.ts';
import { createTemplates } from '../../src/gitops/templates/create-templates.ts';
import { exposureDigest } from '../../src/gitops/reconcile/align-exposure.ts';
import type { ProviderOffer } from '../../src/gitops/api/offer.ts';
import { releaseOutputName } from '../../src/gitops/templates/release-output.ts';
import { PROVIDER_ANNOTATIONS } from '../../src/gitops/api/labels.ts';

interface Row {
  name: string;
  /** Sets up the app, the chain and the cluster. */
  given(f: Fixture): void;
  /** `Next`, `Settled`, or `<Kind> <Reason>`. */
  result: string;
  /** The cluster writes, in order (none when unset). */
  actions?(f: Fixture): string[];
  /** `Type: Status Reason` of every condition after the step. */
  conditions?: string[];
  then?(pass: Pass, f: Fixture): void;
}

const step = (name: string): Step => STEPS.find((candidate) => candidate.name === name)!;
const before = (name: string): Step[] => STEPS.slice(0, STEPS.findIndex((candidate) => candidate.name === name));
const describe = (result: StepResult) => ('reason' in result && result.reason ? `${result.kind} ${result.reason}` : result.kind);
const conditions = (pass: Pass) => pass.conditions.map((condition) => `${condition.type}: ${condition.status} ${condition.reason}`);

/** One suite per step: runs the steps before it (each must go on), then the step, and checks the row. */
function table(name: string, rows: Row[]): void {
  const tests = suite(`reconcile step: ${name}`);
  for (const row of rows) {
    tests(row.name, async () => {
      const f = new Fixture(walrusApp());
      row.given(f);
      const pass = f.pass();
      for (const earlier of before(name)) assert.is((await earlier.run(pass)).kind, 'Next', `${earlier.name} goes on`);
      f.cluster.actions.length = 0;
      const result = await step(name).run(pass);
      assert.is(describe(result), row.result);
      assert.equal(f.cluster.actions, row.actions?.(f) ?? [], 'cluster writes');
      if (row.conditions) assert.equal(conditions(pass), row.conditions);
      row.then?.(pass, f);
    });
  }
  tests.run();
}

const ready = (reason = 'Succeeded'): WalrusAppStatus['conditions'] => [{ type: 'Ready', status: 'True', reason, message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
const artifact = { blobId: 'blob-1', sha256: SHA, size: 10 };
/** The offer's buildEnv: a registry mirror, and a token no name, status, event or log may show. */
const MIRROR = { name: 'npm_config_registry', value: 'http://npm-mirror.infra:4873' };
const TOKEN = { name: 'NPM_TOKEN', value: 'npm_s3cr3t-token-value' };
const LEASE_OF_SECRETS = `0x${'c'.repeat(64)}`;
const noManifest = JSON.parse(NO_MANIFEST) as { source: 'defaults'; lockfile: boolean };
/** The status after oid(1) was built and released. */
const released = (f: Fixture): WalrusAppStatus => ({
  conditions: ready(), observedGeneration: 1, lastAppliedRevision: oid(1),
  artifact: { commit: oid(1), configHash: f.configHash(), ...artifact },
  manifest: { commit: oid(1), ...noManifest },
  history: [{ commit: oid(1), artifact, manifest: noManifest, result: 'Released', time: '2026-01-01T00:00:00Z', message: '' }],
});
const setStatus = (f: Fixture, status: WalrusAppStatus) => { f.app!.status = status; };
const jobName = (f: Fixture, commit: string, attempt = 1) => f.templates.buildJobName(f.app!, commit, f.configHash(), attempt);
/** The build output a finished Job leaves (templates/release-output.ts). */
const keptOutput = (f: Fixture, commit: string) => `apply configmaps ${NAMESPACE}/${releaseOutputName(f.app!, commit, f.configHash())}`;

table('suspend', [
  { name: 'not suspended → next step', given: () => {}, result: 'Next', conditions: [] },
  {
    name: 'suspended → Settled; Ready keeps its status with the reason Suspended, Reconciling goes',
    given: (f) => {
      f.app!.spec.suspend = true;
      setStatus(f, { conditions: [...ready()!, { type: 'Reconciling', status: 'True', reason: 'Building', message: '', lastTransitionTime: '' }] });
    },
    result: 'Settled', conditions: ['Ready: True Suspended'],
  },
  { name: 'suspended before any pass → Ready Unknown', given: (f) => { f.app!.spec.suspend = true; }, result: 'Settled', conditions: ['Ready: Unknown Suspended'] },
]);

table('network', [
  { name: 'no network named → next step', given: () => {}, result: 'Next' },
  { name: 'the controller\'s network → next step', given: (f) => { f.app!.spec.network = 'devnet'; }, result: 'Next' },
  {
    name: 'another network → Stalling NetworkMismatch, naming both',
    given: (f) => { f.app!.spec.network = 'testnet'; },
    result: 'Stalling NetworkMismatch',
  },
]);

const TENANT_LABELS = { 'market.walrus-git.dev/tenant': 'ab'.repeat(31) };
const INGRESS: NonNullable<ProviderOffer['ingress']> = { domain: 'apps.example.com', scheme: 'http', from: [{ namespaceSelector: {} }], loadBalancer: true };
/**
 * The app as a controller with `offer` left it: released at oid(1) with its Service, allowance (in a tenant namespace)
 * and Ingress in the cluster, the URL and the offer's exposure in the status. The fixture's own offer is then the one it restarted with.
 */
const exposedBy = (f: Fixture, offer: { ingress?: ProviderOffer['ingress'] }) => {
  const before = createTemplates({}, offer);
  const app = f.app!;
  f.cluster.put(before.appService(app));
  // The allowance is written in tenant namespaces only (reconcile/isolation.ts).
  if (before.appNetworkPolicy && f.cluster.namespaces.get(NAMESPACE)) f.cluster.put(before.appNetworkPolicy(app));
  const exposed = before.appIngress(app);
  if (exposed) f.cluster.put(exposed.ingress);
  setStatus(f, { ...released(f), exposure: exposureDigest(before, app), ...(exposed ? { url: exposed.url } : {}) });
};

table('exposure', [
  {
    name: 'the offer exposes the app as it did → next step; nothing read or written',
    given: (f) => { f.offer.ingress = INGRESS; exposedBy(f, { ingress: INGRESS }); },
    result: 'Next',
    then: (pass, f) => {
      assert.equal(f.cluster.reads, []);
      assert.equal(f.events, []);
      assert.is(pass.status.url, pass.app.status!.url);
    },
  },
  {
    name: 'the offer no longer has ingress → the app\'s Ingress and allowance deleted, the Service ClusterIP, the URL gone from the status; one event says so',
    given: (f) => { f.cluster.namespaces.set(NAMESPACE, TENANT_LABELS); exposedBy(f, { ingress: INGRESS }); },
    result: 'Next',
    actions: () => [`delete ingresses ${NAMESPACE}/web`, `apply services ${NAMESPACE}/web`, `delete networkpolicies ${NAMESPACE}/web`],
    then: (pass, f) => {
      assert.is(pass.status.url, undefined);
      assert.is(pass.status.exposure, exposureDigest(f.templates, f.app!));
      assert.is((f.cluster.objects.get(`Service ${NAMESPACE}/web`) as { spec: { type: string } }).spec.type, 'ClusterIP');
      assert.equal(f.events.length, 1);
      assert.match(f.events[0]!, /^Normal ExposureChanged: .*Ingress web removed; http:\/\/web-[0-9a-f]{12}\.apps\.example\.com\/ is no longer served; Service web is ClusterIP now \(was LoadBalancer\); its ingress allowance \(NetworkPolicy web\) removed$/);
    },
  },
  {
    name: 'the offer no longer has ingress, and the Ingress of that name is a user\'s (not owned by the app) → left alone; the URL goes',
    given: (f) => {
      exposedBy(f, { ingress: { ...INGRESS, loadBalancer: false } });
      const ingress = f.cluster.objects.get(`Ingress ${NAMESPACE}/web`)!;
      f.cluster.put({ ...ingress, metadata: { ...ingress.metadata, ownerReferences: [], labels: {} } });
    },
    result: 'Next',
    then: (pass, f) => {
      assert.ok(f.cluster.objects.has(`Ingress ${NAMESPACE}/web`));
      assert.is(pass.status.url, undefined);
      assert.match(f.logs.join('\n'), 'Ingress web is not this app\'s');
      assert.not.match(f.events.join('\n'), 'Ingress web removed');
    },
  },
  {
    name: 'the offer\'s domain changed → the Ingress applied at the new host, the new URL in the status; one event names both',
    given: (f) => {
      exposedBy(f, { ingress: { ...INGRESS, loadBalancer: false } });
      f.offer.ingress = { ...INGRESS, loadBalancer: false, domain: 'apps.example.org' };
    },
    result: 'Next', actions: () => [`apply ingresses ${NAMESPACE}/web`],
    then: (pass, f) => {
      const host = (f.cluster.objects.get(`Ingress ${NAMESPACE}/web`) as { spec: { rules: { host: string }[] } }).spec.rules[0]!.host;
      assert.match(host, /^web-[0-9a-f]{12}\.apps\.example\.org$/);
      assert.is(pass.status.url, `http://${host}/`);
      assert.equal(f.events, [`Normal ExposureChanged: the provider's offer changed how apps are exposed: the app answers at http://${host}/ (no longer at ${pass.app.status!.url})`]);
    },
  },
  {
    name: 'the domain changed and a pass already moved the Ingress (the app\'s copy lags behind that pass\'s status) → the new URL, no second event',
    given: (f) => {
      exposedBy(f, { ingress: { ...INGRESS, loadBalancer: false } });
      f.offer.ingress = { ...INGRESS, loadBalancer: false, domain: 'apps.example.org' };
      f.cluster.put(f.templates.appIngress(f.app!)!.ingress);
    },
    result: 'Next', actions: () => [`apply ingresses ${NAMESPACE}/web`],
    then: (pass, f) => {
      assert.is(pass.status.url, f.templates.appIngress(f.app!)!.url);
      assert.equal(f.events, []);
    },
  },
  {
    name: 'the offer dropped its LoadBalancer only → the Service becomes ClusterIP; the Ingress and URL stay',
    given: (f) => { f.offer.ingress = { ...INGRESS, loadBalancer: false }; exposedBy(f, { ingress: INGRESS }); },
    result: 'Next', actions: () => [`apply ingresses ${NAMESPACE}/web`, `apply services ${NAMESPACE}/web`],
    then: (pass, f) => {
      assert.is(pass.status.url, pass.app.status!.url);
      assert.equal(f.events.length, 1);
      assert.match(f.events[0]!, 'Service web is ClusterIP now (was LoadBalancer)');
    },
  },
  {
    name: 'a new app (nothing made yet) → next step, nothing written; the offer\'s exposure recorded',
    given: (f) => { f.offer.ingress = INGRESS; },
    result: 'Next',
    then: (pass, f) => {
      assert.is(pass.status.exposure, exposureDigest(f.templates, f.app!));
      assert.is(pass.status.url, undefined, 'the rollout exposes it, once its Service is there');
      assert.equal(f.events, []);
    },
  },
]);

table('read-head', [
  {
    name: 'the ref exists → next step; the head goes into the status; the app follows the repository',
    given: () => {}, result: 'Next',
    then: (pass, f) => {
      assert.is(pass.status.head?.commit, oid(1));
      assert.is(pass.fact('push')?.seq, 7);
      assert.equal(f.follows, [`${NAMESPACE}/web → ${chainHead(null).repositoryId}`]);
    },
  },
  {
    name: 'no such ref → Stalling RefNotFound (the next push wakes it: the app follows the repository)',
    given: (f) => { f.head = chainHead(null); }, result: 'Stalling RefNotFound',
    then: (pass, f) => {
      assert.is(pass.status.head, undefined);
      assert.is(f.follows.length, 1);
    },
  },
  {
    name: 'the chain unreachable (an untyped error) → Generic ChainReadFailed, retried',
    given: (f) => { f.head = new Error('connect ECONNREFUSED 127.0.0.1:9000'); }, result: 'Generic ChainReadFailed',
    then: (_pass, f) => assert.is(f.follows.length, 0),
  },
  {
    name: 'no such repository (a typed, non-retryable error) → Stalling ChainReadFailed',
    given: (f) => { f.head = new RepositoryNotFoundError('owner/app', 'no repository of that name'); }, result: 'Stalling ChainReadFailed',
  },
]);

table('policy', [
  { name: 'no allowedPushers → next step', given: () => {}, result: 'Next' },
  { name: 'pushed by an allowed address (any form) → next step', given: (f) => { f.app!.spec.policy = { allowedPushers: ['0x1'] }; }, result: 'Next' },
  {
    name: 'pushed by anyone else → Stalling PushRefused',
    given: (f) => {
      f.app!.spec.policy = { allowedPushers: [addr(2)] };
      f.head = chainHead(oid(1), addr(3));
    },
    result: 'Stalling PushRefused',
  },
]);

/** The controller's read-access check over a chain where REPOSITORY_ID is private and `lease` names it. */
function privateChain(f: Fixture, options: { readers?: string[]; lease?: Partial<LeaseInfo>; holdsCap?: boolean; nowMs?: number } = {}): void {
  const repository = { id: REPOSITORY_ID, name: 'shop', owner: addr(1), writers: [], readers: options.readers ?? [], private: true } as unknown as RepositoryInfo;
  const lease: LeaseInfo = {
    id: addr(9), tenant: addr(1), provider: addr(8), repository: REPOSITORY_ID, ref: 'refs/heads/main', pricePerMs: 1n, escrow: 1000n, earned: 0n,
    settledUntilMs: 0, state: 'open', lastDeploy: null, url: '', end: null, ...options.lease,
  };
  const market = {
    getLease: async () => lease, clockMs: async () => options.nowMs ?? 500, ownProviders: async () => (options.holdsCap === false ? [] : [addr(8)]),
  } as unknown as MarketLedger;
  f.readAccess = chainReadAccess({ getRepository: async () => repository, signerAddress: async () => addr(5) }, async () => market);
}
const asLease = (f: Fixture) => { f.app!.metadata.annotations = { 'market.walrus-git.dev/lease': addr(9) }; };

table('read-access', [
  { name: 'a controller without the check → next step', given: () => {}, result: 'Next' },
  { name: 'a private repository the controller\'s address reads → next step', given: (f) => privateChain(f, { readers: [addr(5)] }), result: 'Next' },
  { name: 'a private repository it may not read → Stalling NotAReader', given: (f) => privateChain(f), result: 'Stalling NotAReader' },
  { name: 'the app of an open, funded lease, the controller holding its cap → next step', given: (f) => { privateChain(f); asLease(f); }, result: 'Next' },
  { name: 'the app of a closed lease → Stalling LeaseClosed', given: (f) => { privateChain(f, { lease: { state: 'closed' } }); asLease(f); }, result: 'Stalling LeaseClosed' },
  { name: 'the app of a lease whose escrow ran out by the clock, unsettled → Stalling LeaseExhausted', given: (f) => { privateChain(f, { nowMs: 1000 }); asLease(f); }, result: 'Stalling LeaseExhausted' },
  { name: 'a lease of a provider whose cap the controller does not hold → Stalling NotLeaseProvider', given: (f) => { privateChain(f, { holdsCap: false }); asLease(f); }, result: 'Stalling NotLeaseProvider' },
]);

table('plan-build', [
  {
    name: 'first build of the head → attempt 1',
    given: () => {}, result: 'Next',
    then: (pass, f) => assert.equal(pass.fact('build'), { commit: oid(1), configHash: f.configHash(), specConfigHash: f.configHash(), attempt: 1, jobName: jobName(f, oid(1)) }),
  },
  {
    name: 'the status records attempt 2 of this build → attempt 2',
    given: (f) => setStatus(f, { build: { commit: oid(1), configHash: f.configHash(), attempt: 2 } }), result: 'Next',
    then: (pass) => assert.is(pass.fact('build').attempt, 2),
  },
  {
    name: 'a Job of attempt 3 exists though the informer\'s status says 2 → attempt 3',
    given: (f) => {
      setStatus(f, { build: { commit: oid(1), configHash: f.configHash(), attempt: 2 } });
      f.jobs.push(f.job(oid(1), 'running', 3));
    },
    result: 'Next',
    then: (pass, f) => assert.equal([pass.fact('build').attempt, pass.fact('build').jobName], [BUILD_ATTEMPTS, jobName(f, oid(1), 3)]),
  },
]);

table('clean-up-jobs', [
  { name: 'only the wanted Job, running → kept', given: (f) => { f.jobs.push(f.job(oid(1), 'running')); }, result: 'Next' },
  {
    name: 'a Job for an older commit → deleted',
    given: (f) => { f.jobs.push(f.job(oid(9), 'running'), f.job(oid(1), 'running')); },
    result: 'Next', actions: (f) => [`delete jobs ${NAMESPACE}/${jobName(f, oid(9))}`],
  },
  {
    name: 'the wanted Job finished and its artifact recorded → deleted',
    given: (f) => {
      setStatus(f, released(f));
      f.jobs.push(f.job(oid(1), 'succeeded'));
    },
    result: 'Next', actions: (f) => [`delete jobs ${NAMESPACE}/${jobName(f, oid(1))}`],
  },
  { name: 'the wanted Job finished but not yet recorded → kept (the build step reads it)', given: (f) => { f.jobs.push(f.job(oid(1), 'succeeded')); }, result: 'Next' },
  {
    name: 'a Job of an earlier controller (its hash without the offer\'s buildEnv), whose artifact is recorded → deleted',
    given: (f) => {
      setStatus(f, released(f));
      f.jobs.push(f.job(oid(1), 'succeeded'));
      f.offer.buildEnv = [MIRROR];
    },
    result: 'Next', actions: (f) => [`delete jobs ${NAMESPACE}/${f.templates.buildJobName(f.app!, oid(1), f.app!.status!.artifact!.configHash!)}`],
  },
]);

const applied = (f: Fixture) => {
  const deployment = f.templates.runDeployment(f.app!, { commit: oid(1), artifact }).metadata!.name!;
  const service = f.templates.appService(f.app!).metadata!.name!;
  return [`apply deployments ${NAMESPACE}/${deployment}`, `apply services ${NAMESPACE}/${service}`];
};
/** oid(1) serves; the head moved to oid(2), which failed with `reason`. */
const failedHead = (f: Fixture, reason: string, good = true) => {
  f.head = chainHead(oid(2));
  const status = good ? released(f) : {};
  setStatus(f, { ...status, observedGeneration: 1, failedRevision: oid(2), conditions: [{ type: 'Ready', status: 'False', reason, message: '', lastTransitionTime: '' }] });
};

/**
 * A leased app: oid(1) serves; oid(2)'s build stopped at the build-secrets step with the lease's secrets at version 1
 * (`reason` BuildSecretNotSet) and the lease is at version `now`; `job`: the failed Job is not deleted yet.
 */
const heldForSecret = (f: Fixture, now: number, options: { reason?: string; job?: boolean } = {}) => {
  const reason = options.reason ?? 'BuildSecretNotSet';
  f.app!.metadata.annotations = { [PROVIDER_ANNOTATIONS.lease]: LEASE_OF_SECRETS };
  f.leaseSecrets = async (lease) => (lease === LEASE_OF_SECRETS ? { blobId: `sealed-v${now}`, version: now } : null);
  failedHead(f, reason);
  f.app!.status!.build = { commit: oid(2), configHash: f.configHash(), attempt: 1, secretsVersion: 1, lastFailure: { reason, message: 'the build-secrets step failed', time: '2026-01-01T11:00:00Z' } };
  if (options.job) f.jobs.push(f.job(oid(2), 'failed'));
};
const appliedWithSecrets = (f: Fixture) => {
  const deployment = f.templates.runDeployment(f.app!, { commit: oid(1), artifact }).metadata!.name!;
  return [`apply deployments ${NAMESPACE}/${deployment}`, `apply services ${NAMESPACE}/${f.templates.appService(f.app!).metadata!.name!}`];
};

table('hold-failed-revision', [
  { name: 'the head did not fail → next step', given: (f) => setStatus(f, released(f)), result: 'Next' },
  {
    name: 'the head lacked a build secret and the lease\'s secrets are still at that version → Stalling BuildSecretNotSet, the last good release serves',
    given: (f) => heldForSecret(f, 1), result: 'Stalling BuildSecretNotSet', actions: appliedWithSecrets,
    then: (pass) => assert.is(pass.status.failedRevision, oid(2)),
  },
  {
    name: 'the head lacked a build secret and the lease\'s secrets moved on (secrets set) → the hold is lifted, built again without a push',
    given: (f) => heldForSecret(f, 2), result: 'Next',
    then: (pass, f) => {
      assert.is(pass.status.failedRevision, undefined);
      assert.equal(f.events, [`Normal BuildSecretsChanged: the lease's secrets are at version 2, after the build of ${oid(2).slice(0, 12)} lacked a build secret at version 1: building it again`]);
    },
  },
  {
    name: 'the same, but the failed Job is still listed → Waiting until it is gone (the new Job takes its name)',
    given: (f) => heldForSecret(f, 2, { job: true }), result: 'Waiting BuildSecretsChanged',
    then: (pass, f) => {
      assert.is(pass.status.failedRevision, oid(2));
      assert.equal(f.events, []);
    },
  },
  {
    name: 'a head that failed for another reason stays held when the lease\'s secrets move on',
    given: (f) => heldForSecret(f, 2, { reason: 'BuildFailed' }), result: 'Stalling BuildFailed', actions: appliedWithSecrets,
  },
  {
    name: 'the head failed → Stalling with the failure\'s reason; the last good release is applied again',
    given: (f) => failedHead(f, 'BuildFailed'), result: 'Stalling BuildFailed', actions: applied,
  },
  { name: 'the head failed, Ready still says Succeeded → Stalling RevisionFailed', given: (f) => failedHead(f, 'Succeeded'), result: 'Stalling RevisionFailed', actions: applied },
  { name: 'the head failed and nothing ever released → Stalling, nothing applied', given: (f) => failedHead(f, 'RolledBack', false), result: 'Stalling RolledBack' },
]);

table('build', [
  {
    name: 'the artifact of (head, settings) is recorded → next step, nothing built',
    given: (f) => setStatus(f, released(f)), result: 'Next',
    then: (pass) => assert.equal(pass.fact('artifact'), artifact),
  },
  {
    name: 'the offer\'s buildEnv changed since the running commit was built → built again, in a Job of the new config; no value in its name, annotations or the status',
    given: (f) => {
      f.offer.buildEnv = [MIRROR, TOKEN];
      setStatus(f, { ...released(f), artifact: { commit: oid(1), configHash: f.configHash(), buildEnvCounted: true, ...artifact } });
      f.offer.buildEnv = [{ ...MIRROR, value: 'http://npm-mirror-2.infra:4873' }, TOKEN];
    },
    result: 'Waiting Building', actions: (f) => [`create jobs ${NAMESPACE}/${jobName(f, oid(1))}`], conditions: ['Built: Unknown Building', 'Ready: True Succeeded'],
    then: (pass, f) => {
      assert.is.not(pass.fact('build').configHash, pass.app.status!.artifact!.configHash);
      const { metadata } = f.templates.buildJob(f.app!, { commit: oid(1), configHash: pass.fact('build').configHash });
      const written = JSON.stringify([metadata, pass.status, f.events, f.logs]);
      for (const value of ['npm-mirror', TOKEN.value]) assert.not.match(written, value);
    },
  },
  {
    name: 'the offer gained a buildEnv since this controller built the running commit → built again',
    given: (f) => {
      setStatus(f, { ...released(f), artifact: { commit: oid(1), configHash: f.configHash(), buildEnvCounted: true, ...artifact } });
      f.offer.buildEnv = [MIRROR];
    },
    result: 'Waiting Building', actions: (f) => [`create jobs ${NAMESPACE}/${jobName(f, oid(1))}`],
  },
  {
    name: 'an artifact of an earlier controller (its hash without buildEnv), the offer unchanged → reused, nothing built',
    given: (f) => {
      setStatus(f, released(f));
      f.offer.buildEnv = [MIRROR, TOKEN];
    },
    result: 'Next',
    then: (pass) => assert.equal(pass.fact('artifact'), artifact),
  },
  {
    name: 'no Job yet → the Job is created, BuildStarted, Waiting Building',
    given: () => {}, result: 'Waiting Building', actions: (f) => [`create jobs ${NAMESPACE}/${jobName(f, oid(1))}`],
    conditions: ['Built: Unknown Building'],
    then: (pass, f) => {
      assert.equal(pass.status.build, { commit: oid(1), configHash: f.configHash(), attempt: 1 });
      assert.is(f.events.length, 1);
      assert.match(f.events[0], /^Normal BuildStarted: building 1{12} in job /);
    },
  },
  {
    name: 'a retry due in 20 s → Waiting BuildRetrying 20 s, no Job yet',
    given: (f) => setStatus(f, { build: { commit: oid(1), configHash: f.configHash(), attempt: 2, retryAt: new Date(f.now.getTime() + 20_000).toISOString() } }),
    result: 'Waiting BuildRetrying',
  },
  { name: 'the Job runs → Waiting Building', given: (f) => { f.jobs.push(f.job(oid(1), 'running')); }, result: 'Waiting Building' },
  {
    name: 'the Job succeeded → next step with its artifact, recorded in the status, Built',
    given: (f) => {
      f.jobs.push(f.job(oid(1), 'succeeded'));
      f.cluster.pods.set(jobName(f, oid(1)), [packedPod('p1', JSON.stringify(artifact))]);
    },
    result: 'Next', actions: (f) => [keptOutput(f, oid(1))], conditions: ['Built: True BuildSucceeded'],
    then: (pass, f) => {
      assert.equal(pass.fact('artifact'), artifact);
      assert.equal(pass.status.artifact, { commit: oid(1), configHash: f.configHash(), buildEnvCounted: true, ...artifact });
      assert.equal(pass.fact('manifest'), noManifest);
      assert.equal(pass.status.manifest, { commit: oid(1), ...noManifest });
    },
  },
  {
    name: 'the artifact is recorded but not the manifest it was built with (a status from before manifests) → built again',
    given: (f) => { const status = released(f); delete status.manifest; setStatus(f, status); },
    result: 'Waiting Building', actions: (f) => [`create jobs ${NAMESPACE}/${jobName(f, oid(1))}`],
  },
  {
    name: 'the app\'s tests failed → Stalling TestsFailed; the commit is marked failed, with the test output\'s last lines',
    given: (f) => {
      setStatus(f, released(f));
      f.head = chainHead(oid(2));
      f.jobs.push(f.job(oid(2), 'failed'));
      const done = { terminated: { exitCode: 0 } };
      f.cluster.pods.set(jobName(f, oid(2)), [{
        metadata: { name: 'p2', creationTimestamp: new Date(Date.UTC(2026, 0, 1, 11)) },
        status: {
          phase: 'Failed',
          initContainerStatuses: ['checkout', 'manifest', 'build'].map((name) => ({ name, image: '', imageID: '', ready: false, restartCount: 0, state: done }))
            .concat([{ name: 'test', image: '', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 1 } } }]),
          containerStatuses: [{ name: 'pack', image: '', imageID: '', ready: false, restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }],
        },
      }]);
      f.cluster.logs.set('p2', 'not ok 2 - a regression\n# fail 1\n');
    },
    result: 'Stalling TestsFailed', actions: (f) => [keptOutput(f, oid(2))],
    then: (pass) => {
      assert.is(pass.status.failedRevision, oid(2));
      const built = pass.conditions.find((condition) => condition.type === 'Built')!;
      assert.equal([built.status, built.reason], ['False', 'TestsFailed']);
      assert.match(built.message, "the app's tests failed (exit code 1):\nnot ok 2 - a regression\n# fail 1");
    },
  },
  {
    name: 'the manifest names a build secret the lease has not set → Stalling BuildSecretNotSet, not retried; the message names it and the fix, never a value',
    given: (f) => {
      setStatus(f, released(f));
      f.head = chainHead(oid(2));
      f.jobs.push(f.job(oid(2), 'failed'));
      // The kubelet keeps a failed step's last log lines as its termination message (FallbackToLogsOnError).
      const log = `fatal: ${new BuildSecretNotSetError(LEASE_OF_SECRETS, ['NPM_TOKEN', 'GH_TOKEN']).message}\n`;
      const state = (exitCode: number | null) => (exitCode === null ? { waiting: { reason: 'PodInitializing' } } : { terminated: { exitCode, ...(exitCode === 0 ? {} : { message: log }) } });
      const step = (name: string, exitCode: number | null) => ({ name, image: '', imageID: '', ready: false, restartCount: 0, state: state(exitCode) });
      f.cluster.pods.set(jobName(f, oid(2)), [{
        metadata: { name: 'p2', creationTimestamp: new Date(Date.UTC(2026, 0, 1, 11)) },
        status: {
          phase: 'Failed',
          initContainerStatuses: [step('checkout', 0), step('manifest', 0), step('build-secrets', 1), step('build', null), step('test', null)],
          containerStatuses: [step('pack', null)],
        },
      }]);
      f.cluster.logs.set('p2', log);
      // The version the lease's secrets were at when the Job was made: kept, so a later version builds it again.
      f.app!.status!.build = { commit: oid(2), configHash: f.configHash(), attempt: 1, secretsVersion: 4 };
    },
    result: 'Stalling BuildSecretNotSet', actions: (f) => [keptOutput(f, oid(2))],
    then: (pass) => {
      assert.is(pass.status.failedRevision, oid(2));
      assert.is(pass.status.build?.secretsVersion, 4);
      assert.is(pass.status.build?.retryAt, undefined, 'the tenant must set it: no retry');
      const built = pass.conditions.find((condition) => condition.type === 'Built')!;
      assert.equal([built.status, built.reason], ['False', 'BuildSecretNotSet']);
      assert.match(built.message, `walrus.buildSecrets names NPM_TOKEN, GH_TOKEN, which lease ${LEASE_OF_SECRETS} has not set: run git walrus secrets set ${LEASE_OF_SECRETS} NPM_TOKEN=… GH_TOKEN=…`);
    },
  },
  {
    name: 'a leased app: the Job is made with the lease\'s secrets version recorded; a build-secret failure keeps it',
    given: (f) => {
      f.app!.metadata.annotations = { [PROVIDER_ANNOTATIONS.lease]: LEASE_OF_SECRETS };
      f.leaseSecrets = async () => ({ blobId: 'sealed-v3', version: 3 });
      setStatus(f, released(f));
      f.head = chainHead(oid(2));
    },
    result: 'Waiting Building', actions: (f) => [`create jobs ${NAMESPACE}/${jobName(f, oid(2))}`],
    then: (pass) => assert.equal(pass.status.build, { commit: oid(2), configHash: pass.fact('build').configHash, attempt: 1, secretsVersion: 3 }),
  },
  {
    name: 'the Job succeeded without reporting an artifact → the infrastructure\'s failure: attempt 2 in 10 s',
    given: (f) => {
      f.jobs.push(f.job(oid(1), 'succeeded'));
      f.cluster.pods.set(jobName(f, oid(1)), [packedPod('p1', undefined)]);
    },
    result: 'Waiting BuildRetrying', actions: (f) => [keptOutput(f, oid(1))], conditions: ['Built: Unknown BuildRetrying'],
    then: (pass, f) => {
      assert.is(pass.status.build?.attempt, 2);
      assert.is(pass.status.build?.retryAt, new Date(f.now.getTime() + 10_000).toISOString());
      assert.is(pass.status.build?.lastFailure?.reason, 'ArtifactMissing');
      assert.match(f.events[0], /^Warning BuildRetrying: attempt 1 of 3/);
    },
  },
  {
    name: 'the app\'s build step failed → Stalling BuildFailed; the commit is marked failed, with the log\'s last lines',
    given: (f) => {
      setStatus(f, released(f));
      f.head = chainHead(oid(2));
      f.jobs.push(f.job(oid(2), 'failed'));
      f.cluster.pods.set(jobName(f, oid(2)), [failedPod('p2', 'build', 1)]);
      f.cluster.logs.set('p2', 'npm error 404 no-such-package\n');
    },
    result: 'Stalling BuildFailed', actions: (f) => [keptOutput(f, oid(2))],
    then: (pass) => {
      assert.is(pass.status.failedRevision, oid(2));
      assert.is(pass.status.history?.[0]?.result, 'BuildFailed');
      const built = pass.conditions.find((condition) => condition.type === 'Built')!;
      assert.equal([built.status, built.reason], ['False', 'BuildFailed']);
      assert.match(built.message, 'container build exited with code 1:\nnpm error 404 no-such-package');
    },
  },
  {
    name: 'the checkout failed on the last attempt → Stalling BuildFailed, saying how many attempts',
    given: (f) => {
      setStatus(f, { build: { commit: oid(1), configHash: f.configHash(), attempt: BUILD_ATTEMPTS } });
      f.jobs.push(f.job(oid(1), 'failed', BUILD_ATTEMPTS));
      f.cluster.pods.set(jobName(f, oid(1), BUILD_ATTEMPTS), [failedPod('p3', 'checkout', 1)]);
    },
    result: 'Stalling BuildFailed', actions: (f) => [keptOutput(f, oid(1))],
    then: (pass) => assert.match(pass.conditions.find((condition) => condition.type === 'Built')!.message, `CheckoutFailed (after ${BUILD_ATTEMPTS} attempts): `),
  },
  {
    name: 'npm still cannot reach the registry on the last attempt → Stalling BuildFailed: RegistryUnreachable after 3 attempts, the host and code',
    given: (f) => {
      setStatus(f, { build: { commit: oid(1), configHash: f.configHash(), attempt: BUILD_ATTEMPTS } });
      f.jobs.push(f.job(oid(1), 'failed', BUILD_ATTEMPTS));
      f.cluster.pods.set(jobName(f, oid(1), BUILD_ATTEMPTS), [failedPod('p3', 'build', 1, NPM_CI_FAILED.E503)]);
    },
    result: 'Stalling BuildFailed', actions: (f) => [keptOutput(f, oid(1))], conditions: ['Built: False BuildFailed'],
    then: (pass) => {
      assert.is(pass.status.failedRevision, oid(1));
      assert.match(pass.conditions[0]!.message, `RegistryUnreachable (after ${BUILD_ATTEMPTS} attempts): the build step could not reach the package registry at 127.0.0.1:8082: npm E503, the registry answered HTTP 503 Service Unavailable`);
    },
  },
  {
    name: 'the build asks more than the namespace\'s quota holds → no Job, Stalling QuotaExceeded; the commit failed, the quota named',
    given: (f) => {
      f.cluster.admission = (pod) => `pods "${pod.metadata!.generateName}x" is forbidden: exceeded quota: tenant-quota, requested: limits.memory=16Gi, used: limits.memory=512Mi, limited: limits.memory=8Gi`;
    },
    result: 'Stalling QuotaExceeded', conditions: ['Built: False QuotaExceeded'],
    then: (pass) => {
      assert.is(pass.status.failedRevision, oid(1));
      assert.match(pass.conditions[0]!.message, /was refused: pods "web-b-1{12}-[0-9a-f]{10}-x" is forbidden: exceeded quota: tenant-quota/);
    },
  },
  {
    name: 'the build fits the quota but not what is left now → no Job, Waiting QuotaExceeded, tried again in 30 s',
    given: (f) => {
      f.cluster.admission = () => 'pods "x" is forbidden: exceeded quota: tenant-quota, requested: limits.memory=1Gi, used: limits.memory=7Gi, limited: limits.memory=8Gi';
    },
    result: 'Waiting QuotaExceeded', conditions: ['Built: Unknown QuotaExceeded'],
    then: (pass) => assert.is(pass.status.failedRevision, undefined),
  },
  {
    name: 'over the limit range\'s maximum per container → Stalling LimitExceeded',
    given: (f) => { f.cluster.admission = () => 'pods "x" is forbidden: maximum memory usage per Container is 4Gi, but limit is 16Gi'; },
    result: 'Stalling LimitExceeded', conditions: ['Built: False LimitExceeded'],
  },
  {
    name: 'refused for another reason (the namespace\'s service account not there yet) → the Job is made as before',
    given: (f) => { f.cluster.admission = () => 'pods "x" is forbidden: error looking up service account shop/default: serviceaccount "default" not found'; },
    result: 'Waiting Building', actions: (f) => [`create jobs ${NAMESPACE}/${jobName(f, oid(1))}`], conditions: ['Built: Unknown Building'],
  },
]);

/** oid(1)'s artifact is recorded; `released` says whether it also rolled out. */
const built = (f: Fixture, rolledOut: boolean) => {
  const status = released(f);
  if (!rolledOut) {
    delete status.lastAppliedRevision;
    delete status.history;
  }
  setStatus(f, status);
};

table('rollout', [
  {
    name: 'the Deployment rolls → Waiting Progressing',
    given: (f) => {
      built(f, false);
      f.cluster.deploymentStatus = progressing;
    },
    result: 'Waiting Progressing', actions: applied,
    then: (pass) => assert.match(pass.conditions.find((condition) => condition.type === 'Released')!.message, 'rolling out'),
  },
  {
    name: 'the Deployment rolled out → next step; released, in the history, Remediated gone',
    given: (f) => {
      built(f, false);
      f.app!.status!.conditions = [{ type: 'Remediated', status: 'True', reason: 'RollbackSucceeded', message: '', lastTransitionTime: '' }];
    },
    result: 'Next', actions: applied, conditions: ['Released: True RolloutSucceeded'],
    then: (pass, f) => {
      assert.is(pass.status.lastAppliedRevision, oid(1));
      assert.equal(pass.status.history?.map((entry) => entry.result), ['Released']);
      assert.equal(pass.fact('release'), { commit: oid(1), artifact, manifest: noManifest });
      assert.is(pass.status.url, undefined, 'no ingress in the offer: no URL');
      assert.match(f.logs.join('\n'), `${NAMESPACE}/web: ${oid(1).slice(0, 12)} released`);
    },
  },
  {
    name: 'the progress deadline passed → rolled back to the last good release: Stalling RolledBack, Remediated',
    given: (f) => {
      setStatus(f, { ...released(f), artifact: { commit: oid(2), configHash: f.configHash(), ...artifact }, manifest: { commit: oid(2), ...noManifest } });
      f.head = chainHead(oid(2));
      f.cluster.deploymentStatus = deadlineExceeded;
    },
    result: 'Stalling RolledBack', actions: (f) => [...applied(f), ...applied(f)],
    conditions: ['Ready: True Succeeded', 'Released: False UpgradeFailed', 'Remediated: True RollbackSucceeded'],
    then: (pass) => {
      assert.is(pass.status.failedRevision, oid(2));
      assert.is(pass.status.lastAppliedRevision, oid(1));
      assert.equal(pass.status.history?.map((entry) => entry.result), ['RolledBack', 'Released']);
    },
  },
  {
    name: 'the progress deadline passed with nothing to roll back to → Stalling ProgressDeadlineExceeded',
    given: (f) => {
      built(f, false);
      f.cluster.deploymentStatus = deadlineExceeded;
    },
    result: 'Stalling ProgressDeadlineExceeded', actions: applied,
  },
  {
    name: 'in a tenant namespace, with the ingress controller known → its ingress allowance applied beside the Service',
    given: (f) => {
      built(f, false);
      f.offer.ingress = { domain: 'apps.example.com', scheme: 'http', from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }], loadBalancer: false };
      f.cluster.namespaces.set(NAMESPACE, { 'market.walrus-git.dev/tenant': 'ab'.repeat(31) });
    },
    result: 'Next', actions: (f) => [...applied(f), `apply networkpolicies ${NAMESPACE}/web`, `apply ingresses ${NAMESPACE}/web`],
  },
  {
    name: 'outside a tenant namespace → no policy (one would isolate the app\'s pods)',
    given: (f) => {
      built(f, false);
      f.offer.ingress = { domain: 'apps.example.com', scheme: 'http', from: [{ namespaceSelector: {} }], loadBalancer: false };
    },
    result: 'Next', actions: (f) => [...applied(f), `apply ingresses ${NAMESPACE}/web`],
  },
  {
    name: 'the offer exposes apps → the Deployment runs the manifest\'s settings (2 replicas: a disruption budget), the Ingress is applied, the URL is in the status',
    given: (f) => {
      f.offer.ingress = { domain: 'apps.example.com', scheme: 'http', from: [], loadBalancer: false };
      setStatus(f, { ...released(f), manifest: { commit: oid(1), ...noManifest, source: 'package.json', port: 3000, replicas: 2 } });
    },
    result: 'Next',
    actions: (f) => [...applied(f), `apply poddisruptionbudgets ${NAMESPACE}/web`, `apply ingresses ${NAMESPACE}/web`],
    then: (pass, f) => {
      assert.match(pass.status.url ?? '', /^http:\/\/web-[0-9a-f]{12}\.apps\.example\.com\/$/);
      const deployment = f.cluster.applied.find((object) => object.kind === 'Deployment') as { spec: { replicas: number; template: { spec: { containers: { ports: { containerPort: number }[] }[] } } } };
      assert.is(deployment.spec.replicas, 2);
      assert.is(deployment.spec.template.spec.containers[0]!.ports[0]!.containerPort, 3000);
    },
  },
]);

/** A lease app at head oid(2), built in an image pinned by digest under a build key, and the chain's requirement and tally for it. */
function gated(f: Fixture, required: number, revealed: { provider: string; tarSha256: string; manifestRoot: string }[] | null, image = PINNED_IMAGE): void {
  f.app!.spec = { ...f.app!.spec, build: { ...f.app!.spec.build, image } };
  setStatus(f, { ...released(f), artifact: { commit: oid(2), configHash: f.configHash(), ...artifact, buildKey: KEY, manifestRoot: ROOT }, manifest: { commit: oid(2), ...noManifest } });
  f.head = chainHead(oid(2));
  asLease(f);
  const tally = revealed && { commitUntilMs: 1, revealUntilMs: 2, committed: revealed.map((r) => r.provider), revealed, status: 'pending' as const };
  f.reproduction = { providerId: addr(8), attestations: { requiredReproductions: async () => required, tally: async () => tally } };
}
const PINNED_IMAGE = `node@sha256:${'d1'.repeat(32)}`;
const KEY = 'ce'.repeat(32);
const ROOT = 'ab'.repeat(32);
const same = (provider: string) => ({ provider, tarSha256: SHA, manifestRoot: ROOT });

table('reproduced', [
  { name: 'a controller outside provider mode → next step', given: (f) => setStatus(f, released(f)), result: 'Next' },
  { name: 'a lease that requires no reproduction → next step', given: (f) => gated(f, 0, null), result: 'Next' },
  {
    name: 'required once, nobody attested yet → Waiting AwaitingAttestations; nothing applied, the running release keeps serving',
    given: (f) => gated(f, 1, null), result: 'Waiting AwaitingAttestations', conditions: ['Ready: True Succeeded', 'Reproduced: False AwaitingAttestations'],
    then: (pass) => assert.match(pass.conditions.at(-1)!.message, /waits for 1 other provider to attest its build \(key c{1}e/),
  },
  { name: 'only this provider revealed → still Waiting: a provider does not vouch for itself', given: (f) => gated(f, 1, [same(addr(8))]), result: 'Waiting AwaitingAttestations' },
  {
    name: 'another provider revealed the same digests → next step, Reproduced',
    given: (f) => gated(f, 1, [same(addr(8)), same(addr(7))]), result: 'Next', conditions: ['Ready: True Succeeded', 'Reproduced: True Reproduced'],
  },
  { name: 'two required, one agreed → Waiting', given: (f) => gated(f, 2, [same(addr(7))]), result: 'Waiting AwaitingAttestations' },
  {
    name: 'another provider revealed other digests → Stalling Disputed naming it and both digests',
    given: (f) => gated(f, 1, [same(addr(7)), { provider: addr(6), tarSha256: 'ee'.repeat(32), manifestRoot: ROOT }]),
    result: 'Stalling Disputed', conditions: ['Ready: True Succeeded', 'Reproduced: False Disputed'],
    then: (pass) => assert.match(pass.conditions.at(-1)!.message, new RegExp(`held: ${addr(6)} built tar sha256 ${'ee'.repeat(32)} .*this provider built ${SHA}`)),
  },
  {
    name: 'the head is the release already running → next step (never held after the fact)',
    given: (f) => { gated(f, 1, null); setStatus(f, released(f)); f.head = chainHead(oid(1)); }, result: 'Next',
  },
  {
    name: 'a build image named by tag → Stalling BuildImageNotPinned: a key naming a tag could meet nobody\'s; the running release keeps serving',
    given: (f) => gated(f, 1, [same(addr(8)), same(addr(7))], 'node:22'),
    result: 'Stalling BuildImageNotPinned', conditions: ['Ready: True Succeeded', 'Reproduced: False BuildImageNotPinned'],
    then: (pass) => assert.match(pass.conditions.at(-1)!.message, /build image node:22 is named by tag.*<image>@sha256:…\); the running release keeps serving/),
  },
  { name: 'a tag is no matter when the lease requires nothing → next step', given: (f) => gated(f, 0, null, 'node:22'), result: 'Next' },
  {
    name: 'an artifact without a build key → Stalling NoBuildKey',
    given: (f) => { gated(f, 1, null); f.app!.status!.artifact = { commit: oid(2), configHash: f.configHash(), ...artifact }; }, result: 'Stalling NoBuildKey',
  },
]);

table('manifest', [
  { name: 'no manifest → next step', given: (f) => setStatus(f, released(f)), result: 'Next' },
  {
    name: 'replicas within the offer → next step',
    given: (f) => setStatus(f, { ...released(f), manifest: { commit: oid(1), ...noManifest, source: 'package.json', replicas: 5 } }), result: 'Next',
  },
  {
    name: 'replicas beyond the offer → Stalling ManifestRefused naming the field; the commit is marked failed, nothing applied',
    given: (f) => {
      setStatus(f, { ...released(f), artifact: { commit: oid(2), configHash: f.configHash(), ...artifact }, manifest: { commit: oid(2), ...noManifest, source: 'package.json', replicas: 6 } });
      f.head = chainHead(oid(2));
    },
    result: 'Stalling ManifestRefused', conditions: ['Ready: True Succeeded', 'Released: False ManifestRefused'],
    then: (pass) => {
      assert.is(pass.status.failedRevision, oid(2));
      assert.is(pass.status.history?.[0]?.result, 'ManifestRefused');
      assert.is(pass.conditions.find((condition) => condition.type === 'Released')!.message, "package.json walrus.replicas asks for 6 replicas; the provider's offer allows at most 5");
    },
  },
  {
    name: 'the operator wrote replicas → the manifest\'s are not checked against the offer',
    given: (f) => {
      f.app!.spec.replicas = 9;
      setStatus(f, { ...released(f), manifest: { commit: oid(1), ...noManifest, source: 'package.json', replicas: 6 } });
    },
    result: 'Next',
  },
]);

table('ready', [
  {
    name: 'every step went through → Settled, Ready=True serving the release, Reconciling gone',
    given: (f) => {
      built(f, true);
      f.app!.status!.conditions = [{ type: 'Reconciling', status: 'True', reason: 'Progressing', message: '', lastTransitionTime: '' }];
    },
    result: 'Settled', conditions: ['Ready: True Succeeded', 'Released: True RolloutSucceeded'],
    then: (pass) => assert.is(pass.conditions[0].message, `serving ${oid(1).slice(0, 12)}`),
  },
]);
