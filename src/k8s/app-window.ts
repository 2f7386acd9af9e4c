/**
 * The AppWindow port over `@kubernetes/client-node`: the gateway's reads of a lease's app. Errors are typed as the
 * cluster adapter types them (`call`).
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, Log } from '@kubernetes/client-node';
import type { CoreV1Event, KubeConfig, V1ConfigMap, V1Deployment, V1Pod } from '@kubernetes/client-node';
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import type { AppWindow, LogOptions } from '../ports/app-window.ts';
import type { ObjectRef } from '../ports/cluster.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../ports/walrus-app.ts';
import { call, orNull } from './cluster.ts';

export class KubernetesAppWindow implements AppWindow {
  readonly #core: CoreV1Api;
  readonly #apps: AppsV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #log: Log;

  constructor(kc: KubeConfig) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#apps = kc.makeApiClient(AppsV1Api);
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#log = new Log(kc);
  }

  readApp(ref: ObjectRef): Promise<WalrusApp | null> {
    return orNull(call('get', PLURAL, ref.namespace, () =>
      this.#custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, ...ref }) as Promise<WalrusApp>));
  }

  readDeployment(ref: ObjectRef): Promise<V1Deployment | null> {
    return orNull(call('get', 'deployments', ref.namespace, () => this.#apps.readNamespacedDeployment(ref)));
  }

  async listPods(namespace: string, labelSelector: string): Promise<V1Pod[]> {
    return (await call('list', 'pods', namespace, () => this.#core.listNamespacedPod({ namespace, labelSelector }))).items;
  }

  async listEvents(namespace: string): Promise<CoreV1Event[]> {
    return (await call('list', 'events', namespace, () => this.#core.listNamespacedEvent({ namespace }))).items;
  }

  async listConfigMaps(namespace: string, labelSelector: string): Promise<V1ConfigMap[]> {
    return (await call('list', 'configmaps', namespace, () => this.#core.listNamespacedConfigMap({ namespace, labelSelector }))).items;
  }

  readLog(pod: ObjectRef, container: string, options: LogOptions): Promise<string> {
    return call('get', 'pods/log', pod.namespace, () => this.#core.readNamespacedPodLog({ ...pod, container, ...options }));
  }

  async *followLog(pod: ObjectRef, container: string, options: LogOptions, signal: AbortSignal): AsyncIterable<string> {
    const sink = new PassThrough({ highWaterMark: 64 * 1024 });
    const controller = await call('get', 'pods/log', pod.namespace, () => this.#log.log(pod.namespace, pod.name, container, sink, { ...options, follow: true }));
    const stop = () => { controller.abort(); sink.end(); };
    signal.addEventListener('abort', stop, { once: true });
    // The response ends when the container stops; an abort ends it too, and either ends the lines.
    sink.on('error', () => sink.end());
    try {
      for await (const line of createInterface({ input: sink, crlfDelay: Infinity })) {
        if (signal.aborted) break;
        yield line;
      }
    } finally {
      signal.removeEventListener('abort', stop);
      stop();
      sink.destroy();
    }
  }
}
