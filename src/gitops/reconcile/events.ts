import type { Cluster } from '../../ports/cluster.ts';
import { API_VERSION, KIND, type WalrusApp } from '../../ports/walrus-app.ts';
import { messageOf } from '../../core/errors.ts';

export type EventType = 'Normal' | 'Warning';

/** How long a recorded event is remembered for aggregation (client-go's event cache keeps them for a while too). */
const REMEMBER_MS = 10 * 60_000;

/**
 * Kubernetes Events (core/v1) about WalrusApps, as `kubectl describe` and `kubectl get events` show them. The same
 * event again (same object, type, reason, message) bumps the recorded one's count and last time instead of creating
 * another, as client-go's EventRecorder aggregates. A failure to record never fails a reconcile: it is logged.
 */
export class EventRecorder {
  readonly #cluster: Pick<Cluster, 'createEvent' | 'patchEventCount'>;
  readonly #component: string;
  readonly #instance: string;
  readonly #log: (line: string) => void;
  readonly #seen = new Map<string, { name: string; count: number; at: number }>();

  constructor(options: { cluster: Pick<Cluster, 'createEvent' | 'patchEventCount'>; component: string; instance: string; log: (line: string) => void }) {
    this.#cluster = options.cluster;
    this.#component = options.component;
    this.#instance = options.instance;
    this.#log = options.log;
  }

  async record(app: WalrusApp, type: EventType, reason: string, message: string): Promise<void> {
    const { namespace, name, uid } = app.metadata;
    const now = new Date();
    this.#log(`${namespace}/${name}: ${type} ${reason}: ${message.split('\n')[0]}`);
    const key = JSON.stringify([uid ?? `${namespace}/${name}`, type, reason, message]);
    const seen = this.#seen.get(key);
    try {
      if (seen && now.getTime() - seen.at < REMEMBER_MS) {
        seen.count++;
        seen.at = now.getTime();
        await this.#cluster.patchEventCount({ namespace, name: seen.name }, seen.count, now);
        return;
      }
      const eventName = `${name}.${now.getTime().toString(16)}${Math.floor(Math.random() * 0xffff).toString(16)}`;
      await this.#cluster.createEvent({
        metadata: { name: eventName, namespace },
        involvedObject: { apiVersion: API_VERSION, kind: KIND, name, namespace, uid, resourceVersion: app.metadata.resourceVersion },
        type, reason, message: message.slice(0, 1024),
        source: { component: this.#component },
        reportingComponent: this.#component,
        reportingInstance: this.#instance,
        firstTimestamp: now, lastTimestamp: now, count: 1,
      });
      this.#seen.set(key, { name: eventName, count: 1, at: now.getTime() });
      for (const [old, entry] of this.#seen) if (now.getTime() - entry.at > REMEMBER_MS) this.#seen.delete(old);
    } catch (error) {
      this.#log(`could not record event ${reason} on ${namespace}/${name}: ${messageOf(error)}`);
    }
  }
}
