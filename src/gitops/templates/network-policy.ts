import type { V1NetworkPolicy, V1NetworkPolicyPeer } from '@kubernetes/client-node';
import { resolveSpec } from '../api/types.ts';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import { appResourceName, labelsOf, ownerReference, selectorLabels } from './names.ts';

/**
 * The app's ingress allowance in a tenant namespace, where every pod is isolated by default (the provider's
 * isolation, docs/architecture.md, Tenant isolation): the ingress controller (`from`, the provider's offer) may
 * reach the app's pods on the port the app listens on, nothing else. Outside tenant namespaces no policy is written:
 * a policy selecting the pods would isolate them.
 */
export function appNetworkPolicy(app: WalrusApp, from: readonly V1NetworkPolicyPeer[]): V1NetworkPolicy {
  const spec = resolveSpec(app.spec);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: appResourceName(app), namespace: app.metadata.namespace, labels: labelsOf(app, 'run'), ownerReferences: [ownerReference(app)] },
    spec: {
      podSelector: { matchLabels: selectorLabels(app, 'run') },
      policyTypes: ['Ingress'],
      ingress: [{ _from: [...from], ports: [{ protocol: 'TCP', port: spec.port }] }],
    },
  };
}
