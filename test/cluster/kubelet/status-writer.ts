/**
 * Writes one pod's status: computed whole from the worker's facts (status.ts), written only when it differs from
 * the last one written, one write at a time. Each write is a merge patch carrying the pod's uid and
 * resourceVersion, so a stale view is re-read and the status recomputed; a pod that is gone (404, or its name
 * now another pod's) is never written again.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { podStatus, statusKey } from './status.ts';
import type { PodFacts } from './status.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const CONFLICT_RETRIES = 5;

export class PodStatusWriter {
  /** The newest version of the pod seen: from the informer (`update`) or from our own writes. */
  #pod: V1Pod;
  readonly #uid: string;
  #lastWritten = '';
  #writing: Promise<void> = Promise.resolve();
  #queued = false;
  #gone = false;
  readonly #core: CoreV1Api;
  readonly #facts: PodFacts;
  readonly #log: (line: string) => void;

  constructor(pod: V1Pod, core: CoreV1Api, facts: PodFacts, log: (line: string) => void) {
    this.#pod = pod;
    this.#core = core;
    this.#facts = facts;
    this.#log = log;
    this.#uid = pod.metadata!.uid!;
  }

  get pod(): V1Pod {
    return this.#pod;
  }

  /** A newer version of the pod from the informer; an older one (its write raced ours) is ignored. */
  update(pod: V1Pod): boolean {
    if (isOlder(pod, this.#pod)) return false;
    this.#pod = pod;
    return true;
  }

  /** The API object is gone (or being finalized without us): nothing is written any more. */
  markGone(): void {
    this.#gone = true;
  }

  /** Schedules a status write; writes are serialized and skipped when nothing changed. */
  report(): void {
    if (this.#gone || this.#queued) return;
    this.#queued = true;
    this.#writing = this.#writing.then(async () => {
      this.#queued = false;
      await this.#write().catch((err) => this.#log(`kubelet: pod ${this.#key}: status update: ${err?.body ?? err}`));
    });
  }

  /** Reports and waits until the write is done. */
  async flush(): Promise<void> {
    this.report();
    await this.#writing;
  }

  get #key(): string {
    return `${this.#pod.metadata?.namespace}/${this.#pod.metadata?.name}`;
  }

  async #write(): Promise<void> {
    if (this.#gone) return;
    const { name, namespace } = this.#pod.metadata as { name: string; namespace: string };
    for (let attempt = 0; ; attempt++) {
      const status = podStatus(this.#pod, this.#facts, new Date());
      const key = statusKey(status);
      if (key === this.#lastWritten) return;
      try {
        // The pod's resourceVersion makes the write conditional: a stale view is re-read and the status recomputed.
        this.#pod = await this.#core.patchNamespacedPodStatus({
          name, namespace, body: { metadata: { uid: this.#uid, resourceVersion: this.#pod.metadata!.resourceVersion }, status },
        }, mergePatch);
        this.#lastWritten = key;
        return;
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code === 404) {
          this.#gone = true;
          return;
        }
        if (code !== 409 || attempt >= CONFLICT_RETRIES) throw err;
        this.#pod = await this.#core.readNamespacedPod({ name, namespace });
        if (this.#pod.metadata?.uid !== this.#uid) {
          this.#gone = true;
          return;
        }
      }
    }
  }
}

/** resourceVersions are opaque, but etcd's are increasing integers: an informer event older than a write we made is skipped. */
function isOlder(pod: V1Pod, than: V1Pod): boolean {
  const [a, b] = [pod.metadata?.resourceVersion, than.metadata?.resourceVersion];
  return !!a && !!b && /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) < BigInt(b);
}
