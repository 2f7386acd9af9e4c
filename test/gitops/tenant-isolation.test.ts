import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1LimitRange, V1NetworkPolicy, V1ResourceQuota } from '@kubernetes/client-node';
import { DEFAULT_OFFER, parseOffer } from '../../src/gitops/api/offer.ts';
import { ipBlocks, ISOLATION_NAMES, strictlyInside, tenantIsolation } from '../../src/gitops/provider/isolation.ts';
import { classifyRefusal, quantity } from '../../src/gitops/reconcile/isolation.ts';
import { LABELS } from '../../src/gitops/templates/names.ts';
import { appNetworkPolicy } from '../../src/gitops/templates/network-policy.ts';
import { API_VERSION, KIND, type WalrusApp } from '../../src/ports/walrus-app.ts';

const test = suite('tenant isolation: what a tenant namespace gets from the offer, the app\'s allowance, quota refusals');
const TENANT = `0x${'ab'.repeat(32)}`;
const byName = (objects: { metadata?: { name?: string } }[], name: string) => objects.find((object) => object.metadata?.name === name)!;

test('default offer: deny all, own namespace, DNS and the internet minus private ranges, builds nothing more', () => {
  const { objects, hash } = tenantIsolation('tenant-ab', TENANT, DEFAULT_OFFER);
  assert.match(hash, /^[0-9a-f]{16}$/);
  assert.equal(objects.map((object) => `${object.kind}/${object.metadata!.name}`), [
    'NetworkPolicy/tenant-default-deny', 'NetworkPolicy/tenant-same-namespace', 'NetworkPolicy/tenant-egress', 'NetworkPolicy/tenant-build-egress',
    'ResourceQuota/tenant-quota', 'LimitRange/tenant-limits',
  ]);
  for (const object of objects) {
    assert.is(object.metadata!.namespace, 'tenant-ab');
    assert.is(object.metadata!.labels!['market.walrus-git.dev/tenant'], 'ab'.repeat(31));
    assert.is(object.metadata!.labels!['app.kubernetes.io/managed-by'], 'walrus-provider');
  }
  const deny = byName(objects, ISOLATION_NAMES.defaultDeny) as V1NetworkPolicy;
  assert.equal(deny.spec, { podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
  const egress = byName(objects, ISOLATION_NAMES.egress) as V1NetworkPolicy;
  assert.equal(egress.spec!.egress, [
    { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
    { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: DEFAULT_OFFER.egress.except } }] },
  ]);
  const build = byName(objects, ISOLATION_NAMES.buildEgress) as V1NetworkPolicy;
  assert.equal(build.spec!.podSelector, { matchLabels: { [LABELS.component]: 'build' } });
  assert.equal(build.spec!.egress, []);
  const quota = byName(objects, ISOLATION_NAMES.quota) as V1ResourceQuota;
  assert.equal(quota.spec!.hard, {
    'requests.cpu': '4', 'limits.cpu': '4', 'requests.memory': '8Gi', 'limits.memory': '8Gi',
    'requests.ephemeral-storage': '20Gi', 'limits.ephemeral-storage': '20Gi', pods: '20',
  });
  const limits = byName(objects, ISOLATION_NAMES.limits) as V1LimitRange;
  assert.equal(limits.spec!.limits[0], {
    type: 'Container',
    _default: { cpu: '500m', memory: '512Mi', 'ephemeral-storage': '1Gi' },
    defaultRequest: { cpu: '500m', memory: '512Mi', 'ephemeral-storage': '1Gi' },
    max: { cpu: '2', memory: '4Gi', 'ephemeral-storage': '10Gi' },
  });
});

