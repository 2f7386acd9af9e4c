/**
 * What the GitOps controller needs from a Kubernetes cluster. Implemented over `@kubernetes/client-node` by
 * src/k8s/cluster.ts (the only importer of the client besides tests). Object types are the client's own, imported
 * as types only: the port names Kubernetes objects, it does not hide them.
 */
import type { CoreV1Event, KubernetesObject, V1ConfigMap, V1Deployment, V1Ingress, V1Job, V1Lease, V1NetworkPolicy, V1Pod, V1PodDisruptionBudget, V1Service } from '@kubernetes/client-node';
import type { WalrusApp, WalrusAppStatus } from './walrus-app.ts';

export interface ObjectRef {
  namespace: string;
  name: string;
}

/** The kinds the controller watches: WalrusApps, and the Deployments and Jobs it owns. */
export interface WatchedKinds {
  walrusapps: WalrusApp;
  deployments: V1Deployment;
  jobs: V1Job;
}

export type InformerEvent = 'add' | 'update' | 'delete';

/** The objects the controller makes beside an app's Deployment, by kind: read back when the offer changes. */
export interface AppObjects {
  Service: V1Service;
  Ingress: V1Ingress;
  NetworkPolicy: V1NetworkPolicy;
  PodDisruptionBudget: V1PodDisruptionBudget;
}

/**
 * A list+watch cache of one kind that keeps itself running: a watch that stops (client-node's informer stops on most
 * errors) or shows no sign of life for a while is restarted by the adapter, backing off while it keeps failing.
 */
export interface Informer<T extends KubernetesObject> {
  on(event: InformerEvent, handler: (object: T) => void): void;
  /** The watch was started again: events may have been missed while it was down, so the owner looks at everything. */
  onRestart(handler: () => void): void;
  /** Resolves once the first list is in the cache (retrying with back-off until then), or when stopped first. */
  start(): Promise<void>;
  stop(): Promise<void>;
  get(ref: ObjectRef): T | undefined;
  list(): T[];
}

export interface Cluster {
  /** An informer over one kind in `namespace` (all namespaces when null), limited by `labelSelector`. */
  informer<K extends keyof WatchedKinds>(kind: K, options: { namespace: string | null; labelSelector?: string }): Informer<WatchedKinds[K]>;

  /**
   * Replaces the whole `status` through the status subresource, if the app is still at `resourceVersion` (the version
   * the caller read; absent: whatever it is now). A pass that ran on a cache not yet holding the last status write must
   * not overwrite it with what it derived from the older one: the API server refuses it (409 Conflict).
   */
  patchAppStatus(app: ObjectRef, status: WalrusAppStatus, resourceVersion?: string): Promise<void>;
  /** Creates a Job; an existing Job of that name is returned instead (a second pass after a missed cache update). */
  createJob(job: V1Job): Promise<V1Job>;
  /** The Job as the API server has it; null when there is none. */
  readJob(ref: ObjectRef): Promise<V1Job | null>;
  /** Deletes a Job and its pods (background propagation); a missing Job is not an error. */
  deleteJob(ref: ObjectRef): Promise<void>;
  /** The pods of a Job (label `job-name`). */
  jobPods(ref: ObjectRef): Promise<V1Pod[]>;
  /** The last `lines` lines of a container's log; null when the node does not serve logs. */
  podLogTail(pod: ObjectRef, container: string, lines: number): Promise<string | null>;
  /** Server-side apply with the controller's field manager, forcing conflicts (the controller owns these objects). */
  apply<T extends V1Deployment | V1Service | V1Ingress | V1ConfigMap | V1NetworkPolicy | V1PodDisruptionBudget>(object: T): Promise<T>;
  /** The object of `kind` at `ref` as the API server has it; null when there is none. */
  readObject<K extends keyof AppObjects>(kind: K, ref: ObjectRef): Promise<AppObjects[K] | null>;
  /**
   * Deletes an object as it was read: its uid and resourceVersion are preconditions, so one replaced or changed since
   * is left alone (ConflictError); one gone already is not an error.
   */
  deleteObject(object: AppObjects[keyof AppObjects]): Promise<void>;
  /** A namespace's labels; null when it does not exist. */
  namespaceLabels(name: string): Promise<Record<string, string> | null>;
  /**
   * Whether the API server would admit this pod now (a dry-run create: the ResourceQuota and LimitRange admission
   * plugins decide): null when it would, else the API server's refusal (which names the quota or the limit).
   */
  admitPod(pod: V1Pod): Promise<string | null>;
  readConfigMap(ref: ObjectRef): Promise<V1ConfigMap | null>;
  /** The ConfigMaps of `namespace` matching `labelSelector` (an app's kept build output). */
  listConfigMaps(namespace: string, labelSelector: string): Promise<V1ConfigMap[]>;
  /** Deletes a ConfigMap; a missing one is not an error. */
  deleteConfigMap(ref: ObjectRef): Promise<void>;

  createEvent(event: CoreV1Event): Promise<void>;
  /** Bumps a recorded event's count and last time (client-go's event aggregation). */
  patchEventCount(ref: ObjectRef, count: number, lastTimestamp: Date): Promise<void>;

  readLease(ref: ObjectRef): Promise<V1Lease | null>;
  /** Creates the Lease; throws ConflictError when it already exists. */
  createLease(lease: V1Lease): Promise<V1Lease>;
  /** Replaces the Lease at its resourceVersion; throws ConflictError when someone else changed it first. */
  replaceLease(lease: V1Lease): Promise<V1Lease>;
}
