/**
 * One pod's life on the node, from binding to finalization: network, volumes, init containers in order,
 * containers with their probes and restart policy, the active deadline, emptyDir limits, and deletion with
 * its grace period. What it observes goes into `facts`; `status.ts` turns facts into the pod status, which
 * is written only when it changed.
 */
import { createWriteStream } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';
import { CrashBackoff } from './backoff.ts';
import { containerConfig, containerIdentity } from './container-config.ts';
import type { ContainerConfig } from './container-config.ts';
import { prepareRunFiles } from './container-files.ts';
import { ContainerLogWriter, containerLogFile } from './container-logs.ts';
import type { RunFiles } from './container-files.ts';
import { startProbes } from './container-probes.ts';
import type { ProbeOutcomes } from './container-probes.ts';
import type { EventRecorder, EventType } from './events.ts';
import type { LoggedPod } from './log-server.ts';
import { ContainerConfigError, processEnv } from './env.ts';
import { SYSTEM_PATH, imageID, resolveImage } from './images.ts';
import type { ImageMap } from './images.ts';
import type { Prober } from './probes.ts';
import { startContainerProcess } from './runtime.ts';
import type { ContainerProcess, Exit } from './runtime.ts';
import type { ContainerFacts, PodFacts } from './status.ts';
import { wireTime } from './status.ts';
import { PodStatusWriter } from './status-writer.ts';
import { FALLBACK_LOG_LINES, terminatedState } from './termination.ts';
import { emptyDirOverLimit, prepareVolumes, quantityBytes, VolumeError } from './volumes.ts';
import type { VolumeSources } from './volumes.ts';
import { sleep } from '../signals.ts';

const EMPTYDIR_POLL_MS = 2000;
const RETRY_MS = 2000;

/** What a pod worker needs from its kubelet. */
export interface PodWorkerContext {
  core: CoreV1Api;
  nodeIp: string;
  attachPod(uid: string): Promise<{ ip: string; netnsPath: string }>;
  detachPod(uid: string): Promise<void>;
  images: ImageMap;
  describeImages: string;
  sources: VolumeSources;
  events: EventRecorder;
  /** The pod's state dir (volumes, container roots, termination logs). */
  podDir: string;
  logPath: string;
  /** The pod's container log files, one per run of each container (container-logs.ts). */
  containerLogsDir: string;
  log: (line: string) => void;
}

interface Slot {
  spec: V1Container;
  facts: ContainerFacts;
  process?: ContainerProcess;
  probers: Prober[];
  backoff: CrashBackoff;
  /** The last lines the container wrote, for FallbackToLogsOnError. */
  tail: string[];
  /** Set while a liveness failure is killing the container (it is then restarted whatever the exit code). */
  killedByProbe: boolean;
}

export class PodWorker {
  readonly #uid: string;
  readonly #init: Slot[];
  readonly #main: Slot[];
  readonly #facts: PodFacts;
  readonly #stop = new AbortController();
  #netnsPath?: string;
  #volumes = new Map<string, string>();
  #podLog?: WriteStream;
  readonly #status: PodStatusWriter;
  #terminating?: Promise<void>;
  #deadlineTimer?: NodeJS.Timeout;
  /** Each run's log file by container ID, and whether that run still goes. */
  readonly #runs = new Map<string, { path: string; running(): boolean }>();
  readonly done: Promise<void>;
  private readonly ctx: PodWorkerContext;

