/**
 * What a GitOps test prints when a wait fails: the WalrusApp's conditions and history, its build Jobs and their pods'
 * container states (exit codes, reasons, termination messages) with the last log lines of each failed container and
 * of each init container that completed (what it did is what the containers after it rely on), the namespace's last
 * events and the tail of each controller's output. One recorder per test file:
 *
 *   const diagnostics = new GitopsDiagnostics({ kc, cluster, apps: () => [{ namespace, name: 'hello' }], controllers: () => controllers });
 *   diagnostics.start();     // records every pod it sees, so a build pod the controller deleted still shows
 *   test('…', () => explained(() => diagnostics, async () => { … }));  // a failure's message gains the report
 *   diagnostics.stop();
 *
 * A build pod lives only until the controller records its outcome (then the Job goes, and the kubelet removes the
 * pod's log with the pod, often within a second), so the recorder watches the pods and keeps each one's last status
 * and, the moment a container is seen failed or an init container completed, its log lines (read again for the report
 * while the pod is there).
 */
import { readFile } from 'node:fs/promises';
import { BatchV1Api, CoreV1Api, CustomObjectsApi, Watch } from '@kubernetes/client-node';
import type { CoreV1Event, KubeConfig, V1ContainerState, V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../../src/ports/walrus-app.ts';
import type { Cluster } from '../../cluster/node/node.ts';
import type { ControllerProcess } from '../../../scripts/harness/gitops.ts';
import { containerLines } from './pods.ts';

const LOG_LINES = 20;
/** A completed init container's last lines: its summary (e.g. `Unpacked artifact … into /app`), not its whole output. */
const INIT_LOG_LINES = 3;
const EVENTS = 30;
const CONTROLLER_LINES = 40;
/** How often the recorder looks for new namespaces to watch, and restarts a watch that ended. */
const TICK_MS = 1000;
/** Each read of the report is bounded: a report that hangs on a stuck API server would hide the failure it explains. */
const READ_MS = 10_000;

export interface AppRef {
  namespace: string;
  name: string;
}

export interface DiagnosticsOptions {
  kc: KubeConfig;
  cluster: Cluster;
  /** The apps to explain (a provider's apps appear as the test goes). */
  apps(): AppRef[];
  controllers(): ControllerProcess[];
}

interface SeenPod {
  pod: V1Pod;
  deleted: boolean;
  /** Log lines of each failed container and each completed init container (name → lines), read while the pod existed. */
  logs: Map<string, string[]>;
}

export class GitopsDiagnostics {
  readonly #options: DiagnosticsOptions;
  readonly #pods = new Map<string, SeenPod>();
  /** namespace → its running watch (undefined while one is being started). */
  readonly #watches = new Map<string, AbortController | undefined>();
  #timer: NodeJS.Timeout | undefined;
  #reading = new Set<Promise<void>>();

  constructor(options: DiagnosticsOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer) return;
    const tick = () => {
      for (const namespace of new Set(this.#options.apps().map((app) => app.namespace))) {
        if (!this.#watches.has(namespace)) this.#watch(namespace);
      }
      this.#timer = setTimeout(tick, TICK_MS);
    };
    tick();
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const watch of this.#watches.values()) watch?.abort();
    this.#watches.clear();
    await Promise.all(this.#reading);
  }

  /** Watches the namespace's pods; when the watch ends (the client cuts watches short), the next tick starts another. */
  #watch(namespace: string): void {
    this.#watches.set(namespace, undefined);
    const ended = () => { if (this.#watches.get(namespace) === controller) this.#watches.delete(namespace); };
    let controller: AbortController | undefined;
    new Watch(this.#options.kc).watch(`/api/v1/namespaces/${namespace}/pods`, {}, (type: string, pod: V1Pod) => {
      if (type === 'DELETED') {
        const seen = this.#pods.get(pod.metadata?.uid ?? '');
        if (seen) seen.deleted = true;
      } else if (type === 'ADDED' || type === 'MODIFIED') this.#see(pod);
    }, ended).then((started) => {
      controller = started;
      if (this.#timer && this.#watches.has(namespace) && this.#watches.get(namespace) === undefined) this.#watches.set(namespace, started);
      else started.abort();
    }, () => this.#watches.delete(namespace));
  }

  #see(pod: V1Pod): void {
    const uid = pod.metadata!.uid!;
    const seen = this.#pods.get(uid) ?? { pod, deleted: false, logs: new Map<string, string[]>() };
    seen.pod = pod;
    this.#pods.set(uid, seen);
    for (const [container, lines] of endedContainers(pod)) {
      if (!seen.logs.has(container)) this.#readLog(seen, container, lines);
    }
  }

  #readLog(seen: SeenPod, container: string, lines: number): void {
    if (!seen.logs.has(container)) seen.logs.set(container, []);
    const reading = this.#logOf(seen.pod, container, lines).then((read) => { if (read.length) seen.logs.set(container, read); });
    this.#reading.add(reading);
    void reading.finally(() => this.#reading.delete(reading));
  }

  /** Lists the pods now (what a watch being restarted may have missed), marking those gone as deleted. */
  async #list(): Promise<void> {
    const core = this.#options.kc.makeApiClient(CoreV1Api);
    for (const namespace of new Set(this.#options.apps().map((app) => app.namespace))) {
      const listed = await bounded(core.listNamespacedPod({ namespace }));
      if (!listed) continue;
      const present = new Set(listed.items.map((pod) => pod.metadata!.uid!));
      for (const pod of listed.items) this.#see(pod);
      for (const seen of this.#pods.values()) {
        if (seen.pod.metadata!.namespace !== namespace) continue;
        if (!present.has(seen.pod.metadata!.uid!)) seen.deleted = true;
        // Lines written since a container was first seen ended (its last ones may not have been in the log yet).
        else for (const [container, lines] of endedContainers(seen.pod)) this.#readLog(seen, container, lines);
      }
    }
    await Promise.all(this.#reading);
  }

  async #logOf(pod: V1Pod, container: string, lines: number): Promise<string[]> {
    const { nodes } = this.#options.cluster;
    const node = nodes.find((candidate) => candidate.name === pod.spec?.nodeName) ?? nodes[0];
    const path = node.podLogPath(pod.metadata!.namespace!, pod.metadata!.name!);
    return containerLines(await readFile(path, 'utf8').catch(() => ''), container).slice(-lines);
  }

  /** The whole report, read now (pods also from what the recorder saw before they were deleted). */
  async report(): Promise<string> {
    await this.#list().catch(() => {});
    const { kc } = this.#options;
    const objects = kc.makeApiClient(CustomObjectsApi);
    const batch = kc.makeApiClient(BatchV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    const out: string[] = [];
    for (const ref of this.#options.apps()) {
      out.push(`── diagnostics: WalrusApp ${ref.namespace}/${ref.name} ──`);
      const app = await bounded(objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: ref.namespace, name: ref.name }) as Promise<WalrusApp>);
      out.push(...(app ? describeApp(app) : ['  (the app could not be read)']));
      const jobs = await bounded(batch.listNamespacedJob({ namespace: ref.namespace }));
      out.push(`jobs (${jobs?.items.length ?? '?'}):`, ...(jobs?.items ?? []).map(describeJob));
    }
    const namespaces = new Set(this.#options.apps().map((app) => app.namespace));
    const pods = [...this.#pods.values()].filter((seen) => namespaces.has(seen.pod.metadata!.namespace!));
    out.push(`pods (${pods.length} seen, deleted ones as last seen):`);
    for (const seen of pods) out.push(...describePod(seen));
    for (const namespace of namespaces) {
      const events = await bounded(core.listNamespacedEvent({ namespace }));
      const sorted = (events?.items ?? []).sort((a, b) => eventTime(a) - eventTime(b)).slice(-EVENTS);
      out.push(`events in ${namespace} (last ${sorted.length}):`, ...sorted.map(describeEvent));
    }
    for (const controller of this.#options.controllers()) {
      const lines = controller.output().trimEnd().split('\n').slice(-CONTROLLER_LINES);
      out.push(`controller ${controller.identity} (last ${lines.length} lines):`, ...lines.map((line) => `  | ${line}`));
    }
    return out.join('\n');
  }
}

/**
 * Runs `body`; if it throws, the error's message gains the report of the diagnostics `current()` returns then (made
 * inside the body once the cluster is up; none yet, nothing added). uvu prints the messages at the end of the run.
 */
export async function explained<T>(current: () => GitopsDiagnostics | undefined, body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    const diagnostics = current();
    if (!diagnostics) throw error;
    const report = await diagnostics.report().catch((failure: unknown) => `(the diagnostics failed: ${String(failure)})`);
    if (error instanceof Error) {
      error.message = `${error.message}\n${report}`;
      throw error;
    }
    throw new Error(`${String(error)}\n${report}`);
  }
}

function bounded<T>(request: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([request.catch(() => undefined), new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), READ_MS); })])
    .finally(() => clearTimeout(timer));
}

