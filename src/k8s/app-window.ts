/**
 * The AppWindow port over `@kubernetes/client-node`: the gateway's reads of a lease's app. Errors are typed as the
 * cluster adapter types them (`call`).
 */
import { AddOptionsToSearchParams, ApiException, AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { CoreV1Event, KubeConfig, V1ConfigMap, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { IncomingMessage } from 'node:http';
import { request, type RequestOptions } from 'node:https';
import { createInterface } from 'node:readline';
import type { AppWindow, LogOptions } from '../ports/app-window.ts';
import type { ObjectRef } from '../ports/cluster.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../ports/walrus-app.ts';
import { call, orNull } from './cluster.ts';

export class KubernetesAppWindow implements AppWindow {
  readonly #core: CoreV1Api;
  readonly #apps: AppsV1Api;
  readonly #custom: CustomObjectsApi;
  readonly #kc: KubeConfig;

  constructor(kc: KubeConfig) {
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#apps = kc.makeApiClient(AppsV1Api);
    this.#custom = kc.makeApiClient(CustomObjectsApi);
    this.#kc = kc;
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

  /**
   * The API's log stream, read here rather than through the client's Log helper: that one pipes a response it keeps
   * to itself, whose abort error (a follower leaving) nothing handles, which ends the process.
   */
  async *followLog(pod: ObjectRef, container: string, options: LogOptions, signal: AbortSignal): AsyncIterable<string> {
    const server = this.#kc.getCurrentCluster()?.server ?? '';
    const url = new URL(`${server}/api/v1/namespaces/${encodeURIComponent(pod.namespace)}/pods/${encodeURIComponent(pod.name)}/log`);
    url.searchParams.set('container', container);
    AddOptionsToSearchParams({ ...options, follow: true }, url.searchParams);
    const requestOptions: RequestOptions = {};
    await this.#kc.applyToHTTPSOptions(requestOptions);
    const response = await call('get', 'pods/log', pod.namespace, () => new Promise<IncomingMessage>((resolve, reject) => {
      const sent = request(url, { ...requestOptions, method: 'GET', signal }, (answer) => {
        if (answer.statusCode === 200) return resolve(answer);
        let body = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('error', reject);
        answer.on('end', () => reject(new ApiException(answer.statusCode ?? 0, `pods/log answered ${answer.statusCode}`, body, {})));
      });
      sent.on('error', reject);
      sent.end();
    }));
    // The response ends when the container stops; an abort (the follower gone) ends it too, and either ends the lines.
    response.on('error', () => response.destroy());
    try {
      for await (const line of createInterface({ input: response, crlfDelay: Infinity })) {
        if (signal.aborted) break;
        yield line;
      }
    } finally {
      response.destroy();
    }
  }
}
