/**
 * A pod's status as the kubelet reports it, computed from what the worker observed (pkg/kubelet/
 * kubelet_pods.go getPhase, pkg/kubelet/status/generate.go). Pure: the result is plain JSON with RFC 3339
 * strings at second precision, so two computations of the same facts compare equal and only real changes
 * are written.
 */
import type { V1Pod } from '@kubernetes/client-node';

export interface Terminated {
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID?: string;
}

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: Terminated };

export interface ContainerFacts {
  name: string;
  image: string;
  state: ContainerState;
  lastState?: Terminated;
  restartCount: number;
  ready: boolean;
  /** Running and past its startup probe (if any). */
  started: boolean;
  containerID?: string;
  /** What the runtime reports the container runs, by digest (images.ts imageID), once it has run. */
  imageID?: string;
}

export interface PodFacts {
  hostIP?: string;
  podIP?: string;
  startTime?: string;
  initContainers: ContainerFacts[];
  containers: ContainerFacts[];
  /** A pod-level failure (DeadlineExceeded, Evicted): phase Failed with this reason and message. */
  failure?: { reason: string; message: string };
}

export interface WireCondition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
  lastProbeTime: null;
  lastTransitionTime: string;
}

export interface WireContainerStatus {
  name: string;
  image: string;
  imageID: string;
  containerID?: string;
  ready: boolean;
  started: boolean;
  restartCount: number;
  state: ContainerState;
  lastState: { terminated?: Terminated };
}

export interface WirePodStatus {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  reason?: string;
  message?: string;
  hostIP?: string;
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: string;
  conditions: WireCondition[];
  initContainerStatuses?: WireContainerStatus[];
  containerStatuses: WireContainerStatus[];
}

/** RFC 3339 at second precision, as the API server stores metav1.Time. */
export const wireTime = (at: Date | number): string => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The terminated state's reason: OOMKilled (its memory limit was reached), Completed (0), ContainerCannotRun (the
 * command never ran: why), else Error.
 */
export function exitReason(exitCode: number, cannotRun?: string, oomKilled = false): { reason: string; message?: string } {
  if (oomKilled) return { reason: 'OOMKilled' };
  if (cannotRun) return { reason: 'ContainerCannotRun', message: cannotRun };
  return { reason: exitCode === 0 ? 'Completed' : 'Error' };
}

/** The phase from container states, by the 1.20 kubelet's rules. */
export function podPhase(restartPolicy: string, facts: PodFacts): WirePodStatus['phase'] {
  if (facts.failure) return 'Failed';
  let pendingInit = 0;
  let failedInit = 0;
  for (const c of facts.initContainers) {
    if ('terminated' in c.state) {
      if (c.state.terminated.exitCode !== 0) failedInit++;
    } else if ('waiting' in c.state && c.lastState && c.lastState.exitCode !== 0) failedInit++;
    else pendingInit++;
  }
  if (failedInit > 0 && restartPolicy === 'Never') return 'Failed';
  if (pendingInit > 0 || failedInit > 0) return 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of facts.containers) {
    if ('running' in c.state) running++;
    else if ('terminated' in c.state) {
      stopped++;
      if (c.state.terminated.exitCode === 0) succeeded++;
    } else if (c.lastState) stopped++;
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    return restartPolicy === 'Never' ? 'Failed' : 'Running';
  }
  return 'Pending';
}

function condition(type: string, ok: boolean, reason: string | undefined, message: string | undefined, previous: V1Pod['status'], now: string): WireCondition {
  const status = ok ? 'True' : 'False';
  const before = previous?.conditions?.find((c) => c.type === type);
  const since = before?.status === status && before.lastTransitionTime ? wireTime(before.lastTransitionTime) : now;
  return { type, status, ...(ok ? {} : { reason, message }), lastProbeTime: null, lastTransitionTime: since };
}

const names = (list: ContainerFacts[]) => `[${list.map((c) => c.name).join(' ')}]`;

function containerStatus(c: ContainerFacts): WireContainerStatus {
  return {
    name: c.name,
    image: c.image,
    imageID: c.containerID ? c.imageID ?? '' : '',
    ...(c.containerID ? { containerID: c.containerID } : {}),
    ready: c.ready,
    started: c.started,
    restartCount: c.restartCount,
    state: c.state,
    lastState: c.lastState ? { terminated: c.lastState } : {},
  };
}

/**
 * The status to report. `previous` is the pod's current status on the server: conditions the kubelet does
 * not own (PodScheduled, readiness gates' conditions) are kept, and a condition's lastTransitionTime only
 * moves when its status does.
 */
export function podStatus(pod: V1Pod, facts: PodFacts, now: Date): WirePodStatus {
  const previous = pod.status;
  const at = wireTime(now);
  const phase = podPhase(pod.spec?.restartPolicy ?? 'Always', facts);
  const completed = phase === 'Succeeded';
  const unfinishedInit = facts.initContainers.filter((c) => !('terminated' in c.state && c.state.terminated.exitCode === 0));
  const unready = facts.containers.filter((c) => !c.ready);
  const initialized = unfinishedInit.length === 0 || completed;
  const gates = (pod.spec?.readinessGates ?? []).map((g) => g.conditionType);
  const gatesOpen = gates.every((type) => previous?.conditions?.some((c) => c.type === type && c.status === 'True'));
  const containersReady = initialized && unready.length === 0 && !completed;
  const notReadyReason = completed ? 'PodCompleted' : unfinishedInit.length === 0 ? 'ContainersNotReady' : 'ContainersNotInitialized';
  const notReadyMessage = completed ? undefined
    : unfinishedInit.length === 0 ? `containers with unready status: ${names(unready)}` : `containers with incomplete status: ${names(unfinishedInit)}`;
  const kubeletOwned = new Set(['Initialized', 'Ready', 'ContainersReady']);
  const conditions = [
    condition('Initialized', initialized, 'ContainersNotInitialized', `containers with incomplete status: ${names(unfinishedInit)}`, previous, at),
    condition('Ready', containersReady && gatesOpen, containersReady ? 'ReadinessGatesNotReady' : notReadyReason,
      containersReady ? `corresponding condition of pod readiness gate not true` : notReadyMessage, previous, at),
    condition('ContainersReady', containersReady, notReadyReason, notReadyMessage, previous, at),
    ...(previous?.conditions ?? []).filter((c) => !kubeletOwned.has(c.type)).map((c) => ({
      type: c.type, status: c.status as 'True' | 'False', ...(c.reason ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}),
      lastProbeTime: null, lastTransitionTime: c.lastTransitionTime ? wireTime(c.lastTransitionTime) : at,
    })),
  ];
  return {
    phase,
    ...(facts.failure ? { reason: facts.failure.reason, message: facts.failure.message } : {}),
    ...(facts.hostIP ? { hostIP: facts.hostIP } : {}),
    ...(facts.podIP ? { podIP: facts.podIP, podIPs: [{ ip: facts.podIP }] } : {}),
    ...(facts.startTime ? { startTime: facts.startTime } : {}),
    conditions,
    ...(facts.initContainers.length ? { initContainerStatuses: facts.initContainers.map(containerStatus) } : {}),
    containerStatuses: facts.containers.map(containerStatus),
  };
}

/** Deterministic JSON for comparing two statuses. */
export function statusKey(status: WirePodStatus): string {
  return JSON.stringify(status, (_key, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]])) : value);
}
