import type { V1ResourceQuota } from '@kubernetes/client-node';
import { DEFAULT_OFFER } from '../../src/gitops/api/offer.ts';
import { tenantIsolation } from '../../src/gitops/provider/isolation.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LeaseInfo } from '../../src/ports/market.ts';
import type { WalrusAppStatus } from '../../src/ports/walrus-app.ts';
import { claimable, leaseApp, leaseAppName, plan, tenantNamespace, type Action, type LeaseApp, type PlanInput } from '../../src/gitops/provider/plan.ts';
import { runsOutBy } from '../../src/contract/lease-accrual.ts';
import { PROVIDER_ANNOTATIONS } from '../../src/gitops/api/labels.ts';

const test = suite('provider mode: which leases → which apps, when to record, claim and tear down');
const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const oid = (n: number) => n.toString(16).padStart(40, '0');
const PROVIDER = id(0xaa);
const TEMPLATE = { replicas: 2, port: 8080, build: { command: 'npm ci' } };

function lease(n: number, fields: Partial<LeaseInfo> = {}): LeaseInfo {
  return {
    id: id(n), tenant: id(0x100 + (fields.tenant ? 0 : n)), provider: PROVIDER, repository: id(0x200 + n), ref: 'refs/heads/main',
    pricePerMs: 10n, escrow: 1_000_000n, earned: 0n, settledUntilMs: 1000, state: 'open', lastDeploy: null, url: '', end: null, ...fields,
  };
}

/** The app as the controller applied it for `l`, with `status`. */
function appOf(l: LeaseInfo, status?: WalrusAppStatus): LeaseApp {
  const app = leaseApp(PROVIDER, l, TEMPLATE);
  return { namespace: app.metadata.namespace!, name: app.metadata.name, lease: l.id, specHash: app.metadata.annotations![PROVIDER_ANNOTATIONS.specHash], status };
}

function released(commit: string, blobId = `blob-${commit.slice(0, 4)}`, head = commit, ready = 'True'): WalrusAppStatus {
  return {
    lastAppliedRevision: commit, head: { ref: 'refs/heads/main', commit: head, seq: 1, pusher: id(1), transaction: 'tx' },
    artifact: { commit, blobId, sha256: 'ab'.repeat(32), size: 10 },
    conditions: [{ type: 'Ready', status: ready as 'True', reason: 'Released', message: '', lastTransitionTime: '' }],
  };
}

/** The plan; a namespace given exists and, unless `isolated` says otherwise, holds the isolation of the offer. */
function run(fields: Partial<PlanInput>): Action[] {
  const offer = fields.offer ?? DEFAULT_OFFER;
  const isolated = new Map((fields.leases ?? []).filter((l) => fields.namespaces?.includes(tenantNamespace(l.tenant)))
    .map((l) => [tenantNamespace(l.tenant), tenantIsolation(tenantNamespace(l.tenant), l.tenant, offer).hash]));
  return plan({
    providerId: PROVIDER, leases: [], apps: [], namespaces: [], nowMs: 2000, template: TEMPLATE, offer: DEFAULT_OFFER,
    lastClaimMs: new Map(), claimEveryMs: 60_000, recorded: new Map(), isolated, statedUrls: new Map(), ...fields,
  });
}
const kinds = (actions: Action[]) => actions.map((action) => action.kind);

test('names: a namespace per tenant and an app per lease, valid DNS labels', () => {
  const l = lease(1);
  assert.is(tenantNamespace(l.tenant), `tenant-${l.tenant.slice(2, 58)}`);
  assert.ok(tenantNamespace(l.tenant).length <= 63);
  assert.match(leaseAppName(l.id), /^lease-[0-9a-f]{16}$/);
  const app = leaseApp(PROVIDER, l, TEMPLATE);
  assert.is(app.spec.repository, `walrus://${l.repository}`);
  assert.is(app.spec.ref, 'refs/heads/main');
  assert.is(app.spec.replicas, 2);
  assert.is(app.metadata.annotations![PROVIDER_ANNOTATIONS.lease], l.id);
  assert.is(app.metadata.annotations![PROVIDER_ANNOTATIONS.tenant], l.tenant);
});

