import type { V1Deployment } from '@kubernetes/client-node';
import type { Release } from '../../ports/templates.ts';
import type { WalrusAppStatus } from '../api/types.ts';
import type { Pass } from './pass.ts';
import { applyIngressAllowance } from './isolation.ts';

/** The last release that rolled out, with its artifact (from the history), to roll back to. */
export function lastGoodRelease(status: WalrusAppStatus): Release | null {
  const entry = status.history?.find((candidate) => candidate.result === 'Released' && candidate.artifact && candidate.commit === status.lastAppliedRevision);
  return entry ? { commit: entry.commit, artifact: entry.artifact! } : null;
}

/**
 * Applies the app's Deployment for `release`, its Service and, in a tenant namespace, its ingress allowance; returns
 * the Deployment as the API server has it now.
 */
export async function applyRelease(pass: Pass, release: Release): Promise<V1Deployment> {
  const { cluster, templates } = pass.deps;
  const deployment = await cluster.apply(templates.runDeployment(pass.app, release));
  await cluster.apply(templates.appService(pass.app));
  await applyIngressAllowance(cluster, templates, pass.app);
  return deployment;
}