/** The containers whose lines the report shows (name → how many): each failed one, and each init container that completed. */
function endedContainers(pod: V1Pod): Map<string, number> {
  const failed = (container: V1ContainerStatus) =>
    (container.state?.terminated?.exitCode ?? 0) !== 0 || (container.lastState?.terminated?.exitCode ?? 0) !== 0;
  const ended = new Map<string, number>();
  for (const container of pod.status?.initContainerStatuses ?? []) {
    if (failed(container)) ended.set(container.name, LOG_LINES);
    else if (container.state?.terminated) ended.set(container.name, INIT_LOG_LINES);
  }
  for (const container of pod.status?.containerStatuses ?? []) if (failed(container)) ended.set(container.name, LOG_LINES);
  return ended;
}

function describeApp(app: WalrusApp): string[] {
  const status = app.status ?? {};
  const short = (commit: string | undefined) => commit?.slice(0, 12) ?? '-';
  const lines = [
    `  generation ${app.metadata.generation} observed ${status.observedGeneration ?? '-'}; head ${short(status.head?.commit)}, lastApplied ${short(status.lastAppliedRevision)}, failed ${short(status.failedRevision)}, artifact ${short(status.artifact?.commit)}`,
    '  conditions:',
    ...(status.conditions ?? []).map((c) => `    ${c.type}=${c.status} ${c.reason} (since ${c.lastTransitionTime}): ${indent(c.message, 6)}`),
  ];
  if (status.history?.length) lines.push('  history:', ...status.history.map((h) => `    ${h.time} ${short(h.commit)} ${h.result}${h.message ? `: ${indent(h.message, 6)}` : ''}`));
  return lines;
}

