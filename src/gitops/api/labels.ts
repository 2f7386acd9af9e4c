/** The labels and annotations of what the controller in provider mode makes (namespaces, apps, their policies). */
export const PROVIDER_MANAGED_BY = 'walrus-provider';
export const PROVIDER_LABELS = {
  managedBy: 'app.kubernetes.io/managed-by',
  /** On a tenant namespace: the first 62 hex digits of the tenant's address (a label value holds 63 characters). */
  tenant: 'market.walrus-git.dev/tenant',
  /** On an app: the first 62 hex digits of its lease id. */
  lease: 'market.walrus-git.dev/lease',
} as const;
export const PROVIDER_ANNOTATIONS = {
  tenant: 'market.walrus-git.dev/tenant',
  lease: 'market.walrus-git.dev/lease',
  provider: 'market.walrus-git.dev/provider',
  /** A hash of the spec the controller wrote: a different one (the template changed) is applied again. */
  specHash: 'market.walrus-git.dev/spec-hash',
  /** On a tenant namespace: the hash of its isolation objects (isolation.ts) once all were written. */
  isolationHash: 'market.walrus-git.dev/isolation-hash',
} as const;
