/**
 * A kubelet without containers: there is no container runtime here, so this plays the node's part at the
 * API boundary only, as the real kubelet does it. It registers a Node, renews its Lease and Ready condition,
 * reports the pods bound to it as started (Running and Ready after a delay) and finalizes the ones being
 * deleted. Everything else (scheduling, ReplicaSets, rollouts, Jobs) is the real control plane's work.
 *
 * A pod's annotations choose what its containers do, so tests can drive failed rollouts and rollbacks:
 *   fake-kubelet.test/behavior: ready (default when restartPolicy is Always) | never-ready (running, readiness
 *     never passes) | crash-loop (exits at once, restarted with CrashLoopBackOff) | succeed (default otherwise:
 *     runs, then exits 0) | fail (runs, then exits 1). As on a real node, a container that exits under a
 *     restartPolicy that restarts it crash-loops, and one that crashes under `Never` fails its pod.
 *   fake-kubelet.test/delay-ms: how long "starting" takes for this pod (default: the kubelet's readyDelayMs).
 */
import { CoordinationV1Api, CoreV1Api, PatchStrategy, makeInformer, setHeaderOptions } from '@kubernetes/client-node';
import type { Informer, KubeConfig, ObjectCache, V1Pod } from '@kubernetes/client-node';

export const BEHAVIOR_ANNOTATION = 'fake-kubelet.test/behavior';
export const DELAY_ANNOTATION = 'fake-kubelet.test/delay-ms';
export const POD_BEHAVIORS = ['ready', 'never-ready', 'crash-loop', 'succeed', 'fail'] as const;
export type PodBehavior = (typeof POD_BEHAVIORS)[number];

export interface FakeKubeletOptions {
  nodeName: string;
  /** Time from a pod's binding to its containers running (and, for `succeed`/`fail`, as long again to exit). */
  readyDelayMs?: number;
  /** How often the Lease and the node's conditions are renewed (the real kubelet: 10 s). */
  heartbeatMs?: number;
  /** Where problems talking to the API go (they are retried, never thrown out of event handlers). */
  log?: (line: string) => void;
}

const LEASE_NAMESPACE = 'kube-node-lease';
const LEASE_SECONDS = 40;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** What a pod's containers do, from its annotation, adjusted to what its restartPolicy makes of an exit. */
export function podBehavior(pod: V1Pod): PodBehavior {
  const policy = pod.spec?.restartPolicy ?? 'Always';
  const asked = pod.metadata?.annotations?.[BEHAVIOR_ANNOTATION];
  if (asked !== undefined && !(POD_BEHAVIORS as readonly string[]).includes(asked)) {
    throw new Error(`pod ${pod.metadata?.namespace}/${pod.metadata?.name}: ${BEHAVIOR_ANNOTATION} must be one of ${POD_BEHAVIORS.join(', ')}, not "${asked}"`);
  }
  const behavior = (asked ?? (policy === 'Always' ? 'ready' : 'succeed')) as PodBehavior;
  if (behavior === 'succeed' && policy === 'Always') return 'crash-loop';
  if (behavior === 'fail' && policy !== 'Never') return 'crash-loop';
  if (behavior === 'crash-loop' && policy === 'Never') return 'fail';
  return behavior;
}

/** A container state as sent on the wire (the client's model types want Date objects; the API takes RFC 3339). */
type ContainerState =
  | { running: { startedAt: string } }
  | { waiting: { reason: string; message?: string } }
  | { terminated: { exitCode: number; reason: string; startedAt: string; finishedAt: string } };

interface Tracked {
  timer?: NodeJS.Timeout;
  restarts: number;
  finalizing: boolean;
}

export class FakeKubelet {
  readonly nodeName: string;
  readonly #core: CoreV1Api;
  readonly #leases: CoordinationV1Api;
  readonly #kc: KubeConfig;
  readonly #readyDelayMs: number;
  readonly #heartbeatMs: number;
  readonly #log: (line: string) => void;
  readonly #pods = new Map<string, Tracked>();
  readonly #startedAt = new Date();
  #informer?: Informer<V1Pod> & ObjectCache<V1Pod>;
  #heartbeat?: NodeJS.Timeout;
  #nextIp = 2;
  #stopped = false;

  constructor(kc: KubeConfig, options: FakeKubeletOptions) {
    this.#kc = kc;
    this.nodeName = options.nodeName;
    this.#readyDelayMs = options.readyDelayMs ?? 300;
    this.#heartbeatMs = options.heartbeatMs ?? 5000;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#leases = kc.makeApiClient(CoordinationV1Api);
  }