test('a new open lease: its tenant namespace, its isolation, then its app', () => {
  const l = lease(1);
  const actions = run({ leases: [l] });
  assert.equal(kinds(actions), ['apply-namespace', 'isolate-namespace', 'apply-app']);
  assert.equal(actions[0], { kind: 'apply-namespace', namespace: tenantNamespace(l.tenant), tenant: l.tenant });
  const isolate = actions[1] as Extract<Action, { kind: 'isolate-namespace' }>;
  assert.equal(isolate, { kind: 'isolate-namespace', namespace: tenantNamespace(l.tenant), tenant: l.tenant, ...tenantIsolation(tenantNamespace(l.tenant), l.tenant, DEFAULT_OFFER) });
  const apply = actions[2] as Extract<Action, { kind: 'apply-app' }>;
  assert.is(apply.app.metadata.namespace, tenantNamespace(l.tenant));
});

test('an app already applied with the same spec is left alone; a changed template applies it again', () => {
  const l = lease(1);
  const ns = [tenantNamespace(l.tenant)];
  assert.equal(run({ leases: [l], apps: [appOf(l)], namespaces: ns }), []);
  assert.equal(kinds(run({ leases: [l], apps: [appOf(l)], namespaces: ns, template: { ...TEMPLATE, replicas: 3 } })), ['apply-app']);
});

test('a changed offer isolates the namespace again; an unchanged one writes nothing', () => {
  const l = lease(1);
  const ns = tenantNamespace(l.tenant);
  assert.equal(run({ leases: [l], apps: [appOf(l)], namespaces: [ns] }), []);
  const offer = { ...DEFAULT_OFFER, quota: { ...DEFAULT_OFFER.quota, memory: '2Gi' } };
  const actions = run({ leases: [l], apps: [appOf(l)], namespaces: [ns], offer, isolated: new Map([[ns, tenantIsolation(ns, l.tenant, DEFAULT_OFFER).hash]]) });
  assert.equal(kinds(actions), ['isolate-namespace']);
  const quota = (actions[0] as Extract<Action, { kind: 'isolate-namespace' }>).objects.find((object) => object.kind === 'ResourceQuota') as V1ResourceQuota;
  assert.is(quota.spec!.hard!['limits.memory'], '2Gi');
  // A namespace whose isolation was never recorded in full (a pass interrupted) is isolated again.
  assert.equal(kinds(run({ leases: [l], apps: [appOf(l)], namespaces: [ns], isolated: new Map() })), ['isolate-namespace']);
});

test('two leases of one tenant share its namespace; another provider\'s lease is not served', () => {
  const a = lease(1, { tenant: id(0x101) });
  const b = lease(2, { tenant: id(0x101) });
  const foreign = lease(3, { provider: id(0xbb) });
  const actions = run({ leases: [a, b, foreign] });
  assert.equal(kinds(actions), ['apply-namespace', 'isolate-namespace', 'apply-app', 'apply-app']);
});

test('a closed lease: its app and, with no other open lease of the tenant, its namespace are removed', () => {
  const l = lease(1, { state: 'closed' });
  const actions = run({ leases: [l], apps: [appOf(l)], namespaces: [tenantNamespace(l.tenant)] });
  assert.equal(actions, [
    { kind: 'delete-app', namespace: tenantNamespace(l.tenant), name: leaseAppName(l.id), lease: l.id, reason: 'the lease is closed' },
    { kind: 'delete-namespace', namespace: tenantNamespace(l.tenant) },
  ]);
});

test('a tenant keeps its namespace while another of its leases is open', () => {
  const closed = lease(1, { tenant: id(0x101), state: 'closed' });
  const open = lease(2, { tenant: id(0x101) });
  const actions = run({ leases: [closed, open], apps: [appOf(closed), appOf(open)], namespaces: [tenantNamespace(open.tenant)] });
  assert.equal(kinds(actions), ['delete-app']);
});

test('out of funds: exhausted on chain, or by the clock before anyone settled: torn down and closed by the provider', () => {
  const exhausted = lease(1, { state: 'exhausted', escrow: 0n, earned: 500n });
  assert.equal(kinds(run({ leases: [exhausted], apps: [appOf(exhausted)], namespaces: [tenantNamespace(exhausted.tenant)] })), ['delete-app', 'close-lease', 'delete-namespace']);
  // 1000 MIST left at 10 MIST/ms from t=1000: runs out at t=1100, not before.
  const draining = lease(2, { escrow: 1000n });
  assert.not.ok(runsOutBy(draining, 1099));
  assert.ok(runsOutBy(draining, 1100));
  assert.equal(kinds(run({ leases: [draining], apps: [appOf(draining)], namespaces: [tenantNamespace(draining.tenant)], nowMs: 1099 })), []);
  const actions = run({ leases: [draining], apps: [appOf(draining)], namespaces: [tenantNamespace(draining.tenant)], nowMs: 1100 });
  assert.equal(kinds(actions), ['delete-app', 'close-lease', 'delete-namespace']);
  assert.is((actions[0] as Extract<Action, { kind: 'delete-app' }>).reason, 'the lease ran out of funds');
});

