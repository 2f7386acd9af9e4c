import { DEFAULT_OFFER } from '../../src/gitops/api/offer.ts';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1Namespace } from '@kubernetes/client-node';
import type { LeaseInfo, MarketLedger } from '../../src/ports/market.ts';
import type { TenantCluster } from '../../src/ports/tenant-cluster.ts';
import type { WalrusApp } from '../../src/ports/walrus-app.ts';
import { ProviderReconciler } from '../../src/gitops/provider/provider-reconciler.ts';
import { leaseAppName, tenantNamespace } from '../../src/gitops/provider/plan.ts';
import { PROVIDER_ANNOTATIONS } from '../../src/gitops/api/labels.ts';
import { tenantIsolation } from '../../src/gitops/provider/isolation.ts';

const test = suite('provider mode: one pass reads chain and cluster, acts, and comes back to what failed');
const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const PROVIDER = id(0xaa);
const COMMIT = 'c'.repeat(40);

/** The chain as the reconciler sees it: leases it can be told to change, the calls it received. */
function chain(lease: LeaseInfo) {
  const calls: string[] = [];
  let now = 10_000;
  const market = {
    listLeases: async () => [{ ...lease }],
    clockMs: async () => now,
    recordDeploy: async (leaseId: string, commit: string) => { calls.push(`record ${leaseId} ${commit}`); return { digest: 'd' }; },
    claim: async (leaseId: string) => { calls.push(`claim ${leaseId}`); return { digest: 'd', paid: 1n, refunded: 0n }; },
    close: async (leaseId: string) => { calls.push(`close ${leaseId}`); return { digest: 'd', paid: 1n, refunded: 0n }; },
    stateUrl: async (leaseId: string, url: string) => { calls.push(`state-url ${leaseId} ${url}`); return { digest: 'd' }; },
    withdrawUrl: async (leaseId: string) => { calls.push(`withdraw-url ${leaseId}`); return { digest: 'd' }; },
  } as unknown as MarketLedger;
  return { market, calls, lease, advance: (ms: number) => { now += ms; } };
}

/** The cluster: namespaces and apps by name, and a switch that makes the next namespace apply fail. */
function cluster() {
  const namespaces = new Map<string, V1Namespace>();
  const apps = new Map<string, WalrusApp>();
  /** `namespace/name` of each Secret copied in, in order. */
  const secrets: string[] = [];
  const objects = new Map<string, unknown>();
  let failNamespace = 0;
  const tenants: TenantCluster = {
    listNamespaces: async () => [...namespaces.values()],
    applyNamespace: async (namespace) => {
      if (failNamespace-- > 0) throw new Error('the API server is unavailable');
      namespaces.set(namespace.metadata!.name!, namespace);
    },
    deleteNamespace: async (name) => {
      namespaces.delete(name);
      for (const key of objects.keys()) if (key.startsWith(`${name}/`)) objects.delete(key);
    },
    applyObject: async (object) => { objects.set(`${object.metadata!.namespace}/${object.kind}/${object.metadata!.name}`, object); },
    listApps: async () => [...apps.values()],
    applyApp: async (app) => { apps.set(`${app.metadata.namespace}/${app.metadata.name}`, { ...app, status: apps.get(`${app.metadata.namespace}/${app.metadata.name}`)?.status }); },
    deleteApp: async (ref) => { apps.delete(`${ref.namespace}/${ref.name}`); },
    copySecret: async (from, to) => { secrets.push(`${to}/${from.name}`); },
  };
  return { tenants, namespaces, apps, secrets, objects, failNextNamespaceApplies: (n: number) => { failNamespace = n; } };
}

/** An open lease of PROVIDER's (id `n`, tenant `tenant`), funded, never deployed, with no URL stated. */
function openLease(n: number, tenant: number): LeaseInfo {
  return {
    id: id(n), tenant: id(tenant), provider: PROVIDER, repository: id(3), ref: 'refs/heads/main', pricePerMs: 1n, escrow: 1_000_000n,
    earned: 0n, settledUntilMs: 10_000, state: 'open', lastDeploy: null, url: '', end: null,
  };
}