  /** Registers the node and returns once the control plane treats it as schedulable. */
  async start(): Promise<void> {
    const node = await this.#core.createNode({
      body: {
        metadata: {
          name: this.nodeName,
          labels: { 'kubernetes.io/hostname': this.nodeName, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' },
        },
      },
    });
    await this.#leases.createNamespacedLease({
      namespace: LEASE_NAMESPACE,
      body: {
        metadata: {
          name: this.nodeName,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.nodeName, uid: node.metadata!.uid! }],
        },
        spec: { holderIdentity: this.nodeName, leaseDurationSeconds: LEASE_SECONDS },
      },
    });
    await this.#beat();
    this.#heartbeat = setInterval(() => this.#beat().catch((err) => this.#log(`fake-kubelet ${this.nodeName}: heartbeat: ${err}`)), this.#heartbeatMs);
    this.#heartbeat.unref();
    await this.#watchPods();
    // New nodes carry the not-ready taint until the node lifecycle controller sees them Ready.
    await this.#untilSchedulable();
  }

  /** Stops reporting and removes the node, so the scheduler never picks a node nobody plays any more. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#heartbeat);
    for (const tracked of this.#pods.values()) clearTimeout(tracked.timer);
    await this.#informer?.stop();
    await this.#core.deleteNode({ name: this.nodeName }).catch(() => {});
  }

  async #beat(): Promise<void> {
    const now = new Date().toISOString();
    const condition = (type: string, status: string, reason: string, message: string) => ({
      type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: this.#startedAt.toISOString(),
    });
    const resources = { cpu: '16', memory: '64Gi', pods: '250', 'ephemeral-storage': '100Gi' };
    await this.#core.patchNodeStatus({
      name: this.nodeName,
      body: {
        status: {
          capacity: resources,
          allocatable: resources,
          conditions: [
            condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
            condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
            condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
            condition('Ready', 'True', 'KubeletReady', 'fake kubelet is posting ready status'),
          ],
          addresses: [{ type: 'InternalIP', address: '127.0.0.1' }, { type: 'Hostname', address: this.nodeName }],
          nodeInfo: {
            machineID: this.nodeName, systemUUID: this.nodeName, bootID: this.#startedAt.toISOString(),
            kernelVersion: 'fake', osImage: 'fake', containerRuntimeVersion: 'fake://0', kubeletVersion: 'v1.20.2',
            kubeProxyVersion: 'v1.20.2', operatingSystem: 'linux', architecture: 'amd64',
          },
        },
      },
    }, mergePatch);
    await this.#leases.patchNamespacedLease({
      name: this.nodeName,
      namespace: LEASE_NAMESPACE,
      // Lease times are MicroTime: RFC 3339 with exactly six fractional digits.
      body: { spec: { renewTime: now.replace(/\.(\d{3})Z$/, '.$1000Z'), holderIdentity: this.nodeName } },
    }, mergePatch);
  }

  async #untilSchedulable(): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const node = await this.#core.readNode({ name: this.nodeName });
      const taints = node.spec?.taints ?? [];
      if (!taints.some((t) => t.key.startsWith('node.kubernetes.io/'))) return;
      if (Date.now() > deadline) throw new Error(`node ${this.nodeName} still tainted after 60s: ${JSON.stringify(taints)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async #watchPods(): Promise<void> {
    const fieldSelector = `spec.nodeName=${this.nodeName}`;
    const informer = makeInformer<V1Pod>(this.#kc, `/api/v1/pods?fieldSelector=${encodeURIComponent(fieldSelector)}`,
      () => this.#core.listPodForAllNamespaces({ fieldSelector }));
    const onPod = (pod: V1Pod) => this.#onPod(pod).catch((err) => this.#log(`fake-kubelet ${this.nodeName}: pod ${podKey(pod)}: ${err}`));
    informer.on('add', onPod);
    informer.on('update', onPod);
    informer.on('delete', (pod) => {
      clearTimeout(this.#pods.get(pod.metadata!.uid!)?.timer);
      this.#pods.delete(pod.metadata!.uid!);
    });
    // The informer stops on errors (an expired watch, an apiserver hiccup); a kubelet keeps going.
    informer.on('error', (err) => {
      if (this.#stopped) return;
      this.#log(`fake-kubelet ${this.nodeName}: pod watch: ${err}; restarting`);
      setTimeout(() => { if (!this.#stopped) informer.start().catch(() => {}); }, 1000).unref();
    });
    this.#informer = informer;
    await informer.start();
  }

  async #onPod(pod: V1Pod): Promise<void> {
    const uid = pod.metadata!.uid!;
    let tracked = this.#pods.get(uid);
    if (pod.metadata?.deletionTimestamp) {
      if (tracked?.finalizing) return;
      if (tracked) clearTimeout(tracked.timer);
      this.#pods.set(uid, { restarts: tracked?.restarts ?? 0, finalizing: true });
      // Containers are "stopped" at once; the kubelet's final delete (grace 0) is what removes a bound pod.
      // With a body, the apiserver reads the options from it alone (query parameters are ignored).
      await this.#core.deleteNamespacedPod({
        name: pod.metadata.name!, namespace: pod.metadata.namespace!, body: { gracePeriodSeconds: 0, preconditions: { uid } },
      }).catch((err) => { if (err?.code !== 404 && err?.code !== 409) throw err; });
      return;
    }
    if (tracked) return;
    tracked = { restarts: 0, finalizing: false };
    this.#pods.set(uid, tracked);

    const behavior = podBehavior(pod);
    const requested = Number(pod.metadata?.annotations?.[DELAY_ANNOTATION]);
    const delay = Number.isFinite(requested) && requested >= 0 ? requested : this.#readyDelayMs;
    const ip = `10.244.0.${this.#nextIp++ % 250 + 2}`;
    const startTime = new Date().toISOString();
    await this.#report(pod, 'Pending', { waiting: { reason: 'ContainerCreating' } }, false, { ip, startTime });

    const later = (ms: number, step: () => Promise<void>) => {
      tracked.timer = setTimeout(() => {
        if (this.#stopped || tracked.finalizing) return;
        step().catch((err) => this.#log(`fake-kubelet ${this.nodeName}: pod ${podKey(pod)}: ${err}`));
      }, ms);
      tracked.timer.unref();
    };
    const running: ContainerState = { running: { startedAt: new Date(Date.now() + delay).toISOString() } };
    const exited = (exitCode: number): ContainerState => ({
      terminated: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: startTime, finishedAt: new Date().toISOString() },
    });
    const crash = async () => {
      tracked.restarts++;
      await this.#report(pod, 'Running', { waiting: { reason: 'CrashLoopBackOff', message: 'back-off restarting failed container' } },
        false, { ip, startTime, restarts: tracked.restarts, lastState: exited(1) });
      later(Math.max(delay, 500), crash);
    };
    later(delay, async () => {
      switch (behavior) {
        case 'ready': return this.#report(pod, 'Running', running, true, { ip, startTime });
        case 'never-ready': return this.#report(pod, 'Running', running, false, { ip, startTime });
        case 'crash-loop': return crash();
        case 'succeed':
        case 'fail':
          await this.#report(pod, 'Running', running, false, { ip, startTime });
          later(delay, () => this.#report(pod, behavior === 'succeed' ? 'Succeeded' : 'Failed',
            exited(behavior === 'succeed' ? 0 : 1), false, { ip, startTime }));
      }
    });
  }

  /** Writes the pod's status as the kubelet would: phase, conditions and one status per container. */
  async #report(pod: V1Pod, phase: string, state: ContainerState, ready: boolean,
    extra: { ip: string; startTime: string; restarts?: number; lastState?: ContainerState }): Promise<void> {
    const now = new Date().toISOString();
    const terminal = phase === 'Succeeded' || phase === 'Failed';
    const notReadyReason = terminal ? 'PodCompleted' : 'ContainersNotReady';
    const condition = (type: string, ok: boolean) => ({
      type, status: ok ? 'True' : 'False', lastTransitionTime: now,
      ...(ok ? {} : { reason: notReadyReason }),
    });
    await this.#core.patchNamespacedPodStatus({
      name: pod.metadata!.name!,
      namespace: pod.metadata!.namespace!,
      body: {
        metadata: { uid: pod.metadata!.uid },
        status: {
          phase,
          hostIP: '127.0.0.1',
          podIP: phase === 'Pending' ? undefined : extra.ip,
          podIPs: phase === 'Pending' ? undefined : [{ ip: extra.ip }],
          startTime: extra.startTime,
          conditions: [
            condition('Initialized', true),
            condition('Ready', ready),
            condition('ContainersReady', ready),
            { type: 'PodScheduled', status: 'True', lastTransitionTime: extra.startTime },
          ],
          containerStatuses: (pod.spec?.containers ?? []).map((c) => ({
            name: c.name,
            image: c.image,
            imageID: `fake://${c.image}`,
            containerID: phase === 'Pending' ? undefined : `fake://${pod.metadata!.uid}/${c.name}`,
            ready,
            started: 'running' in state,
            restartCount: extra.restarts ?? 0,
            state,
            lastState: extra.lastState ?? {},
          })),
        },
      },
    }, mergePatch);
  }
}

const podKey = (pod: V1Pod) => `${pod.metadata?.namespace}/${pod.metadata?.name}`;
