/**
 * What the controller in provider mode needs from the cluster besides the Cluster port: the tenant namespaces and the
 * WalrusApps it makes for leases, found by label (they have no owner in the cluster: their owner is a lease on
 * chain). Implemented over `@kubernetes/client-node` by src/k8s/tenants.ts.
 */
import type { V1LimitRange, V1Namespace, V1NetworkPolicy, V1ResourceQuota } from '@kubernetes/client-node';
import type { WalrusApp } from './walrus-app.ts';
import type { ObjectRef } from './cluster.ts';

export interface TenantCluster {
  /** Namespaces carrying `labelSelector`. */
  listNamespaces(labelSelector: string): Promise<V1Namespace[]>;
  /** Server-side apply of a namespace (created, or its labels and annotations set). */
  applyNamespace(namespace: V1Namespace): Promise<void>;
  /** Deletes a namespace and everything in it; a missing or already terminating one is not an error. */
  deleteNamespace(name: string): Promise<void>;
  /** Server-side apply of one of a tenant namespace's isolation objects (network policy, quota, limit range). */
  applyObject(object: V1NetworkPolicy | V1ResourceQuota | V1LimitRange): Promise<void>;
  /** WalrusApps of every namespace carrying `labelSelector`. */
  listApps(labelSelector: string): Promise<WalrusApp[]>;
  /** Server-side apply of a WalrusApp's metadata and spec. */
  applyApp(app: WalrusApp): Promise<void>;
  /** Deletes a WalrusApp (what it owns goes with it, by owner reference); a missing one is not an error. */
  deleteApp(ref: ObjectRef): Promise<void>;
  /**
   * Server-side apply of a copy of Secret `from` (its data only) into namespace `to`, under the same name: a pod reads
   * a Secret in its own namespace only.
   */
  copySecret(from: ObjectRef, to: string): Promise<void>;
}
