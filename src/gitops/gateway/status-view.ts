/**
 * The answers of the gateway's status, releases and events paths (docs/architecture.md, The provider's gateway, API),
 * from the app, its Deployment, pods, events and kept build output as the cluster has them. Pure.
 */
import type { CoreV1Event, V1ConfigMap, V1ContainerStatus, V1Deployment, V1Pod } from '@kubernetes/client-node';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import type { ContainerView, EventView, PodView, ReleaseOutput, ReleaseView, StatusView } from '../../ports/gateway-api.ts';
import { parseReleaseOutput } from '../templates/release-output.ts';
import { ANNOTATIONS } from '../templates/names.ts';
import { leaseEndLine } from '../../core/lease-end.ts';
import type { LeaseInfo } from '../../ports/market.ts';

/**
 * What a lease's app looks like now, in the tenant's words: `pods` are the app's own, `buildPods` its build Jobs'
 * (the step a build is at is the one its pod runs). Once the lease has ended the phase is `Ended`, saying why as the
 * chain recorded it, whatever is left of the app.
 */
export function statusView(lease: Pick<LeaseInfo, 'id' | 'end'>, ref: { namespace: string; name: string }, app: WalrusApp | null, deployment: V1Deployment | null,
  pods: readonly V1Pod[], buildPods: readonly V1Pod[] = []): StatusView {
  const status = app?.status ?? {};
  const conditions = (status.conditions ?? []).map(({ type, status: value, reason, message, lastTransitionTime }) => ({ type, status: value, reason, message, time: lastTransitionTime }));
  const history = status.history ?? [];
  const serving = status.lastAppliedRevision ?? null;
  const live = history.find((entry) => entry.result === 'Released' && entry.commit === serving);
  const refusedEntry = history.find((entry) => entry.result !== 'Released');
  const refusedReason = (entry: typeof refusedEntry) => {
    if (!entry) return '';
    if (entry.result !== 'BuildFailed') return entry.result;
    // The build's own reason (TestsFailed, ManifestInvalid, QuotaExceeded…) is the Built condition's when it is that commit's.
    const built = status.conditions?.find((condition) => condition.type === 'Built');
    return built?.status === 'False' && status.failedRevision === entry.commit ? built.reason : 'BuildFailed';
  };
  const refused = refusedEntry && status.failedRevision === refusedEntry.commit
    ? { commit: refusedEntry.commit, reason: refusedReason(refusedEntry), message: refusedEntry.message, time: refusedEntry.time }
    : null;
  const built = status.conditions?.find((condition) => condition.type === 'Built');
  const building = status.build && built?.status === 'Unknown'
    ? { commit: status.build.commit, attempt: status.build.attempt, step: buildStep(buildPods, status.build.commit) } : null;
  const podViews = pods.map(podView).sort((a, b) => a.name.localeCompare(b.name));
  const replicas = {
    desired: deployment?.spec?.replicas ?? 0,
    ready: deployment?.status?.readyReplicas ?? 0,
    updated: deployment?.status?.updatedReplicas ?? 0,
  };
  const ended = lease.end ? { reason: lease.end.reason, by: lease.end.by, at: new Date(lease.end.atMs).toISOString(), message: leaseEndLine(lease.end) } : null;
  const { phase, message } = ended
    ? { phase: 'Ended', message: `the lease ended: ${ended.message}${app ? '; the provider removes its app' : ''}` }
    : phaseOf(app, status, replicas, podViews, building, refused);
  return {
    lease: lease.id, app: ref, phase, message, ended, replicas,
    serving: serving ? { commit: serving, since: live?.time ?? null } : null,
    refused, building, head: status.head?.commit ?? null, url: status.url ?? null, conditions, pods: podViews,
  };
}

function phaseOf(app: WalrusApp | null, status: NonNullable<WalrusApp['status']>, replicas: StatusView['replicas'], pods: readonly PodView[], building: StatusView['building'], refused: StatusView['refused']): { phase: string; message: string } {
  if (!app) return { phase: 'NotDeployed', message: 'the provider has no app for this lease (yet): it makes one on its next pass over its leases' };
  const ready = status.conditions?.find((condition) => condition.type === 'Ready');
  const crashing = pods.flatMap((pod) => pod.containers.filter((container) => container.reason === 'CrashLoopBackOff' || container.lastTermination).map((container) => ({ pod, container })));
  if (building) return { phase: 'Building', message: `building ${building.commit.slice(0, 12)}${building.attempt > 1 ? ` (attempt ${building.attempt})` : ''}` };
  if (crashing.some(({ container }) => container.reason === 'CrashLoopBackOff')) {
    const { pod, container } = crashing.find(({ container }) => container.reason === 'CrashLoopBackOff')!;
    const last = container.lastTermination;
    return { phase: 'Failing', message: `${pod.name} is crash-looping (${container.restarts} restart${container.restarts === 1 ? '' : 's'}${last ? `, last exit ${last.reason ?? 'Error'} code ${last.exitCode}` : ''})` };
  }
  if (status.head && status.head.commit === refused?.commit) return { phase: 'Refused', message: `${refused.commit.slice(0, 12)} was refused (${refused.reason})${status.lastAppliedRevision ? `; ${status.lastAppliedRevision.slice(0, 12)} keeps serving` : ''}` };
  if (replicas.desired > 0 && (replicas.updated < replicas.desired || replicas.ready < replicas.desired)) {
    return { phase: 'RollingOut', message: `${replicas.ready} of ${replicas.desired} replicas ready, ${replicas.updated} updated` };
  }
  if (ready?.status === 'True' && status.lastAppliedRevision) return { phase: 'Live', message: `${status.lastAppliedRevision.slice(0, 12)} serves${status.url ? ` at ${status.url}` : ''}` };
  return { phase: 'Waiting', message: ready?.message || 'waiting for the controller' };
}