test('an offer\'s egress and quota reach the objects; the hash follows the offer', () => {
  const offer = parseOffer({ quota: { memory: '1Gi' }, egress: { allow: ['0.0.0.0/0', '10.1.0.0/16'], except: ['10.0.0.0/8', '10.1.2.0/24'], buildAllow: ['10.9.0.5/32'] } });
  const { objects, hash } = tenantIsolation('tenant-ab', TENANT, offer);
  assert.is.not(hash, tenantIsolation('tenant-ab', TENANT, DEFAULT_OFFER).hash);
  assert.is(hash, tenantIsolation('tenant-ab', TENANT, offer).hash, 'same offer, same hash');
  assert.equal((byName(objects, ISOLATION_NAMES.egress) as V1NetworkPolicy).spec!.egress![1], {
    to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '10.1.2.0/24'] } }, { ipBlock: { cidr: '10.1.0.0/16', except: ['10.1.2.0/24'] } }],
  });
  assert.equal((byName(objects, ISOLATION_NAMES.buildEgress) as V1NetworkPolicy).spec!.egress, [{ to: [{ ipBlock: { cidr: '10.9.0.5/32' } }] }]);
  assert.is((byName(objects, ISOLATION_NAMES.quota) as V1ResourceQuota).spec!.hard!['limits.memory'], '1Gi');
  // An empty allow list: DNS only.
  const closed = tenantIsolation('tenant-ab', TENANT, parseOffer({ egress: { allow: [] } }));
  assert.equal((byName(closed.objects, ISOLATION_NAMES.egress) as V1NetworkPolicy).spec!.egress!.length, 1);
});

test('ipBlock except: only CIDRs strictly inside the allowed one (the API refuses others)', () => {
  assert.ok(strictlyInside('10.0.0.0/8', '0.0.0.0/0'));
  assert.ok(strictlyInside('10.244.3.0/24', '10.0.0.0/8'));
  assert.not.ok(strictlyInside('10.0.0.0/8', '10.0.0.0/8'));
  assert.not.ok(strictlyInside('192.168.0.0/16', '10.0.0.0/8'));
  assert.equal(ipBlocks(['192.168.0.0/16'], ['10.0.0.0/8']), [{ ipBlock: { cidr: '192.168.0.0/16' } }]);
});

test('the app\'s ingress allowance: the offer\'s peers to the app\'s pods on the app\'s port', () => {
  const app: WalrusApp = { apiVersion: API_VERSION, kind: KIND, metadata: { name: 'web', namespace: 'tenant-ab', uid: 'u1' }, spec: { repository: 'walrus://0x1', port: 3000 } };
  const from = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }];
  const policy = appNetworkPolicy(app, from);
  assert.is(policy.metadata!.name, 'web');
  assert.is(policy.metadata!.ownerReferences![0]!.uid, 'u1');
  assert.equal(policy.spec, {
    podSelector: { matchLabels: { [LABELS.app]: 'web', [LABELS.component]: 'run' } },
    policyTypes: ['Ingress'],
    ingress: [{ _from: from, ports: [{ protocol: 'TCP', port: 3000 }] }],
  });
});

test('quota refusals: over the whole quota is permanent, over what is left waits; a limit range refusal is permanent; others are not ours', () => {
  assert.is(quantity('500m'), 0.5);
  assert.is(quantity('2Gi'), 2 ** 31);
  assert.is(quantity('1e3'), 1000);
  assert.ok(Number.isNaN(quantity('lots')));
  const never = classifyRefusal('pods "b-1" is forbidden: exceeded quota: tenant-quota, requested: limits.memory=16Gi,requests.memory=16Gi, used: limits.memory=512Mi,requests.memory=512Mi, limited: limits.memory=8Gi,requests.memory=8Gi')!;
  assert.equal({ reason: never.reason, permanent: never.permanent }, { reason: 'QuotaExceeded', permanent: true });
  assert.match(never.message, /tenant-quota/);
  const later = classifyRefusal('pods "b-1" is forbidden: exceeded quota: tenant-quota, requested: limits.memory=4Gi, used: limits.memory=6Gi, limited: limits.memory=8Gi')!;
  assert.equal({ reason: later.reason, permanent: later.permanent }, { reason: 'QuotaExceeded', permanent: false });
  const limit = classifyRefusal('pods "b-1" is forbidden: maximum memory usage per Container is 4Gi, but limit is 16Gi')!;
  assert.equal({ reason: limit.reason, permanent: limit.permanent }, { reason: 'LimitExceeded', permanent: true });
  // Not about the build's size: no refusal of ours (the Job is made; its controller retries the pod).
  assert.is(classifyRefusal('pods "b-1" is forbidden: error looking up service account tenant-ab/default: serviceaccount "default" not found'), null);
});

test.run();