function describeJob(job: V1Job): string {
  const s = job.status ?? {};
  const conditions = (s.conditions ?? []).map((c) => `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? ` (${c.message})` : ''}`).join('; ');
  return `  ${job.metadata!.name}: active ${s.active ?? 0}, succeeded ${s.succeeded ?? 0}, failed ${s.failed ?? 0}, started ${s.startTime?.toISOString?.() ?? s.startTime ?? '-'}${conditions ? `; ${conditions}` : ''}`;
}

function describePod(seen: SeenPod): string[] {
  const { pod } = seen;
  const s = pod.status ?? {};
  const lines = [`  pod ${pod.metadata!.name}${seen.deleted ? ' (deleted)' : ''}: ${s.phase ?? '?'}${s.reason ? ` ${s.reason}` : ''}${s.message ? `: ${s.message}` : ''}`];
  const statuses = [...(s.initContainerStatuses ?? []).map((c) => ['init', c] as const), ...(s.containerStatuses ?? []).map((c) => ['', c] as const)];
  for (const [kind, container] of statuses) {
    lines.push(`    ${kind ? `${kind} ` : ''}${container.name}: ${describeState(container.state)}${container.restartCount ? `, ${container.restartCount} restarts, last ${describeState(container.lastState)}` : ''}${container.ready ? ', ready' : ''}`);
    const log = seen.logs.get(container.name);
    if (log) lines.push(log.length ? `      last ${log.length} log lines:` : '      (no log lines)', ...log.map((line) => `      | ${line}`));
  }
  const conditions = (s.conditions ?? []).filter((c) => c.status !== 'True').map((c) => `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}`);
  if (conditions.length) lines.push(`    not true: ${conditions.join(', ')}`);
  return lines;
}

function describeState(state: V1ContainerState | undefined): string {
  if (state?.terminated) {
    const t = state.terminated;
    return `terminated ${t.exitCode}${t.signal ? ` (signal ${t.signal})` : ''} ${t.reason ?? ''}${t.message ? `: ${indent(t.message.trim(), 8)}` : ''}`;
  }
  if (state?.running) return `running since ${state.running.startedAt?.toISOString?.() ?? state.running.startedAt}`;
  if (state?.waiting) return `waiting ${state.waiting.reason ?? ''}${state.waiting.message ? `: ${state.waiting.message}` : ''}`;
  return 'no state';
}

function describeEvent(event: CoreV1Event): string {
  const count = (event.count ?? 1) > 1 ? ` ×${event.count}` : '';
  const when = new Date(eventTime(event)).toISOString().slice(11, 19);
  return `  ${when} ${event.type} ${event.reason} ${event.involvedObject.kind}/${event.involvedObject.name}${count}: ${indent(event.message ?? '', 4)}`;
}

function eventTime(event: CoreV1Event): number {
  const time = event.lastTimestamp ?? event.eventTime ?? event.firstTimestamp ?? event.metadata.creationTimestamp;
  return time ? new Date(time).getTime() : 0;
}

/**
 * A multi-line text from the cluster, its later lines indented and quoted as log lines are: an app's own test report
 * (TAP's `not ok …`) must not read as a line of this suite's output.
 */
function indent(text: string, spaces: number): string {
  return text.split('\n').join(`\n${' '.repeat(spaces)}| `);
}