test('an app whose lease is unknown (deleted by hand, another provider) is removed', () => {
  const gone = lease(9);
  assert.equal(kinds(run({ apps: [appOf(gone)], namespaces: [tenantNamespace(gone.tenant)] })), ['delete-app', 'delete-namespace']);
});

test('record_deploy: once the app is Ready at a released head, with its artifact; never twice for one release', () => {
  const c1 = oid(1);
  const l = lease(1);
  const ns = [tenantNamespace(l.tenant)];
  const at = (status: WalrusAppStatus, fields: Partial<PlanInput> = {}, leaseFields: Partial<LeaseInfo> = {}) =>
    run({ leases: [{ ...l, ...leaseFields }], apps: [appOf(l, status)], namespaces: ns, ...fields });
  assert.equal(at(released(c1)), [{ kind: 'record-deploy', lease: l.id, commit: c1, artifact: 'blob-0000', sha256: 'ab'.repeat(32) }]);
  // Recorded on chain: nothing more.
  assert.equal(at(released(c1), {}, { lastDeploy: { commit: c1, artifact: 'blob-0000', sha256: 'ab'.repeat(32), atMs: 1500 } }), []);
  // Recorded by this process, the chain read not showing it yet: nothing more.
  assert.equal(at(released(c1), { recorded: new Map([[l.id, `${c1}:blob-0000`]]) }), []);
  // Not Ready, or the head moved on (record_deploy would refuse a commit that is not the head), or no artifact yet.
  assert.equal(at(released(c1, 'blob-0000', c1, 'False')), []);
  assert.equal(at(released(c1, 'blob-0000', oid(2))), []);
  assert.equal(at({ ...released(c1), artifact: { commit: oid(2), blobId: 'b', sha256: 'ab'.repeat(32), size: 1 } }), []);
  assert.equal(at({}), []);
  // A new release after a recorded one is recorded.
  const c2 = oid(2);
  assert.equal(kinds(at(released(c2, 'blob-2'), {}, { lastDeploy: { commit: c1, artifact: 'blob-0000', sha256: 'ab'.repeat(32), atMs: 1500 } })), ['record-deploy']);
});

test('claims: every claimEveryMs per lease, only when something accrued', () => {
  const l = lease(1);
  const ns = [tenantNamespace(l.tenant)];
  const claims = (lastClaim: number | undefined, nowMs: number, fields: Partial<LeaseInfo> = {}) =>
    kinds(run({ leases: [{ ...l, ...fields }], apps: [appOf(l)], namespaces: ns, nowMs, lastClaimMs: new Map(lastClaim === undefined ? [] : [[l.id, lastClaim]]) }));
  assert.equal(claims(undefined, 100_000), [], 'a lease first seen is not claimed at once');
  assert.equal(claims(1000, 60_999), []);
  assert.equal(claims(1000, 61_000), ['claim']);
  assert.equal(claims(1000, 61_000, { pricePerMs: 0n }), [], 'nothing accrued');
  assert.is(claimable(l, 1500), 5000n);
  assert.is(claimable({ ...l, earned: 7n }, 1000), 7n);
  assert.is(claimable({ ...l, escrow: 100n }, 5000), 100n, 'never more than the escrow');
});

