/**
 * What the provider's gateway reads of a lease's app in the cluster (docs/architecture.md, The provider's gateway):
 * read only, never a write. Implemented over `@kubernetes/client-node` by src/k8s/app-window.ts; object types are the
 * client's own, imported as types only, as in the cluster port.
 */
import type { CoreV1Event, V1ConfigMap, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { ObjectRef } from './cluster.ts';
import type { WalrusApp } from './walrus-app.ts';

export interface LogOptions {
  tailLines?: number;
  sinceSeconds?: number;
  /** The container's previous run (the one that crashed). */
  previous?: boolean;
}

export interface AppWindow {
  readApp(ref: ObjectRef): Promise<WalrusApp | null>;
  readDeployment(ref: ObjectRef): Promise<V1Deployment | null>;
  listPods(namespace: string, labelSelector: string): Promise<V1Pod[]>;
  /** Every event of `namespace` (the tenant's namespace: its app, its pods, its build Jobs). */
  listEvents(namespace: string): Promise<CoreV1Event[]>;
  listConfigMaps(namespace: string, labelSelector: string): Promise<V1ConfigMap[]>;
  /** A container's log as it is now. */
  readLog(pod: ObjectRef, container: string, options: LogOptions): Promise<string>;
  /**
   * A container's log as it is written, line by line, until the container stops or `signal` aborts. Slow consumption
   * slows the read (the stream is pulled, not pushed).
   */
  followLog(pod: ObjectRef, container: string, options: LogOptions, signal: AbortSignal): AsyncIterable<string>;
}
