/**
 * The Cluster port over `@kubernetes/client-node` 2.x (the only importer of the client besides tests). API errors
 * become typed: 409 → ConflictError, 401/403 → ClusterAccessError naming the verb and resource, others
 * ClusterRequestError with the server's message.
 */
import {
  ApiException, ApisApi, AppsV1Api, V1MicroTime, BatchV1Api, CoordinationV1Api, CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy, makeInformer, setHeaderOptions,
} from '@kubernetes/client-node';
import type { CoreV1Event, KubeConfig, KubernetesObject, V1ConfigMap, V1Deployment, V1Ingress, V1Job, V1Lease, V1NetworkPolicy, V1Pod, V1PodDisruptionBudget, V1Service } from '@kubernetes/client-node';
import { FIELD_MANAGER, GROUP, PLURAL, VERSION, type WalrusAppStatus } from '../ports/walrus-app.ts';
import { ClusterAccessError, ClusterRequestError, ConflictError } from '../ports/cluster-errors.ts';
import type { AppObjects, Cluster, Informer, InformerEvent, ObjectRef, WatchedKinds } from '../ports/cluster.ts';
import { systemClock, type Clock } from '../core/clock.ts';
import { messageOf } from '../core/errors.ts';
import { RestartingInformer } from './informer.ts';

/** The API version of each kind `readObject` reads (a PodDisruptionBudget's: the server's, `#policyVersion`). */
const API_VERSIONS: Record<keyof AppObjects, string> = { Service: 'v1', Ingress: 'networking.k8s.io/v1', NetworkPolicy: 'networking.k8s.io/v1', PodDisruptionBudget: 'policy/v1beta1' };

/** How long a container log read may take before the termination message is used instead. */
const LOG_TIMEOUT_MS = 5000;

export interface KubernetesClusterOptions {
  /** Where informer restarts are reported. */
  log(line: string): void;
  /** An informer that shows no sign of life (an event or a reconnection) for this long is restarted; 5 min by default. */
  watchdogMs?: number;
  clock?: Clock;
}

export class KubernetesCluster implements Cluster {
  readonly #kc: KubeConfig;
  readonly #core: CoreV1Api;
  readonly #apps: AppsV1Api;
  readonly #batch: BatchV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #coordination: CoordinationV1Api;
  readonly #objects: KubernetesObjectApi;
  readonly #options: KubernetesClusterOptions;
  #budgetVersion: Promise<string> | undefined;

  constructor(kc: KubeConfig, options: KubernetesClusterOptions) {
    this.#kc = kc;
    this.#options = options;
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#apps = kc.makeApiClient(AppsV1Api);
    this.#batch = kc.makeApiClient(BatchV1Api);
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#coordination = kc.makeApiClient(CoordinationV1Api);
    this.#objects = KubernetesObjectApi.makeApiClient(kc);
  }

