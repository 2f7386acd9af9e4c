/**
 * Recording fakes of the cluster port for the controller's unit tests, in the manner of sample-controller's
 * expected-actions tests: every write is recorded as `verb resource namespace/name`, reads answer from what the test
 * put in, and any call can be made to fail (`failOn`) to inject a fault.
 */
import type { CoreV1Event, KubernetesObject, V1ConfigMap, V1Deployment, V1Ingress, V1Job, V1Lease, V1NetworkPolicy, V1Pod, V1Service } from '@kubernetes/client-node';
import { ConflictError } from '../../../src/ports/cluster-errors.ts';
import { resourceOf } from '../../../src/k8s/cluster.ts';
import type { AppObjects, Cluster, Informer, InformerEvent, ObjectRef, WatchedKinds } from '../../../src/ports/cluster.ts';
import type { WalrusAppStatus } from '../../../src/ports/walrus-app.ts';

type Verb = 'patchAppStatus' | 'createJob' | 'readJob' | 'deleteJob' | 'jobPods' | 'podLogTail' | 'apply' | 'readObject' | 'deleteObject' | 'namespaceLabels' | 'admitPod' | 'readConfigMap' | 'listConfigMaps' | 'deleteConfigMap' | 'createEvent' | 'patchEventCount' | 'readLease' | 'createLease' | 'replaceLease';

/** An informer over objects the test holds: `start` lists them as adds, `emit` plays a watch event, `restart` a restart. */
export class FakeInformer<T extends KubernetesObject> implements Informer<T> {
  readonly objects = new Map<string, T>();
  readonly #handlers: Record<InformerEvent, ((object: T) => void)[]> = { add: [], update: [], delete: [] };
  readonly #onRestart: (() => void)[] = [];
  started = false;

  constructor(objects: readonly T[] = []) {
    for (const object of objects) this.objects.set(keyOf(object), object);
  }

  on(event: InformerEvent, handler: (object: T) => void): void {
    this.#handlers[event].push(handler);
  }

  onRestart(handler: () => void): void {
    this.#onRestart.push(handler);
  }

  async start(): Promise<void> {
    this.started = true;
    for (const object of this.objects.values()) this.emit('add', object);
  }

  async stop(): Promise<void> {
    this.started = false;
  }

  get(ref: ObjectRef): T | undefined {
    return this.objects.get(`${ref.namespace}/${ref.name}`);
  }

  list(): T[] {
    return [...this.objects.values()];
  }

