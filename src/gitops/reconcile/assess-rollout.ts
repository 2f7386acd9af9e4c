import type { V1Deployment } from '@kubernetes/client-node';

export type RolloutState =
  | { phase: 'Progressing'; message: string }
  | { phase: 'Complete'; message: string }
  | { phase: 'Failed'; message: string };

/**
 * Where the Deployment's rolling update stands, from its status alone (as `kubectl rollout status` and Argo CD's
 * health check read it): Failed only on ProgressDeadlineExceeded; Complete when the controller has seen the current
 * template, every replica is updated and available, and no old replica is left; Progressing otherwise.
 */
export function assessRollout(deployment: V1Deployment): RolloutState {
  const generation = deployment.metadata?.generation ?? 0;
  const status = deployment.status ?? {};
  const wanted = deployment.spec?.replicas ?? 1;
  const progressing = status.conditions?.find((condition) => condition.type === 'Progressing');
  if ((status.observedGeneration ?? 0) < generation) return { phase: 'Progressing', message: 'waiting for the deployment controller to see the new template' };
  if (progressing?.status === 'False' && progressing.reason === 'ProgressDeadlineExceeded') {
    return { phase: 'Failed', message: progressing.message ?? 'the rollout exceeded its progress deadline' };
  }
  const updated = status.updatedReplicas ?? 0;
  const total = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  if (updated < wanted) return { phase: 'Progressing', message: `${updated} of ${wanted} replicas updated` };
  if (total > updated) return { phase: 'Progressing', message: `${total - updated} old replicas pending termination` };
  if (available < updated) return { phase: 'Progressing', message: `${available} of ${updated} updated replicas available` };
  return { phase: 'Complete', message: `${available} of ${wanted} replicas available` };
}
