import type { V1PodDisruptionBudget, V1Toleration, V1TopologySpreadConstraint } from '@kubernetes/client-node';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import { appResourceName, labelsOf, ownerReference, selectorLabels } from './names.ts';

/** Kubernetes' default for pods without their own: 5 minutes on a node that is not ready or unreachable. */
export const DEFAULT_NODE_LOSS_TOLERATION_SECONDS = 300;

/** The node label every node carries with its own name: one topology domain per node. */
export const HOSTNAME_TOPOLOGY_KEY = 'kubernetes.io/hostname';

/**
 * Where an app's replicas run, and what survives a node's loss (pure). Replicas of an app with two or more are spread
 * over nodes (a topology spread on the hostname). The spread is preferred (`ScheduleAnyway`), not required: a
 * cluster that lost nodes, or has one, still runs every replica, and the scheduler puts the next one on the emptiest
 * node. The not-ready and unreachable tolerations the admission controller adds (300 s) are replaced by the offer's,
 * so a dead node's pods are evicted and recreated elsewhere sooner.
 */
export function runPlacement(app: WalrusApp, replicas: number, tolerationSeconds: number): { topologySpreadConstraints?: V1TopologySpreadConstraint[]; tolerations: V1Toleration[] } {
  const tolerations: V1Toleration[] = ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable'].map((key) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds }));
  if (replicas < 2) return { tolerations };
  return {
    topologySpreadConstraints: [{ maxSkew: 1, topologyKey: HOSTNAME_TOPOLOGY_KEY, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selectorLabels(app, 'run') } }],
    tolerations,
  };
}

/**
 * The app's PodDisruptionBudget when it runs two replicas or more: a drain or any voluntary eviction takes at most one
 * of its pods at a time (the next waits until the replacement is ready). None for one replica: a budget that keeps the
 * only pod would block every drain. Written as `policy/v1beta1` (Kubernetes 1.20's); the Kubernetes adapter sends it
 * at the version the server serves (`policy/v1` from 1.21, the only one from 1.25; the object is the same).
 */
export function appDisruptionBudget(app: WalrusApp, replicas: number): V1PodDisruptionBudget | null {
  if (replicas < 2) return null;
  return {
    apiVersion: 'policy/v1beta1',
    kind: 'PodDisruptionBudget',
    metadata: { name: appResourceName(app), namespace: app.metadata.namespace, labels: labelsOf(app, 'run'), ownerReferences: [ownerReference(app)] },
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(app, 'run') } },
  };
}
