import type { Cluster, ObjectRef } from '../../ports/cluster.ts';
import type { CursorStore } from './chain-watcher.ts';

/**
 * The chain watcher's cursor in a ConfigMap of the controller's namespace, so a restarted (or newly elected)
 * controller resumes where the last one stopped. The cursor belongs to one package on one network: a ConfigMap
 * written for another is ignored, as if there were none.
 */
export class ConfigMapCursorStore implements CursorStore {
  readonly #cluster: Pick<Cluster, 'readConfigMap' | 'apply'>;
  readonly #ref: ObjectRef;
  readonly #scope: { network: string; packageId: string };

  constructor(cluster: Pick<Cluster, 'readConfigMap' | 'apply'>, ref: ObjectRef, scope: { network: string; packageId: string }) {
    this.#cluster = cluster;
    this.#ref = ref;
    this.#scope = scope;
  }

  async load(): Promise<string | null> {
    const data = (await this.#cluster.readConfigMap(this.#ref))?.data;
    if (!data || data.network !== this.#scope.network || data.packageId !== this.#scope.packageId) return null;
    return data.cursor || null;
  }

  async save(cursor: string): Promise<void> {
    await this.#cluster.apply({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { ...this.#ref, labels: { 'app.kubernetes.io/managed-by': 'walrus-gitops' } },
      data: { ...this.#scope, cursor },
    });
  }
}