  emit(event: InformerEvent, object: T): void {
    if (event === 'delete') this.objects.delete(keyOf(object));
    else this.objects.set(keyOf(object), object);
    for (const handler of this.#handlers[event]) handler(object);
  }

  restart(): void {
    for (const handler of this.#onRestart) handler();
  }
}

function objectKey(kind: string, ref: { namespace?: string; name?: string }): string {
  return `${kind} ${ref.namespace}/${ref.name}`;
}

function keyOf(object: KubernetesObject): string {
  return `${object.metadata?.namespace}/${object.metadata?.name}`;
}

export class FakeCluster implements Cluster {
  /** Every write, in order: `create jobs ns/name`, `apply deployments ns/name`, `patch walrusapps/status ns/name`, … */
  readonly actions: string[] = [];
  /** Every read, in order: `get ingresses ns/name`, `list pods ns/job`, … */
  readonly reads: string[] = [];
  /** Every object applied, in order. */
  readonly applied: KubernetesObject[] = [];
  /** The objects there are now, by `Kind namespace/name`: every apply lands here, `put` adds one (a user's, say). */
  readonly objects = new Map<string, KubernetesObject>();
  readonly statuses: WalrusAppStatus[] = [];
  readonly events: CoreV1Event[] = [];
  readonly informers: { [K in keyof WatchedKinds]: FakeInformer<WatchedKinds[K]> } = {
    walrusapps: new FakeInformer(), deployments: new FakeInformer(), jobs: new FakeInformer(),
  };
  /** What `jobPods` answers, per Job name. */
  readonly pods = new Map<string, V1Pod[]>();
  /** What `podLogTail` answers, per pod name. */
  readonly logs = new Map<string, string>();
  /** Namespaces' labels (a namespace not here has none). */
  readonly namespaces = new Map<string, Record<string, string>>();
  /** What the admission plugins say of a pod (a dry-run create): null admits it. */
  admission: (pod: V1Pod) => string | null = () => null;
  /** The status an applied Deployment comes back with (as the deployment controller would have it). */
  deploymentStatus: (deployment: V1Deployment) => V1Deployment['status'] = complete;
  lease: V1Lease | null = null;
  readonly #faults = new Map<Verb, (call: string) => unknown>();

  /** From now on, `verb` throws what `fault` returns (for the call as recorded); `undefined` clears it. */
  failOn(verb: Verb, fault: ((call: string) => unknown) | undefined): void {
    if (fault) this.#faults.set(verb, fault);
    else this.#faults.delete(verb);
  }

  #call(verb: Verb, call: string, write = true): void {
    const fault = this.#faults.get(verb);
    if (fault) throw fault(call);
    (write ? this.actions : this.reads).push(call);
  }

  informer<K extends keyof WatchedKinds>(kind: K): Informer<WatchedKinds[K]> {
    return this.informers[kind];
  }

  async patchAppStatus(app: ObjectRef, status: WalrusAppStatus, resourceVersion?: string): Promise<void> {
    this.#call('patchAppStatus', `patch walrusapps/status ${app.namespace}/${app.name}${resourceVersion === undefined ? '' : ` at ${resourceVersion}`}`);
    this.statuses.push(structuredClone(status));
  }

  async createJob(job: V1Job): Promise<V1Job> {
    this.#call('createJob', `create jobs ${job.metadata!.namespace}/${job.metadata!.name}`);
    return job;
  }

  async readJob(ref: ObjectRef): Promise<V1Job | null> {
    this.#call('readJob', `get jobs ${ref.namespace}/${ref.name}`, false);
    return this.informers.jobs.get(ref) ?? null;
  }

  async deleteJob(ref: ObjectRef): Promise<void> {
    this.#call('deleteJob', `delete jobs ${ref.namespace}/${ref.name}`);
  }

  async jobPods(ref: ObjectRef): Promise<V1Pod[]> {
    this.#call('jobPods', `list pods ${ref.namespace}/${ref.name}`, false);
    return this.pods.get(ref.name) ?? [];
  }

  async podLogTail(pod: ObjectRef): Promise<string | null> {
    this.#call('podLogTail', `log pods ${pod.namespace}/${pod.name}`, false);
    return this.logs.get(pod.name) ?? null;
  }

  /** An object that is there before the test's pass (one the controller made earlier, or someone else's). */
  put(object: KubernetesObject): void {
    this.objects.set(objectKey(object.kind!, object.metadata!), structuredClone(object));
  }

  async readObject<K extends keyof AppObjects>(kind: K, ref: ObjectRef): Promise<AppObjects[K] | null> {
    this.#call('readObject', `get ${resourceOf(kind)} ${ref.namespace}/${ref.name}`, false);
    const object = this.objects.get(objectKey(kind, ref));
    return object ? structuredClone(object) as AppObjects[K] : null;
  }

  async deleteObject(object: AppObjects[keyof AppObjects]): Promise<void> {
    this.#call('deleteObject', `delete ${resourceOf(object.kind!)} ${object.metadata!.namespace}/${object.metadata!.name}`);
    const key = objectKey(object.kind!, object.metadata!);
    const there = this.objects.get(key);
    if (there && there.metadata?.uid !== object.metadata?.uid) throw new ConflictError(`${object.kind} ${key} (changed since it was read)`);
    this.objects.delete(key);
  }

  async namespaceLabels(name: string): Promise<Record<string, string> | null> {
    this.#call('namespaceLabels', `get namespaces ${name}`, false);
    return this.namespaces.get(name) ?? {};
  }

  async admitPod(pod: V1Pod): Promise<string | null> {
    this.#call('admitPod', `create pods ${pod.metadata!.namespace}/${pod.metadata!.generateName} (dry run)`, false);
    return this.admission(pod);
  }

  async apply<T extends V1Deployment | V1Service | V1Ingress | V1ConfigMap | V1NetworkPolicy>(object: T): Promise<T> {
    this.applied.push(object);
    this.#call('apply', `apply ${resourceOf(object.kind!)} ${object.metadata!.namespace}/${object.metadata!.name}`);
    const key = objectKey(object.kind!, object.metadata!);
    this.objects.set(key, { ...structuredClone(object), metadata: { ...structuredClone(object.metadata), uid: this.objects.get(key)?.metadata?.uid ?? `uid-${key}` } });
    if (object.kind !== 'Deployment') return object;
    const deployment = { ...object, metadata: { ...object.metadata, generation: 1 } } as V1Deployment;
    return { ...deployment, status: this.deploymentStatus(deployment) } as T;
  }

  async readConfigMap(): Promise<V1ConfigMap | null> {
    this.#call('readConfigMap', 'get configmaps', false);
    return null;
  }

  async listConfigMaps(namespace: string, labelSelector: string): Promise<V1ConfigMap[]> {
    this.#call('listConfigMaps', `list configmaps ${namespace}`, false);
    const wanted = labelSelector.split(',').map((pair) => pair.split('='));
    return [...this.objects.values()].filter((object): object is V1ConfigMap => object.kind === 'ConfigMap' && object.metadata?.namespace === namespace
      && wanted.every(([name, value]) => object.metadata?.labels?.[name!] === value)).map((object) => structuredClone(object));
  }

  async deleteConfigMap(ref: ObjectRef): Promise<void> {
    this.#call('deleteConfigMap', `delete configmaps ${ref.namespace}/${ref.name}`);
    this.objects.delete(objectKey('ConfigMap', ref));
  }

  async createEvent(event: CoreV1Event): Promise<void> {
    this.#call('createEvent', `create events ${event.metadata.namespace}/${event.reason}`, false);
    this.events.push(event);
  }

  async patchEventCount(): Promise<void> {
    this.#call('patchEventCount', 'patch events', false);
  }

  async readLease(): Promise<V1Lease | null> {
    this.#call('readLease', 'get leases', false);
    return this.lease && structuredClone(this.lease);
  }

  async createLease(lease: V1Lease): Promise<V1Lease> {
    this.#call('createLease', `create leases ${lease.metadata!.namespace}/${lease.metadata!.name}`);
    if (this.lease) throw new ConflictError('the lease');
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: '1' } };
    return structuredClone(this.lease);
  }

  async replaceLease(lease: V1Lease): Promise<V1Lease> {
    this.#call('replaceLease', `update leases ${lease.metadata!.namespace}/${lease.metadata!.name} holder=${lease.spec?.holderIdentity}`);
    if (!this.lease || lease.metadata?.resourceVersion !== this.lease.metadata?.resourceVersion) throw new ConflictError('the lease');
    this.lease = { ...structuredClone(lease), metadata: { ...lease.metadata, resourceVersion: String(Number(this.lease.metadata!.resourceVersion) + 1) } };
    return structuredClone(this.lease);
  }
}

/** Every replica updated and available: the rollout is complete. */
export function complete(deployment: V1Deployment): V1Deployment['status'] {
  const replicas = deployment.spec?.replicas ?? 1;
  return { observedGeneration: deployment.metadata?.generation, replicas, updatedReplicas: replicas, availableReplicas: replicas };
}

export function progressing(deployment: V1Deployment): V1Deployment['status'] {
  const replicas = deployment.spec?.replicas ?? 1;
  return { observedGeneration: deployment.metadata?.generation, replicas: replicas + 1, updatedReplicas: 1, availableReplicas: replicas };
}

export function deadlineExceeded(deployment: V1Deployment): V1Deployment['status'] {
  return {
    ...progressing(deployment),
    conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded', message: 'ReplicaSet "x" has timed out progressing.' }],
  };
}
