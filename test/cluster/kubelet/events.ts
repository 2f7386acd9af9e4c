/**
 * Events as the kubelet records them (source component `kubelet`, host = the node), so `kubectl describe
 * pod` tells what happened: Pulled, Created, Started, Killing, BackOff, Unhealthy, Failed, FailedMount,
 * DeadlineExceeded, Evicted. Fire and forget: an event that cannot be written is logged, never retried.
 */
import { randomBytes } from 'node:crypto';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  readonly #core: CoreV1Api;
  readonly #nodeName: string;
  readonly #log: (line: string) => void;
  #silenced = false;

  constructor(core: CoreV1Api, nodeName: string, log: (line: string) => void) {
    this.#core = core;
    this.#nodeName = nodeName;
    this.#log = log;
  }

  /** From now on nothing is written: the node is dead (Kubelet.kill). */
  silence(): void {
    this.#silenced = true;
  }

  /** Records an event about the pod, or about one of its containers when `container` is given. */
  record(pod: V1Pod, type: EventType, reason: string, message: string, container?: { name: string; init: boolean }): void {
    if (this.#silenced) return;
    const meta = pod.metadata!;
    const now = new Date();
    const fieldPath = container ? `spec.${container.init ? 'initContainers' : 'containers'}{${container.name}}` : undefined;
    this.#core.createNamespacedEvent({
      namespace: meta.namespace!,
      body: {
        metadata: { name: `${meta.name}.${randomBytes(8).toString('hex')}`, namespace: meta.namespace },
        involvedObject: {
          kind: 'Pod', apiVersion: 'v1', namespace: meta.namespace, name: meta.name, uid: meta.uid,
          resourceVersion: meta.resourceVersion, ...(fieldPath ? { fieldPath } : {}),
        },
        type, reason, message,
        source: { component: 'kubelet', host: this.#nodeName },
        firstTimestamp: now, lastTimestamp: now, count: 1,
        reportingComponent: 'kubelet', reportingInstance: this.#nodeName,
      },
    }).catch((err) => {
      // A namespace being deleted takes no new objects; its pods' last events are dropped, as the kubelet's are.
      if (err?.code === 404 || String(err?.body ?? '').includes('NamespaceTerminating')) return;
      this.#log(`kubelet: event ${reason} for pod ${meta.namespace}/${meta.name}: ${err?.code ?? ''} ${err?.message ?? err}`.split('\n')[0]);
    });
  }
}
