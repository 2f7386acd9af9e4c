/**
 * What every tenant namespace gets from the provider's offer, pure (docs/architecture.md, Tenant isolation): the
 * network policies that isolate it, its ResourceQuota and its LimitRange. The provider plan writes them beside the
 * namespace and writes them again when the offer changes (their hash is recorded on the namespace); they go with the
 * namespace when the lease ends.
 *
 * Network: every pod is isolated both ways (default deny); the tenant's own pods reach each other; they reach DNS and
 * `egress.allow` minus `egress.except` (by default the internet, not the cluster's pod and Service ranges, the node
 * or the API server, which all live in private ranges); build pods also reach `egress.buildAllow` (a package
 * registry mirror). What may reach an app's pods is the per-app allowance (templates/network-policy.ts).
 *
 * Resources: the quota caps everything the namespace runs at once, running release and build together. A build
 * cannot starve the running release: quota is charged at admission, so the release's pods, admitted first, keep
 * what they hold, and a build pod that does not fit in what is left is refused (the controller reports it, naming
 * the quota) instead of taking anything from them; the LimitRange gives every container without its own limits the
 * offer's default, so each pod counts against the quota and is capped by the node. Size the quota as the release
 * (replicas × per-pod limits, plus a rolling update's surge pod) plus one build.
 */
import { createHash } from 'node:crypto';
import type { V1LimitRange, V1NetworkPolicy, V1NetworkPolicyPeer, V1ResourceQuota } from '@kubernetes/client-node';
import { LABELS } from '../templates/names.ts';
import type { ProviderOffer } from '../api/offer.ts';
import { PROVIDER_LABELS, PROVIDER_MANAGED_BY } from '../api/labels.ts';

export type TenantObject = V1NetworkPolicy | V1ResourceQuota | V1LimitRange;

export const ISOLATION_NAMES = {
  defaultDeny: 'tenant-default-deny',
  sameNamespace: 'tenant-same-namespace',
  egress: 'tenant-egress',
  buildEgress: 'tenant-build-egress',
  quota: 'tenant-quota',
  limits: 'tenant-limits',
} as const;

export interface TenantIsolation {
  objects: TenantObject[];
  /** Recorded on the namespace once every object is written: another hash means the offer changed. */
  hash: string;
}

/** The objects of tenant `tenant`'s namespace under `offer`, and their hash. */
export function tenantIsolation(namespace: string, tenant: string, offer: ProviderOffer): TenantIsolation {
  const metadata = (name: string) => ({
    name, namespace,
    labels: { [PROVIDER_LABELS.managedBy]: PROVIDER_MANAGED_BY, [PROVIDER_LABELS.tenant]: tenant.replace(/^0x/, '').toLowerCase().slice(0, 62) },
  });
  const policy = (name: string, spec: V1NetworkPolicy['spec']): V1NetworkPolicy => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: metadata(name), spec });
  const { quota, limits, egress } = offer;
  const objects: TenantObject[] = [
    policy(ISOLATION_NAMES.defaultDeny, { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
    policy(ISOLATION_NAMES.sameNamespace, {
      podSelector: {}, policyTypes: ['Ingress', 'Egress'], ingress: [{ _from: [{ podSelector: {} }] }], egress: [{ to: [{ podSelector: {} }] }],
    }),
    policy(ISOLATION_NAMES.egress, {
      podSelector: {}, policyTypes: ['Egress'],
      egress: [
        { ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
        ...(egress.allow.length > 0 ? [{ to: ipBlocks(egress.allow, egress.except) }] : []),
      ],
    }),
    policy(ISOLATION_NAMES.buildEgress, {
      podSelector: { matchLabels: { [LABELS.component]: 'build' } }, policyTypes: ['Egress'],
      egress: egress.buildAllow.length > 0 ? [{ to: ipBlocks(egress.buildAllow, []) }] : [],
    }),
    {
      apiVersion: 'v1', kind: 'ResourceQuota', metadata: metadata(ISOLATION_NAMES.quota),
      spec: {
        hard: {
          'requests.cpu': quota.cpu, 'limits.cpu': quota.cpu,
          'requests.memory': quota.memory, 'limits.memory': quota.memory,
          'requests.ephemeral-storage': quota.ephemeralStorage, 'limits.ephemeral-storage': quota.ephemeralStorage,
          pods: String(quota.pods),
        },
      },
    },
    {
      apiVersion: 'v1', kind: 'LimitRange', metadata: metadata(ISOLATION_NAMES.limits),
      spec: {
        limits: [{
          type: 'Container',
          _default: resources(limits.default),
          defaultRequest: resources(limits.default),
          max: resources(limits.max),
        }],
      },
    },
  ];
  return { objects, hash: createHash('sha256').update(JSON.stringify(objects)).digest('hex').slice(0, 16) };
}

function resources(triple: ProviderOffer['limits']['max']): Record<string, string> {
  return { cpu: triple.cpu, memory: triple.memory, 'ephemeral-storage': triple.ephemeralStorage };
}

/** One ipBlock per allowed CIDR, each with the excepted CIDRs that lie strictly inside it (the API refuses others). */
export function ipBlocks(allow: readonly string[], except: readonly string[]): V1NetworkPolicyPeer[] {
  return allow.map((cidr) => {
    const inside = except.filter((carved) => strictlyInside(carved, cidr));
    return { ipBlock: { cidr, ...(inside.length > 0 ? { except: inside } : {}) } };
  });
}

/** Whether CIDR `inner` is a proper part of CIDR `outer` (IPv4). */
export function strictlyInside(inner: string, outer: string): boolean {
  const [innerIp, innerBits] = parseCidr(inner);
  const [outerIp, outerBits] = parseCidr(outer);
  if (innerBits <= outerBits) return false;
  const mask = outerBits === 0 ? 0 : (~0 << (32 - outerBits)) >>> 0;
  return ((innerIp & mask) >>> 0) === ((outerIp & mask) >>> 0);
}

function parseCidr(cidr: string): [number, number] {
  const [ip, bits] = cidr.split('/');
  return [ip!.split('.').reduce((value, octet) => ((value << 8) | Number(octet)) >>> 0, 0), Number(bits)];
}
