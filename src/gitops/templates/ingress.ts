import { createHash } from 'node:crypto';
import type { V1Ingress } from '@kubernetes/client-node';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import type { ProviderOffer } from '../api/offer.ts';
import { appResourceName, dnsLabel, labelsOf, ownerReference } from './names.ts';
import { SERVICE_PORT } from './run.ts';

export type IngressSettings = NonNullable<ProviderOffer['ingress']>;

/** cert-manager's annotation: it issues the certificate into the Ingress's TLS secret. */
export const CLUSTER_ISSUER_ANNOTATION = 'cert-manager.io/cluster-issuer';

/**
 * The app's host under the provider's domain: `<name>-<12 hex>.<domain>`, the hex digits a hash of namespace/name.
 * Stable across releases (a pure function of the app's identity), distinct for two apps of the same name in two
 * namespaces, and a valid DNS label whatever the name.
 */
export function appHost(app: Pick<WalrusApp, 'metadata'>, domain: string): string {
  const hash = createHash('sha256').update(`${app.metadata.namespace}/${app.metadata.name}`).digest('hex').slice(0, 12);
  return `${dnsLabel(app.metadata.name, 63 - 13)}-${hash}.${domain}`;
}

/** Where the app answers: `<scheme>://<host>/`. */
export function appUrl(app: Pick<WalrusApp, 'metadata'>, ingress: IngressSettings): string {
  return `${ingress.scheme}://${appHost(app, ingress.domain)}/`;
}

/**
 * The app's `networking.k8s.io/v1` Ingress: every path of its host to its Service, with the provider's class, and TLS
 * from the provider's wildcard secret or a certificate cert-manager issues (a secret of the app's own then).
 */
export function appIngress(app: WalrusApp, ingress: IngressSettings): V1Ingress {
  const name = appResourceName(app);
  const host = appHost(app, ingress.domain);
  const tlsSecret = ingress.tlsSecretName ?? (ingress.clusterIssuer ? dnsLabel(`${name}-tls`) : undefined);
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: app.metadata.namespace,
      labels: labelsOf(app, 'run'),
      ...(ingress.clusterIssuer ? { annotations: { [CLUSTER_ISSUER_ANNOTATION]: ingress.clusterIssuer } } : {}),
      ownerReferences: [ownerReference(app)],
    },
    spec: {
      ...(ingress.className ? { ingressClassName: ingress.className } : {}),
      ...(tlsSecret ? { tls: [{ hosts: [host], secretName: tlsSecret }] } : {}),
      rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { number: SERVICE_PORT } } } }] } }],
    },
  };
}
