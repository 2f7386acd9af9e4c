/**
 * What reconcile does for a tenant namespace's isolation (docs/architecture.md, Tenant isolation): the app's ingress
 * allowance beside its Service, and a build Job's pod checked against the namespace's quota and limits before the Job
 * is made, so a build that cannot be admitted fails visibly, naming the quota, instead of a Job whose pod never
 * comes (the Job controller only reports that in events).
 */
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import type { Cluster } from '../../ports/cluster.ts';
import type { Templates } from '../../ports/templates.ts';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import { PROVIDER_LABELS } from '../api/labels.ts';

/** Writes the app's ingress allowance when the controller has one to write and the app's namespace is a tenant's. */
export async function applyIngressAllowance(cluster: Pick<Cluster, 'apply' | 'namespaceLabels'>, templates: Templates, app: WalrusApp): Promise<void> {
  if (!templates.appNetworkPolicy) return;
  const labels = await cluster.namespaceLabels(app.metadata.namespace!);
  if (!labels?.[PROVIDER_LABELS.tenant]) return;
  await cluster.apply(templates.appNetworkPolicy(app));
}

export interface BuildRefusal {
  /** `QuotaExceeded` (the namespace's ResourceQuota) or `LimitExceeded` (its LimitRange). */
  reason: 'QuotaExceeded' | 'LimitExceeded';
  /** The build asks more than the quota holds at all, or more than a container may have: it can never run. */
  permanent: boolean;
  /** The API server's words, naming the quota or the limit. */
  message: string;
}

/** Whether the build Job's pod would be admitted now; a refusal says why, and whether waiting can help. */
export async function buildRefusal(cluster: Pick<Cluster, 'admitPod'>, job: V1Job): Promise<BuildRefusal | null> {
  const template = job.spec!.template;
  const pod: V1Pod = {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { ...template.metadata, generateName: `${job.metadata!.name}-`, namespace: job.metadata!.namespace },
    spec: template.spec!,
  };
  const refused = await cluster.admitPod(pod);
  return refused === null ? null : classifyRefusal(refused);
}

/**
 * The admission plugins' refusal, classified. ResourceQuota says `exceeded quota: <name>, requested: r=q,…, used: …,
 * limited: r=q,…`: permanent when a request alone is over its limit, else it may fit once other pods are gone.
 * LimitRange says `maximum <resource> usage per Container is <q>, but limit is <q>` (or minimum, or the ratio): always
 * permanent. Any other refusal (a namespace's service account not made yet, a webhook) is not the build's size: null,
 * and the Job is made as before (its controller retries creating the pod).
 */
export function classifyRefusal(message: string): BuildRefusal | null {
  const quota = /exceeded quota: [^,]+, requested: (\S+), used: \S+, limited: (\S+)/.exec(message);
  if (quota) {
    const requested = quantities(quota[1]!);
    const limited = quantities(quota[2]!);
    const permanent = [...requested].some(([resource, amount]) => limited.has(resource) && amount > limited.get(resource)!);
    return { reason: 'QuotaExceeded', permanent, message };
  }
  if (/\b(maximum|minimum) \S+ usage per (Container|Pod) is\b|limit to request ratio per (Container|Pod) is\b/.test(message)) {
    return { reason: 'LimitExceeded', permanent: true, message };
  }
  return null;
}

function quantities(list: string): Map<string, number> {
  return new Map(list.replace(/,$/, '').split(',').map((pair) => {
    const [resource, amount] = pair.split('=');
    return [resource!, quantity(amount ?? '')];
  }));
}

const SUFFIXES: Record<string, number> = {
  '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A Kubernetes quantity as a number (`500m` → 0.5, `1Gi` → 2^30); NaN when it is not one. */
export function quantity(text: string): number {
  const match = /^([+-]?\d+(?:\.\d+)?)(?:[eE]([+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E)?)$/.exec(text);
  if (!match) return Number.NaN;
  return Number(match[1]) * (match[2] !== undefined ? 10 ** Number(match[2]) : SUFFIXES[match[3] ?? '']!);
}