  constructor(pod: V1Pod, ctx: PodWorkerContext) {
    this.ctx = ctx;
    this.#uid = pod.metadata!.uid!;
    const slot = (spec: V1Container, reason: string): Slot => ({
      spec, probers: [], backoff: new CrashBackoff(), tail: [], killedByProbe: false,
      facts: { name: spec.name, image: spec.image ?? '', state: { waiting: { reason } }, restartCount: 0, ready: false, started: false },
    });
    const initContainers = pod.spec?.initContainers ?? [];
    this.#init = initContainers.map((c) => slot(c, 'PodInitializing'));
    this.#main = (pod.spec?.containers ?? []).map((c) => slot(c, initContainers.length ? 'PodInitializing' : 'ContainerCreating'));
    this.#facts = {
      hostIP: ctx.nodeIp,
      startTime: wireTime(Date.now()),
      initContainers: this.#init.map((s) => s.facts),
      containers: this.#main.map((s) => s.facts),
    };
    this.#status = new PodStatusWriter(pod, ctx.core, this.#facts, ctx.log);
    this.done = this.#run().catch((err) => ctx.log(`kubelet: pod ${this.#key}: ${err?.stack ?? err}`));
  }

  /** The newest version of the pod seen. */
  get #pod(): V1Pod {
    return this.#status.pod;
  }

  #event(type: EventType, reason: string, message: string, slot?: Slot): void {
    this.ctx.events.record(this.#pod, type, reason, message, slot && { name: slot.spec.name, init: this.#init.includes(slot) });
  }

  /** The pod as the kubelet's `/containerLogs` sees it. */
  get logged(): LoggedPod {
    const slots = [...this.#init, ...this.#main];
    return {
      hasContainer: (name) => slots.some((s) => s.spec.name === name),
      status: (name) => slots.find((s) => s.spec.name === name)?.facts,
      run: (containerID) => this.#runs.get(containerID),
    };
  }

  /** Whether this is the pod of that namespace and name. */
  named(namespace: string, name: string): boolean {
    return this.#pod.metadata?.namespace === namespace && this.#pod.metadata?.name === name;
  }

  get #key(): string {
    return `${this.#pod.metadata?.namespace}/${this.#pod.metadata?.name}`;
  }

  get #restartPolicy(): string {
    return this.#pod.spec?.restartPolicy ?? 'Always';
  }

  get #stopping(): boolean {
    return this.#stop.signal.aborted;
  }

  /** A newer version of the pod from the informer. */
  update(pod: V1Pod): void {
    if (!this.#status.update(pod)) return;
    if (pod.metadata?.deletionTimestamp) void this.terminate('deleted');
  }

  /**
   * Kills the pod's containers and releases what it holds. 'deleted': graceful (the API object is then
   * finalized); 'gone': the object was removed outright (force delete), so processes are killed at once;
   * 'kubelet': the kubelet is stopping, kill everything now and leave the API object alone.
   */
  terminate(why: 'deleted' | 'gone' | 'kubelet'): Promise<void> {
    if (why !== 'deleted') this.#status.markGone();
    this.#terminating ??= this.#terminate(why);
    return this.#terminating;
  }

  async #terminate(why: 'deleted' | 'gone' | 'kubelet'): Promise<void> {
    this.#stop.abort();
    clearTimeout(this.#deadlineTimer);
    const grace = why === 'deleted'
      ? this.#pod.metadata?.deletionGracePeriodSeconds ?? this.#pod.spec?.terminationGracePeriodSeconds ?? 30 : 0;
    for (const s of [...this.#init, ...this.#main]) s.facts.ready = false;
    if (why === 'deleted') this.#report();
    await this.#killAll(grace);
    await this.done;
    if (why === 'deleted') await this.#status.flush();
    await this.#release(true);
    if (why !== 'deleted') return;
    // The pod is finalized by deleting it with grace 0, for this pod only (a new one may have its name).
    await this.ctx.core.deleteNamespacedPod({
      name: this.#pod.metadata!.name!, namespace: this.#pod.metadata!.namespace!,
      body: { gracePeriodSeconds: 0, preconditions: { uid: this.#uid } },
    }).catch((err) => { if (err?.code !== 404 && err?.code !== 409) this.ctx.log(`kubelet: pod ${this.#key}: final delete: ${err?.body ?? err}`); });
  }

  /** SIGTERM to every running container, SIGKILL to those still running after `graceSeconds`. */
  async #killAll(graceSeconds: number): Promise<void> {
    const running = [...this.#init, ...this.#main].filter((s) => s.process);
    await Promise.all(running.map((s) => this.#kill(s, graceSeconds)));
  }

  async #kill(slot: Slot, graceSeconds: number): Promise<void> {
    const process = slot.process;
    if (!process) return;
    for (const p of slot.probers) p.stop();
    this.#event('Normal', 'Killing', `Stopping container ${slot.spec.name}`, slot);
    if (graceSeconds > 0) {
      process.signal('SIGTERM');
      const exited = await Promise.race([process.exited.then(() => true), sleep(graceSeconds * 1000).then(() => false)]);
      if (exited) return;
    }
    process.signal('SIGKILL');
    await process.exited;
  }

  /** Detaches the network; with `everything`, also removes the pod's files and log. */
  async #release(everything: boolean): Promise<void> {
    if (this.#netnsPath) {
      await this.ctx.detachPod(this.#uid).catch((err) => this.ctx.log(`kubelet: pod ${this.#key}: detach network: ${err}`));
      this.#netnsPath = undefined;
    }
    if (!everything) return;
    await new Promise<void>((resolve) => (this.#podLog ? this.#podLog.end(resolve) : resolve()));
    this.#podLog = undefined;
    await rm(this.ctx.podDir, { recursive: true, force: true, maxRetries: 3 });
    await rm(this.ctx.logPath, { force: true });
    await rm(this.ctx.containerLogsDir, { recursive: true, force: true });
  }

  async #run(): Promise<void> {
    const pod = this.#pod;
    // Finished before this kubelet saw it (or being deleted already): only its deletion is left to handle.
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' || pod.metadata?.deletionTimestamp) return;
    this.#report();
    const deadline = pod.spec?.activeDeadlineSeconds;
    if (deadline !== undefined) {
      this.#deadlineTimer = setTimeout(() => void this.#fail('DeadlineExceeded', 'Pod was active on the node longer than the specified deadline'), deadline * 1000);
      this.#deadlineTimer.unref();
    }
    try {
      await this.#runPod();
    } finally {
      clearTimeout(this.#deadlineTimer);
    }
    if (this.#stopping) return;
    // Every container has ended for good: nothing may fail the pod any more, and its network goes.
    this.#stop.abort();
    await this.#release(false);
  }

  async #runPod(): Promise<void> {
    const pod = this.#pod;
    if (!(await this.#pullImages())) return;
    await mkdir(this.ctx.podDir, { recursive: true });
    this.#podLog = createWriteStream(this.ctx.logPath, { flags: 'a' });
    const { ip, netnsPath } = await this.ctx.attachPod(this.#uid);
    this.#netnsPath = netnsPath;
    this.#facts.podIP = ip;
    this.#report();
    if (!(await this.#prepareVolumes())) return;
    await writeFile(join(this.ctx.podDir, 'hosts'),
      `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n${ip}\t${pod.spec?.hostname ?? pod.metadata!.name}\n`);
    this.#watchEmptyDirs();
    for (const slot of this.#init) {
      if (!(await this.#runInit(slot))) return;
    }
    for (const s of this.#main) s.facts.state = { waiting: { reason: 'ContainerCreating' } };
    await Promise.all(this.#main.map((s) => this.#runContainer(s)));
  }

  /** Every image must be in the map; otherwise ErrImagePull, then ImagePullBackOff with growing waits, as a pull that keeps failing. */
  async #pullImages(): Promise<boolean> {
    const backoff = new CrashBackoff();
    for (;;) {
      const missing = [...this.#init, ...this.#main].filter((s) => !resolveImage(this.ctx.images, s.facts.image));
      if (missing.length === 0) return true;
      const message = (s: Slot) => `Failed to pull image "${s.facts.image}": no local runtime for it: ${this.ctx.describeImages}`;
      for (const s of missing) {
        s.facts.state = { waiting: { reason: 'ErrImagePull', message: message(s) } };
        this.#event('Warning', 'Failed', message(s), s);
      }
      this.#report();
      await sleep(1000, this.#stop.signal);
      if (this.#stopping) return false;
      for (const s of missing) {
        s.facts.state = { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "${s.facts.image}"` } };
        this.#event('Normal', 'BackOff', `Back-off pulling image "${s.facts.image}"`, s);
      }
      this.#report();
      await sleep(Math.max(backoff.delayAfterExit(Date.now()), RETRY_MS), this.#stop.signal);
      if (this.#stopping) return false;
    }
  }

  async #prepareVolumes(): Promise<boolean> {
    for (;;) {
      try {
        this.#volumes = await prepareVolumes(this.#pod, join(this.ctx.podDir, 'volumes'), this.#facts, this.ctx.sources);
        return true;
      } catch (err) {
        if (!(err instanceof VolumeError)) throw err;
        // As the kubelet: the pod waits in ContainerCreating (a FailedMount event) and the mount is retried.
        this.ctx.log(`kubelet: pod ${this.#key}: MountVolume failed: ${err.message}`);
        this.#event('Warning', 'FailedMount', `MountVolume.SetUp failed: ${err.message}`);
        await sleep(RETRY_MS, this.#stop.signal);
        if (this.#stopping) return false;
      }
    }
  }

  #watchEmptyDirs(): void {
    if (!(this.#pod.spec?.volumes ?? []).some((v) => v.emptyDir?.sizeLimit)) return;
    const poll = async () => {
      while (!this.#stopping && !this.#facts.failure) {
        await sleep(EMPTYDIR_POLL_MS, this.#stop.signal);
        if (this.#stopping) return;
        const over = await emptyDirOverLimit(this.#pod, this.#volumes);
        if (over) await this.#fail('Evicted', over);
      }
    };
    void poll().catch((err) => this.ctx.log(`kubelet: pod ${this.#key}: emptyDir usage: ${err}`));
  }

  /** A pod-level failure (deadline, eviction): every container killed, phase Failed with the reason. */
  async #fail(reason: string, message: string): Promise<void> {
    if (this.#facts.failure || this.#terminating) return;
    this.ctx.log(`kubelet: pod ${this.#key}: ${reason}: ${message}`);
    this.#event('Warning', reason, message);
    this.#facts.failure = { reason, message };
    this.#stop.abort();
    for (const s of [...this.#init, ...this.#main]) s.facts.ready = false;
    this.#report();
    await this.#killAll(this.#pod.spec?.terminationGracePeriodSeconds ?? 30);
    await this.done;
    if (!this.#terminating) await this.#release(false);
  }

  /** Runs an init container until it exits 0 (restarting it on failure unless the policy is Never). */
  async #runInit(slot: Slot): Promise<boolean> {
    for (;;) {
      const exit = await this.#runOnce(slot);
      if (exit === undefined || this.#stopping) return false;
      if (exit.exitCode === 0) return true;
      if (this.#restartPolicy === 'Never') {
        // The pod fails; the containers after it never start.
        for (const s of this.#main) s.facts.state = { waiting: { reason: 'PodInitializing' } };
        this.#report();
        return false;
      }
      if (!(await this.#backOff(slot))) return false;
    }
  }

  async #runContainer(slot: Slot): Promise<void> {
    for (;;) {
      const exit = await this.#runOnce(slot);
      if (exit === undefined || this.#stopping) return;
      const restart = this.#restartPolicy === 'Always' || (this.#restartPolicy === 'OnFailure' && (exit.exitCode !== 0 || slot.killedByProbe));
      if (!restart) return;
      if (!(await this.#backOff(slot))) return;
    }
  }

  /** CrashLoopBackOff until the back-off allows the next start; false when the pod stops meanwhile. */
  async #backOff(slot: Slot): Promise<boolean> {
    const last = 'terminated' in slot.facts.state ? slot.facts.state.terminated : undefined;
    const finishedAt = last ? Date.parse(last.finishedAt) : Date.now();
    const wait = slot.backoff.delayAfterExit(finishedAt);
    if (last) slot.facts.lastState = last;
    if (last?.reason === 'ContainerCannotRun') {
      // A container that never started and will be started again waits with the runtime's error, as on a real node.
      slot.facts.state = { waiting: { reason: 'RunContainerError', message: `failed to start container "${slot.spec.name}": ${last.message}` } };
      await this.#status.flush();
    }
    if (wait > 0) {
      const pod = this.#pod.metadata!;
      slot.facts.state = { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${wait / 1000}s restarting failed container=${slot.spec.name} pod=${pod.name}_${pod.namespace}(${pod.uid})` } };
      this.#event('Warning', 'BackOff', 'Back-off restarting failed container', slot);
      this.#report();
      await sleep(Math.max(0, finishedAt + wait - Date.now()), this.#stop.signal);
    }
    if (this.#stopping) return false;
    slot.facts.restartCount++;
    return true;
  }

  /** The container's command and variables; while a referenced object or key is missing, CreateContainerConfigError and a retry. */
  async #configure(slot: Slot): Promise<ContainerConfig | undefined> {
    for (;;) {
      try {
        return await containerConfig(this.#pod, slot.spec, this.ctx.images, this.ctx.sources, this.#facts);
      } catch (err) {
        if (!(err instanceof ContainerConfigError)) throw err;
        slot.facts.state = { waiting: { reason: 'CreateContainerConfigError', message: err.message } };
        this.#event('Warning', 'Failed', `Error: ${err.message}`, slot);
        this.#report();
        await sleep(RETRY_MS, this.#stop.signal);
        if (this.#stopping) return undefined;
      }
    }
  }

  /** Starts the container once and waits for its exit; undefined when it could not be started (config error, stop). */
  async #runOnce(slot: Slot): Promise<Exit | undefined> {
    const spec = slot.spec;
    const config = await this.#configure(slot);
    if (!config) return undefined;
    const { uid, gid, home } = containerIdentity(this.#pod, spec);
    let files: RunFiles;
    try {
      files = await prepareRunFiles(this.ctx.podDir, spec, slot.facts.restartCount, config.image.files ?? {}, this.#volumes);
    } catch (err) {
      if (!(err instanceof VolumeError)) throw err;
      slot.facts.state = { waiting: { reason: 'CreateContainerConfigError', message: err.message } };
      this.#report();
      return undefined;
    }
    if (this.#stopping || !this.#netnsPath) return undefined;
    const hostname = this.#pod.spec?.hostname ?? this.#pod.metadata!.name!;
    const processEnvironment = processEnv(config.image, hostname, home, config.env, SYSTEM_PATH);
    slot.tail = [];
    slot.killedByProbe = false;
    this.#event('Normal', 'Pulled', `Container image "${spec.image}" already present on machine`, slot);
    this.#event('Normal', 'Created', `Created container ${spec.name}`, slot);
    const logFile = containerLogFile(this.ctx.containerLogsDir, spec.name, slot.facts.restartCount);
    const logWriter = await ContainerLogWriter.create(logFile);
    const memoryLimit = spec.resources?.limits?.memory;
    const process = startContainerProcess({
      dir: files.dir, netnsPath: this.#netnsPath, hostname,
      argv: config.argv, env: processEnvironment, workingDir: spec.workingDir || '/', uid, gid, mounts: files.mounts,
      // Named after the pod's netns (`grw-<run>-<pod>`), so the run's cleanup finds it.
      ...(memoryLimit === undefined ? {} : { memory: { cgroupName: `${basename(this.#netnsPath)}-${spec.name}`, limitBytes: quantityBytes(String(memoryLimit)) } }),
      onLine: (line, stream) => {
        this.#podLog?.write(`${spec.name} ${line}\n`);
        logWriter.write(stream, line);
        slot.tail.push(line);
        if (slot.tail.length > FALLBACK_LOG_LINES) slot.tail.shift();
      },
    });
    slot.process = process;
    const startedAt = Date.now();
    const containerID = `process://${process.pid}`;
    slot.facts.containerID = containerID;
    slot.facts.imageID = imageID(this.ctx.images, spec.image ?? '');
    let running = true;
    this.#runs.set(containerID, { path: logFile, running: () => running });
    slot.facts.state = { running: { startedAt: wireTime(startedAt) } };
    this.#event('Normal', 'Started', `Started container ${spec.name}`, slot);
    slot.facts.started = !spec.startupProbe;
    slot.facts.ready = !spec.readinessProbe && slot.facts.started && !this.#init.includes(slot);
    this.#report();
    if (this.#main.includes(slot)) {
      const target = { podIP: this.#facts.podIP!, container: spec, containerPid: process.containerPid, uid, gid, env: processEnvironment };
      slot.probers = startProbes(startedAt, target, this.#probeOutcomes(slot));
    }

    const exit = await process.exited;
    await logWriter.close();
    running = false;
    for (const p of slot.probers) p.stop();
    slot.probers = [];
    slot.process = undefined;
    slot.facts.ready = false;
    slot.facts.started = false;
    if (exit.cannotRun) this.#event('Warning', 'Failed', `Error: failed to start container "${spec.name}": ${exit.cannotRun}`, slot);
    slot.facts.state = {
      terminated: await terminatedState({ spec, terminationLog: files.terminationLog, startedAt, containerID, tail: slot.tail }, exit),
    };
    this.#report();
    // Each run's root is its own: a restarted container starts from the image again, as with a runtime.
    await rm(files.dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
    return exit;
  }

  /** What the container's probes change: its readiness, and a kill when liveness or startup fails. */
  #probeOutcomes(slot: Slot): ProbeOutcomes {
    const spec = slot.spec;
    return {
      started: () => {
        slot.facts.started = true;
        if (!spec.readinessProbe) slot.facts.ready = true;
        this.#report();
      },
      ready: (passing, message) => {
        if (!passing && message) this.#event('Warning', 'Unhealthy', message, slot);
        slot.facts.ready = passing;
        this.#report();
      },
      failed: (kind, message) => {
        if (kind === 'liveness' && this.#stopping) return;
        this.ctx.log(`kubelet: pod ${this.#key}: container ${spec.name} failed ${kind} probe, will be restarted: ${message}`);
        this.#event('Warning', 'Unhealthy', message ?? `${kind === 'liveness' ? 'Liveness' : 'Startup'} probe failed`, slot);
        slot.killedByProbe = true;
        void this.#kill(slot, this.#pod.spec?.terminationGracePeriodSeconds ?? 30);
      },
    };
  }

  #report(): void {
    this.#status.report();
  }
}