/** The step (init container, then the last one) the newest build pod of `commit` runs now; null before any runs. */
export function buildStep(buildPods: readonly V1Pod[], commit: string): string | null {
  const pod = buildPods
    .filter((candidate) => candidate.metadata?.annotations?.[ANNOTATIONS.commit] === commit)
    .sort((a, b) => String(b.metadata?.creationTimestamp ?? '').localeCompare(String(a.metadata?.creationTimestamp ?? '')))[0];
  const steps = [...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])];
  return steps.find((step) => step.state?.running)?.name ?? null;
}

function podView(pod: V1Pod): PodView {
  const containers = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])].map(containerView);
  const ready = pod.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ?? false;
  return {
    name: pod.metadata?.name ?? '?', phase: pod.status?.phase ?? 'Unknown', ready,
    restarts: containers.reduce((sum, container) => sum + container.restarts, 0),
    ...(pod.metadata?.annotations?.[ANNOTATIONS.commit] ? { commit: pod.metadata.annotations[ANNOTATIONS.commit] } : {}),
    containers,
  };
}

function containerView(container: V1ContainerStatus): ContainerView {
  const { running, waiting, terminated } = container.state ?? {};
  const state = running ? 'running' : terminated ? 'terminated' : 'waiting';
  const reason = waiting?.reason ?? terminated?.reason;
  const message = waiting?.message ?? terminated?.message;
  const last = container.lastState?.terminated;
  return {
    name: container.name, state, ...(reason ? { reason } : {}), ...(terminated ? { exitCode: terminated.exitCode } : {}),
    ...(message ? { message: message.slice(-2000) } : {}), restarts: container.restartCount ?? 0,
    ...(last ? { lastTermination: { ...(last.reason ? { reason: last.reason } : {}), exitCode: last.exitCode, ...(last.finishedAt ? { finishedAt: new Date(last.finishedAt).toISOString() } : {}) } } : {}),
  };
}

/** The app's releases and refusals, newest first, each with its kept build output when there is some. */
export function releasesView(app: WalrusApp | null, configMaps: readonly V1ConfigMap[]): ReleaseView[] {
  const outputs = configMaps.map(parseReleaseOutput).filter((output): output is ReleaseOutput => output !== null).sort((a, b) => b.time.localeCompare(a.time));
  const history = app?.status?.history ?? [];
  const views: ReleaseView[] = history.map((entry) => {
    const output = outputs.find((candidate) => candidate.commit === entry.commit) ?? null;
    const result = entry.result === 'BuildFailed' && output && output.result !== 'Built' ? output.result : entry.result;
    return { commit: entry.commit, result, time: entry.time, message: entry.message, output };
  });
  // A build whose outcome is not (yet) in the history (in progress, or one the history no longer holds).
  for (const output of outputs) {
    if (!views.some((view) => view.commit === output.commit)) views.push({ commit: output.commit, result: output.result, time: output.time, message: '', output });
  }
  return views.sort((a, b) => b.time.localeCompare(a.time));
}

/** The namespace's events about the app, its pods, its Deployment and its build Jobs, newest first. */
export function eventsView(events: readonly CoreV1Event[], appName: string, limit: number): EventView[] {
  const ours = (name: string) => name === appName || name.startsWith(`${appName}-`);
  return events
    .filter((event) => ours(event.involvedObject.name ?? ''))
    .map((event) => ({
      time: new Date(event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata.creationTimestamp ?? 0).toISOString(),
      type: event.type ?? 'Normal', reason: event.reason ?? '', object: `${event.involvedObject.kind ?? ''}/${event.involvedObject.name ?? ''}`,
      message: event.message ?? '', count: event.count ?? 1,
    }))
    .sort((a, b) => b.time.localeCompare(a.time))
    .slice(0, limit);
}