test('state_url: once the app serves (Ready) at a URL the lease does not state; again only when it changes', () => {
  const l = lease(1);
  const url = 'http://lease-1-abc.apps.example.com/';
  const serving = (ready = 'True') => appOf(l, { ...released(oid(1), undefined, undefined, ready), url });
  const stated = (actions: Action[]) => actions.filter((a) => a.kind === 'state-url');
  assert.equal(stated(run({ leases: [l], apps: [serving()], namespaces: [tenantNamespace(l.tenant)] })), [{ kind: 'state-url', lease: l.id, url }]);
  assert.equal(stated(run({ leases: [l], apps: [serving('False')], namespaces: [tenantNamespace(l.tenant)] })), [], 'not before it serves');
  assert.equal(stated(run({ leases: [l], apps: [appOf(l, released(oid(1)))], namespaces: [tenantNamespace(l.tenant)] })), [], 'no URL: no ingress');
  assert.equal(stated(run({ leases: [{ ...l, url }], apps: [serving()], namespaces: [tenantNamespace(l.tenant)] })), [], 'already on chain');
  assert.equal(stated(run({ leases: [l], apps: [serving()], namespaces: [tenantNamespace(l.tenant)], statedUrls: new Map([[l.id, url]]) })), [], 'sent, not read back yet');
  const moved = 'http://lease-1-abc.apps.other.example/';
  assert.equal(stated(run({ leases: [{ ...l, url }], apps: [appOf(l, { ...released(oid(1)), url: moved })], namespaces: [tenantNamespace(l.tenant)] })), [{ kind: 'state-url', lease: l.id, url: moved }]);
});

test('withdraw_url: once the app serves at no URL (its exposure removed) while the lease still states one; again only after a new one', () => {
  const l = lease(1);
  const url = 'http://lease-1-abc.apps.example.com/';
  const ns = [tenantNamespace(l.tenant)];
  const urlActions = (fields: Partial<PlanInput>) => run({ namespaces: ns, ...fields }).filter((a) => a.kind === 'state-url' || a.kind === 'withdraw-url');
  const unexposed = (ready = 'True') => appOf(l, released(oid(1), undefined, undefined, ready));
  const withdraw = [{ kind: 'withdraw-url', lease: l.id, url, reason: 'the app is no longer exposed' }];
  assert.equal(urlActions({ leases: [{ ...l, url }], apps: [unexposed()] }), withdraw);
  assert.equal(urlActions({ leases: [{ ...l, url }], apps: [unexposed('False')] }), withdraw, 'whether or not the app is Ready: the URL does not answer');
  assert.equal(urlActions({ leases: [{ ...l, url }], apps: [appOf(l)] }), withdraw, 'an app without status serves nowhere either');
  assert.equal(urlActions({ leases: [l], apps: [unexposed()] }), [], 'the lease states none');
  assert.equal(urlActions({ leases: [{ ...l, url }], apps: [appOf(l, { ...released(oid(1)), url })] }), [], 'still served there');
  assert.equal(urlActions({ leases: [{ ...l, url }], apps: [] }), [], 'no app read yet');
  const sent = new Map([[l.id, '']]);
  assert.equal(urlActions({ leases: [{ ...l, url }], apps: [unexposed()], statedUrls: sent }), [], 'withdrawn, not read back yet');
  assert.equal(urlActions({ leases: [l], apps: [appOf(l, { ...released(oid(1)), url })], statedUrls: sent }), [{ kind: 'state-url', lease: l.id, url }], 'exposed again: the same URL is stated again');
  assert.equal(urlActions({ leases: [{ ...l, url }], apps: [unexposed()], statedUrls: new Map([[l.id, url]]) }), withdraw, 'stated by this process, then unexposed');
  const ended = (fields: Partial<LeaseInfo>, statedUrls = new Map<string, string>()) =>
    run({ leases: [{ ...l, url, ...fields }], apps: [appOf(l, { ...released(oid(1)), url })], namespaces: ns, statedUrls }).filter((a) => a.kind === 'withdraw-url');
  assert.equal(ended({ state: 'closed' }), [{ kind: 'withdraw-url', lease: l.id, url, reason: 'the lease is closed' }], 'its app goes, and the URL with it');
  assert.equal(ended({ state: 'exhausted' }), [{ kind: 'withdraw-url', lease: l.id, url, reason: 'the lease ran out of funds' }]);
  assert.equal(ended({ escrow: 0n }), [{ kind: 'withdraw-url', lease: l.id, url, reason: 'the lease ran out of funds' }], 'out of funds by the clock');
  assert.equal(ended({ state: 'closed' }, sent), [], 'withdrawn, not read back yet');
  assert.equal(ended({ state: 'closed', url: '' }), [], 'nothing stated');
  assert.equal(ended({ state: 'closed', provider: id(0xbb) }), [], 'another provider\'s lease');
});

test.run();