test('a lease is served, its release recorded once (even when the chain read lags), claimed, and torn down when closed', async () => {
  const lease = openLease(1, 2);
  const c = chain(lease);
  const k = cluster();
  const logs: string[] = [];
  const reconciler = new ProviderReconciler({
    market: c.market, tenants: k.tenants, providerId: PROVIDER, template: { replicas: 1 }, offer: DEFAULT_OFFER, claimEveryMs: 60_000, log: (line) => logs.push(line),
    keySecret: { namespace: 'walrus-gitops', name: 'walrus-provider-key' },
  });
  const key = `${tenantNamespace(lease.tenant)}/${leaseAppName(lease.id)}`;

  // The namespace applies fail (its own and the isolation's record): the app is still applied, the namespace and
  // its isolation come in the next pass.
  k.failNextNamespaceApplies(2);
  await reconciler.pass();
  assert.ok(k.apps.has(key));
  // The provider's key reaches the tenant namespace before its app (the app's tool steps read it there).
  assert.equal(k.secrets, [`${tenantNamespace(lease.tenant)}/walrus-provider-key`]);
  assert.is(k.namespaces.size, 0);
  assert.ok(logs.some((line) => /apply-namespace .* failed: the API server is unavailable; again next pass/.test(line)));
  assert.ok(logs.some((line) => /isolate-namespace .* failed: the API server is unavailable; again next pass/.test(line)));
  await reconciler.pass();
  const ns = tenantNamespace(lease.tenant);
  assert.ok(k.namespaces.has(ns));
  const isolation = tenantIsolation(ns, lease.tenant, DEFAULT_OFFER);
  assert.is(k.namespaces.get(ns)!.metadata!.annotations![PROVIDER_ANNOTATIONS.isolationHash], isolation.hash);
  assert.equal([...k.objects.keys()].sort(), isolation.objects.map((object) => `${ns}/${object.kind}/${object.metadata!.name}`).sort());
  const applied = logs.length;
  await reconciler.pass();
  assert.not.ok(logs.slice(applied).some((line) => /isolated/.test(line)), 'an isolation recorded is not written again');

  // Released and Ready at the head: recorded once, though the lease read back still shows no record.
  k.apps.get(key)!.status = {
    lastAppliedRevision: COMMIT, head: { ref: 'refs/heads/main', commit: COMMIT, seq: 1, pusher: id(4), transaction: 't' },
    artifact: { commit: COMMIT, blobId: 'blob', sha256: 'ab'.repeat(32), size: 1 },
    conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded', message: '', lastTransitionTime: '' }],
  };
  await reconciler.pass();
  await reconciler.pass();
  assert.equal(c.calls, [`record ${lease.id} ${COMMIT}`]);

  // Claimed once claimEveryMs has passed since the lease was first seen, then not again until it passes again.
  c.advance(60_000);
  await reconciler.pass();
  await reconciler.pass();
  assert.equal(c.calls.slice(1), [`claim ${lease.id}`]);
  assert.is(reconciler.served(), 1, 'the leases served (the controller\'s walrus_gitops_leases_served)');

  lease.state = 'closed';
  await reconciler.pass();
  assert.is(reconciler.served(), 0);
  assert.is(k.apps.size, 0);
  assert.is(k.namespaces.size, 0);
  assert.is(k.objects.size, 0, 'the isolation goes with the namespace');
  assert.is(c.calls.length, 2, 'a closed lease is not closed again nor claimed');
});

test('a lease out of funds by the clock is torn down and closed by the provider', async () => {
  const lease: LeaseInfo = { ...openLease(5, 6), pricePerMs: 10n, escrow: 1000n };
  const c = chain(lease);
  const k = cluster();
  const reconciler = new ProviderReconciler({ market: c.market, tenants: k.tenants, providerId: PROVIDER, template: {}, offer: DEFAULT_OFFER, log: () => {} });
  await reconciler.pass();
  assert.is(k.apps.size, 1);
  c.advance(100);
  await reconciler.pass();
  assert.is(k.apps.size, 0);
  assert.equal(c.calls, [`close ${lease.id}`]);
});

test('a URL is stated once the app serves at it, withdrawn once its exposure goes, stated again when it comes back, withdrawn at close (reads lagging)', async () => {
  const url = 'http://lease-7.apps.example.com/';
  const lease = openLease(7, 8);
  const c = chain(lease);
  const k = cluster();
  const logs: string[] = [];
  const reconciler = new ProviderReconciler({ market: c.market, tenants: k.tenants, providerId: PROVIDER, template: {}, offer: DEFAULT_OFFER, log: (line) => logs.push(line) });
  await reconciler.pass();
  const app = k.apps.get(`${tenantNamespace(lease.tenant)}/${leaseAppName(lease.id)}`)!;
  const ready = [{ type: 'Ready' as const, status: 'True' as const, reason: 'Succeeded', message: '', lastTransitionTime: '' }];
  const urlCalls = () => c.calls.filter((call) => call.includes('-url '));

  app.status = { conditions: ready, url };
  await reconciler.pass();
  await reconciler.pass(); // the lease read back does not show it yet
  assert.equal(urlCalls(), [`state-url ${lease.id} ${url}`]);
  lease.url = url;

  app.status = { conditions: ready }; // the offer stopped exposing apps: the Ingress and the status's URL went
  await reconciler.pass();
  await reconciler.pass(); // the lease read back still shows the URL
  assert.equal(urlCalls().slice(1), [`withdraw-url ${lease.id}`]);
  assert.ok(logs.some((line) => line === `provider: lease ${lease.id}: withdrew its URL ${url}: the app is no longer exposed (d)`), logs.join('\n'));
  lease.url = '';
  await reconciler.pass();

  app.status = { conditions: ready, url }; // exposed again at the same host
  await reconciler.pass();
  assert.equal(urlCalls().slice(2), [`state-url ${lease.id} ${url}`]);
  lease.url = url;

  // Closed by its tenant: the app goes, and the URL is withdrawn once, though the read lags.
  lease.state = 'closed';
  await reconciler.pass();
  await reconciler.pass();
  assert.is(k.apps.size, 0);
  assert.equal(urlCalls().slice(3), [`withdraw-url ${lease.id}`]);
  assert.ok(logs.some((line) => line === `provider: lease ${lease.id}: withdrew its URL ${url}: the lease is closed (d)`), logs.join('\n'));
  lease.url = '';
  await reconciler.pass();
  assert.is(urlCalls().length, 4);
});

test.run();
