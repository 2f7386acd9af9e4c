/** The TenantCluster port over `@kubernetes/client-node` (provider mode's namespaces and lease apps). */
import { CoreV1Api, CustomObjectsApi, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject, V1LimitRange, V1Namespace, V1NetworkPolicy, V1ResourceQuota } from '@kubernetes/client-node';
import { FIELD_MANAGER, GROUP, PLURAL, VERSION, type WalrusApp } from '../ports/walrus-app.ts';
import type { ObjectRef } from '../ports/cluster.ts';
import type { TenantCluster } from '../ports/tenant-cluster.ts';
import { call, orNull, resourceOf } from './cluster.ts';

export class KubernetesTenants implements TenantCluster {
  readonly #core: CoreV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #objects: KubernetesObjectApi;

  constructor(kc: KubeConfig) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#objects = KubernetesObjectApi.makeApiClient(kc);
  }

  async listNamespaces(labelSelector: string): Promise<V1Namespace[]> {
    return (await call('list', 'namespaces', null, () => this.#core.listNamespace({ labelSelector }))).items;
  }

  async applyNamespace(namespace: V1Namespace): Promise<void> {
    await this.#apply({ apiVersion: 'v1', kind: 'Namespace', ...namespace }, 'namespaces', null);
  }

  async deleteNamespace(name: string): Promise<void> {
    await orNull(call('delete', 'namespaces', null, () => this.#core.deleteNamespace({ name })));
  }

  async applyObject(object: V1NetworkPolicy | V1ResourceQuota | V1LimitRange): Promise<void> {
    await this.#apply(object as KubernetesObject, resourceOf(object.kind!), object.metadata?.namespace ?? null);
  }

  async listApps(labelSelector: string): Promise<WalrusApp[]> {
    const list = await call('list', PLURAL, null, () => this.#custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, labelSelector }));
    return (list as { items: WalrusApp[] }).items;
  }

  async applyApp(app: WalrusApp): Promise<void> {
    await this.#apply({ apiVersion: app.apiVersion, kind: app.kind, metadata: app.metadata, spec: app.spec } as KubernetesObject, PLURAL, app.metadata.namespace ?? null);
  }

  async deleteApp(ref: ObjectRef): Promise<void> {
    await orNull(call('delete', PLURAL, ref.namespace, () =>
      this.#custom.deleteNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: ref.namespace, name: ref.name, propagationPolicy: 'Background' })));
  }

  async copySecret(from: ObjectRef, to: string): Promise<void> {
    const secret = await call('get', 'secrets', from.namespace, () => this.#core.readNamespacedSecret({ name: from.name, namespace: from.namespace }));
    await this.#apply({ apiVersion: 'v1', kind: 'Secret', metadata: { name: from.name, namespace: to }, type: secret.type, data: secret.data } as KubernetesObject, 'secrets', to);
  }

  async #apply(object: KubernetesObject, resource: string, namespace: string | null): Promise<void> {
    await call('apply', resource, namespace, () => this.#objects.patch(object, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply));
  }
}