  informer<K extends keyof WatchedKinds>(kind: K, options: { namespace: string | null; labelSelector?: string }): Informer<WatchedKinds[K]> {
    const { namespace, labelSelector } = options;
    const ns = namespace === null ? '' : `/namespaces/${namespace}`;
    const paths: Record<keyof WatchedKinds, string> = {
      walrusapps: `/apis/${GROUP}/${VERSION}${ns}/${PLURAL}`,
      deployments: `/apis/apps/v1${ns}/deployments`,
      jobs: `/apis/batch/v1${ns}/jobs`,
    };
    const list = {
      walrusapps: () => (namespace === null
        ? this.#custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, labelSelector })
        : this.#custom.listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, labelSelector })),
      deployments: () => (namespace === null ? this.#apps.listDeploymentForAllNamespaces({ labelSelector }) : this.#apps.listNamespacedDeployment({ namespace, labelSelector })),
      jobs: () => (namespace === null ? this.#batch.listJobForAllNamespaces({ labelSelector }) : this.#batch.listNamespacedJob({ namespace, labelSelector })),
    }[kind] as () => Promise<{ items: WatchedKinds[K][]; metadata?: { resourceVersion?: string } }>;
    const informer = makeInformer<WatchedKinds[K]>(this.#kc, paths[kind], list as never, labelSelector);
    const { log, watchdogMs = 5 * 60_000, clock = systemClock } = this.#options;
    return new RestartingInformer({
      on: (event: InformerEvent, handler) => informer.on(event, handler),
      onConnect: (handler) => informer.on('connect', () => handler()),
      onError: (handler) => informer.on('error', handler),
      start: () => informer.start(),
      stop: () => informer.stop(),
      get: (name, namespace) => informer.get(name, namespace),
      list: () => [...informer.list()],
    }, { name: kind, watchdogMs, clock, log });
  }

  async patchAppStatus(app: ObjectRef, status: WalrusAppStatus, resourceVersion?: string): Promise<void> {
    // The whole status at once (a JSON patch `add` replaces it): a merge patch would keep fields the new status
    // leaves out, such as a cleared failedRevision. A resourceVersion the patch sets is the update's precondition.
    const body = [
      ...(resourceVersion === undefined ? [] : [{ op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion }]),
      { op: 'add', path: '/status', value: status },
    ];
    await conflictOn(409, `status of walrusapp ${app.namespace}/${app.name} (written since it was read)`, call('patch', `${PLURAL}/status`, app.namespace, () =>
      this.#custom.patchNamespacedCustomObjectStatus(
        { group: GROUP, version: VERSION, namespace: app.namespace, plural: PLURAL, name: app.name, body },
        setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
      )));
  }

  async createJob(job: V1Job): Promise<V1Job> {
    const namespace = job.metadata!.namespace!;
    try {
      return await call('create', 'jobs', namespace, () => this.#batch.createNamespacedJob({ namespace, body: job }));
    } catch (error) {
      if (error instanceof ClusterRequestError && error.data.status === 409) {
        return call('get', 'jobs', namespace, () => this.#batch.readNamespacedJob({ namespace, name: job.metadata!.name! }));
      }
      throw error;
    }
  }

  async readJob(ref: ObjectRef): Promise<V1Job | null> {
    return orNull(call('get', 'jobs', ref.namespace, () => this.#batch.readNamespacedJob(ref)));
  }

  async deleteJob(ref: ObjectRef): Promise<void> {
    await orNull(call('delete', 'jobs', ref.namespace, () => this.#batch.deleteNamespacedJob({ ...ref, propagationPolicy: 'Background' })));
  }

  async jobPods(ref: ObjectRef): Promise<V1Pod[]> {
    const list = await call('list', 'pods', ref.namespace, () => this.#core.listNamespacedPod({ namespace: ref.namespace, labelSelector: `job-name=${ref.name}` }));
    return list.items;
  }

  async podLogTail(pod: ObjectRef, container: string, lines: number): Promise<string | null> {
    // The API server proxies this to the node's kubelet; a node that serves no logs (or is unreachable) must not
    // hold the reconcile: after a few seconds the caller falls back to the termination message.
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), LOG_TIMEOUT_MS); });
    try {
      return await Promise.race([this.#core.readNamespacedPodLog({ ...pod, container, tailLines: lines }).catch(() => null), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async readObject<K extends keyof AppObjects>(kind: K, ref: ObjectRef): Promise<AppObjects[K] | null> {
    const apiVersion = await this.#versionOf(kind);
    return orNull(call('get', resourceOf(kind), ref.namespace, () => this.#objects.read<AppObjects[K]>({ apiVersion, kind, metadata: ref })));
  }

  /**
   * A PodDisruptionBudget goes at the version this server serves: `policy/v1` from Kubernetes 1.21 (and only it from
   * 1.25), `policy/v1beta1` before (1.20, the test plane); the object is the same. Asked once; a failure is asked again.
   */
  async #versionOf(kind: string): Promise<string> {
    if (kind !== 'PodDisruptionBudget') return API_VERSIONS[kind as keyof AppObjects];
    this.#budgetVersion ??= call('get', 'apis', null, () => this.#kc.makeApiClient(ApisApi).getAPIVersions()).then(
      (list) => (list.groups.some((group) => group.name === 'policy' && group.versions.some((version) => version.groupVersion === 'policy/v1')) ? 'policy/v1' : 'policy/v1beta1'),
      (error: unknown) => {
        this.#budgetVersion = undefined;
        throw error;
      },
    );
    return this.#budgetVersion;
  }

  async deleteObject(object: AppObjects[keyof AppObjects]): Promise<void> {
    const { name, namespace, uid, resourceVersion } = object.metadata ?? {};
    const kind = object.kind as keyof AppObjects;
    const header = { apiVersion: await this.#versionOf(kind), kind, metadata: { name, namespace } };
    const body = { preconditions: { uid, resourceVersion } };
    await orNull(conflictOn(409, `${kind} ${namespace}/${name} (changed since it was read)`, call('delete', resourceOf(kind), namespace ?? null, () =>
      this.#objects.delete(header, undefined, undefined, undefined, undefined, 'Background', body))));
  }

  async namespaceLabels(name: string): Promise<Record<string, string> | null> {
    const namespace = await orNull(call('get', 'namespaces', null, () => this.#core.readNamespace({ name })));
    return namespace ? namespace.metadata?.labels ?? {} : null;
  }

  async admitPod(pod: V1Pod): Promise<string | null> {
    const namespace = pod.metadata!.namespace!;
    try {
      await this.#core.createNamespacedPod({ namespace, body: pod, dryRun: 'All' });
      return null;
    } catch (error) {
      // The quota and limit range admission plugins answer 403 Forbidden, as RBAC does ("User … cannot create …").
      if (error instanceof ApiException && error.code === 403 && !/\bcannot create\b/.test(serverMessage(error))) return serverMessage(error);
      return call('create', 'pods', namespace, () => Promise.reject(error));
    }
  }

  async apply<T extends V1Deployment | V1Service | V1Ingress | V1ConfigMap | V1NetworkPolicy | V1PodDisruptionBudget>(object: T): Promise<T> {
    const resource = resourceOf(object.kind!);
    const versioned = object.kind === 'PodDisruptionBudget' ? { ...object, apiVersion: await this.#versionOf(object.kind) } : object;
    return call('apply', resource, object.metadata?.namespace ?? null, () =>
      this.#objects.patch(versioned as KubernetesObject, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply) as Promise<T>);
  }

  async readConfigMap(ref: ObjectRef): Promise<V1ConfigMap | null> {
    return orNull(call('get', 'configmaps', ref.namespace, () => this.#core.readNamespacedConfigMap(ref)));
  }

  async listConfigMaps(namespace: string, labelSelector: string): Promise<V1ConfigMap[]> {
    return (await call('list', 'configmaps', namespace, () => this.#core.listNamespacedConfigMap({ namespace, labelSelector }))).items;
  }

  async deleteConfigMap(ref: ObjectRef): Promise<void> {
    await orNull(call('delete', 'configmaps', ref.namespace, () => this.#core.deleteNamespacedConfigMap(ref)));
  }

  async createEvent(event: CoreV1Event): Promise<void> {
    const namespace = event.metadata.namespace!;
    await call('create', 'events', namespace, () => this.#core.createNamespacedEvent({ namespace, body: event }));
  }

  async patchEventCount(ref: ObjectRef, count: number, lastTimestamp: Date): Promise<void> {
    await call('patch', 'events', ref.namespace, () =>
      this.#core.patchNamespacedEvent({ ...ref, body: { count, lastTimestamp } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch)));
  }

  async readLease(ref: ObjectRef): Promise<V1Lease | null> {
    return orNull(call('get', 'leases', ref.namespace, () => this.#coordination.readNamespacedLease(ref)));
  }

  async createLease(lease: V1Lease): Promise<V1Lease> {
    const namespace = lease.metadata!.namespace!;
    return conflictOn(409, 'lease', call('create', 'leases', namespace, () => this.#coordination.createNamespacedLease({ namespace, body: microTimes(lease) })));
  }

  async replaceLease(lease: V1Lease): Promise<V1Lease> {
    const namespace = lease.metadata!.namespace!;
    const name = lease.metadata!.name!;
    return conflictOn(409, 'lease', call('update', 'leases', namespace, () => this.#coordination.replaceNamespacedLease({ namespace, name, body: microTimes(lease) })));
  }
}

/** Lease times are MicroTime: the API server refuses them unless they carry exactly 6 fraction digits. */
function microTimes(lease: V1Lease): V1Lease {
  // A lease read back carries its times as the strings the server sent (client-node does not parse MicroTime).
  const micro = (time: Date | string | undefined) => (time === undefined ? undefined : new V1MicroTime(typeof time === 'string' ? Date.parse(time) : time.getTime()));
  return { ...lease, spec: { ...lease.spec, acquireTime: micro(lease.spec?.acquireTime), renewTime: micro(lease.spec?.renewTime) } };
}

/** Runs one API call and types its failure. */
export async function call<T>(verb: string, resource: string, namespace: string | null, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    if (!(error instanceof ApiException)) throw new ClusterRequestError(verb, resource, undefined, messageOf(error));
    const detail = serverMessage(error);
    if (error.code === 401 || error.code === 403) throw new ClusterAccessError(verb, resource, namespace, detail);
    throw new ClusterRequestError(verb, resource, error.code, detail);
  }
}

/** The resource name of a kind, for messages (`NetworkPolicy` → `networkpolicies`). */
export function resourceOf(kind: string): string {
  const lower = kind.toLowerCase();
  return lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : lower.endsWith('s') ? `${lower}es` : `${lower}s`;
}

export async function orNull<T>(request: Promise<T>): Promise<T | null> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ClusterRequestError && error.data.status === 404) return null;
    throw error;
  }
}

async function conflictOn<T>(status: number, what: string, request: Promise<T>): Promise<T> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ClusterRequestError && error.data.status === status) throw new ConflictError(`the ${what}`, { status });
    throw error;
  }
}

/** The Status object's message the API server sends with a refusal. */
function serverMessage(error: ApiException<unknown>): string {
  const body = error.body;
  try {
    const parsed = typeof body === 'string' ? JSON.parse(body) : body;
    if (parsed && typeof parsed === 'object' && 'message' in parsed) return String((parsed as { message: unknown }).message);
  } catch {
    // not JSON: fall through to the raw text
  }
  return typeof body === 'string' && body ? body.slice(0, 500) : error.message;
}

