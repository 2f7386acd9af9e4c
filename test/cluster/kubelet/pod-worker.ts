/**
 * One pod's life on the node, from binding to finalization: network, volumes, init containers in order,
 * containers with their probes and restart policy, the active deadline, emptyDir limits, and deletion with
 * its grace period. What it observes goes into `facts`; `status.ts` turns facts into the pod status, which
 * is written only when it changed.
 */
import { createWriteStream, readFileSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';
import { CrashBackoff } from './backoff.ts';
import type { EventRecorder, EventType } from './events.ts';
import { ContainerConfigError, containerArgv, containerEnv, processEnv, serviceEnv } from './env.ts';
import type { EnvSources } from './env.ts';
import { SYSTEM_PATH, resolveImage } from './images.ts';
import type { ImageMap, ImageRuntime } from './images.ts';
import { Prober } from './probes.ts';
import type { ProbeKind, ProbeTarget } from './probes.ts';
import { startContainerProcess } from './runtime.ts';
import { memoryCgroup } from './cgroup.ts';
import type { ContainerProcess, Exit, Mount } from './runtime.ts';
import { exitReason, podStatus, statusKey, wireTime } from './status.ts';
import type { ContainerFacts, PodFacts, Terminated } from './status.ts';
import { containerMounts, emptyDirOverLimit, prepareVolumes, quantityBytes, VolumeError } from './volumes.ts';
import type { VolumeSources } from './volumes.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const MAX_MESSAGE_BYTES = 4096;
const FALLBACK_LOG_LINES = 80;
const FALLBACK_LOG_BYTES = 2048;
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
  /** Host directories every container sees read-only at the same path (the checkout the image map points into). */
  sharedPaths: string[];
  sources: VolumeSources;
  events: EventRecorder;
  /** The pod's state dir (volumes, container roots, termination logs). */
  podDir: string;
  logPath: string;
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

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
});

export class PodWorker {
  #pod: V1Pod;
  readonly #uid: string;
  readonly #init: Slot[];
  readonly #main: Slot[];
  readonly #facts: PodFacts;
  readonly #stop = new AbortController();
  #netnsPath?: string;
  #volumes = new Map<string, string>();
  #podLog?: WriteStream;
  #lastWritten = '';
  #writing: Promise<void> = Promise.resolve();
  #writeQueued = false;
  #terminating?: Promise<void>;
  #deadlineTimer?: NodeJS.Timeout;
  #gone = false;
  readonly done: Promise<void>;
  private readonly ctx: PodWorkerContext;

  constructor(pod: V1Pod, ctx: PodWorkerContext) {
    this.ctx = ctx;
    this.#pod = pod;
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
    this.done = this.#run().catch((err) => ctx.log(`kubelet: pod ${this.#key}: ${err?.stack ?? err}`));
  }

  #event(type: EventType, reason: string, message: string, slot?: Slot): void {
    this.ctx.events.record(this.#pod, type, reason, message, slot && { name: slot.spec.name, init: this.#init.includes(slot) });
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
    if (isOlder(pod, this.#pod)) return;
    this.#pod = pod;
    if (pod.metadata?.deletionTimestamp) void this.terminate('deleted');
  }

  /**
   * Kills the pod's containers and releases what it holds. 'deleted': graceful (the API object is then
   * finalized); 'gone': the object was removed outright (force delete), so processes are killed at once;
   * 'kubelet': the kubelet is stopping, kill everything now and leave the API object alone.
   */
  terminate(why: 'deleted' | 'gone' | 'kubelet'): Promise<void> {
    if (why !== 'deleted') this.#gone = true;
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
    if (why === 'deleted') await this.#flush();
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

  /** Starts the container once and waits for its exit; undefined when it could not be started (config error, stop). */
  async #runOnce(slot: Slot): Promise<Exit | undefined> {
    const spec = slot.spec;
    let image: ImageRuntime;
    let argv: string[];
    let env: Map<string, string>;
    for (;;) {
      try {
        image = resolveImage(this.ctx.images, spec.image ?? '')!;
        env = containerEnv(this.#pod, spec, await this.#envSources(spec), this.#facts);
        argv = containerArgv(spec, image, env);
        break;
      } catch (err) {
        if (!(err instanceof ContainerConfigError)) throw err;
        slot.facts.state = { waiting: { reason: 'CreateContainerConfigError', message: err.message } };
        this.#event('Warning', 'Failed', `Error: ${err.message}`, slot);
        this.#report();
        await sleep(RETRY_MS, this.#stop.signal);
        if (this.#stopping) return undefined;
      }
    }
    const security = { ...this.#pod.spec?.securityContext, ...spec.securityContext };
    const account = security.runAsUser === undefined ? undefined : passwdEntry(security.runAsUser);
    const uid = security.runAsUser;
    const gid = security.runAsGroup ?? (uid === undefined ? undefined : account?.gid ?? 0);
    const home = account?.home ?? (uid === undefined || uid === 0 ? '/root' : '/');
    const runDir = join(this.ctx.podDir, 'containers', spec.name, String(slot.facts.restartCount));
    await mkdir(runDir, { recursive: true });
    const terminationLog = join(runDir, 'termination-log');
    await writeFile(terminationLog, '');
    await chmod(terminationLog, 0o666);
    let mounts: Mount[];
    try {
      mounts = [
        ...this.ctx.sharedPaths.map((path) => ({ source: path, target: path, readOnly: true })),
        { source: join(this.ctx.podDir, 'hosts'), target: '/etc/hosts', readOnly: false },
        ...(await containerMounts(spec, this.#volumes)),
        { source: terminationLog, target: spec.terminationMessagePath ?? '/dev/termination-log', readOnly: false },
      ];
    } catch (err) {
      if (!(err instanceof VolumeError)) throw err;
      slot.facts.state = { waiting: { reason: 'CreateContainerConfigError', message: err.message } };
      this.#report();
      return undefined;
    }
    if (this.#stopping || !this.#netnsPath) return undefined;
    const processEnvironment = processEnv(image, this.#pod.spec?.hostname ?? this.#pod.metadata!.name!, home, env, SYSTEM_PATH);
    slot.tail = [];
    slot.killedByProbe = false;
    this.#event('Normal', 'Pulled', `Container image "${spec.image}" already present on machine`, slot);
    this.#event('Normal', 'Created', `Created container ${spec.name}`, slot);
    // The memory limit, in the container's own cgroup (named after the pod's netns, so the run's cleanup finds it).
    const memoryLimit = spec.resources?.limits?.memory;
    const cgroup = memoryLimit === undefined ? null : memoryCgroup(`${basename(this.#netnsPath)}-${spec.name}`, quantityBytes(String(memoryLimit)));
    const process = startContainerProcess({
      dir: runDir, netnsPath: this.#netnsPath, hostname: this.#pod.spec?.hostname ?? this.#pod.metadata!.name!,
      argv, env: processEnvironment, workingDir: spec.workingDir || '/', uid, gid, mounts,
      ...(cgroup ? { cgroupProcs: cgroup.procsFile } : {}),
      onLine: (line) => {
        this.#podLog?.write(`${spec.name} ${line}\n`);
        slot.tail.push(line);
        if (slot.tail.length > FALLBACK_LOG_LINES) slot.tail.shift();
      },
    });
    slot.process = process;
    const startedAt = Date.now();
    const containerID = `process://${process.pid}`;
    slot.facts.containerID = containerID;
    slot.facts.state = { running: { startedAt: wireTime(startedAt) } };
    this.#event('Normal', 'Started', `Started container ${spec.name}`, slot);
    slot.facts.started = !spec.startupProbe;
    slot.facts.ready = !spec.readinessProbe && slot.facts.started && !this.#init.includes(slot);
    this.#report();
    if (this.#main.includes(slot)) this.#startProbes(slot, startedAt, { podIP: this.#facts.podIP!, container: spec, containerPid: process.containerPid, uid, gid, env: processEnvironment });

    const exit = await process.exited;
    for (const p of slot.probers) p.stop();
    slot.probers = [];
    slot.process = undefined;
    slot.facts.ready = false;
    slot.facts.started = false;
    const oomKilled = cgroup?.oomKilled() ?? false;
    cgroup?.remove();
    const ended = exitReason(exit.exitCode, slot.tail.at(-1), argv[0], oomKilled);
    const terminated: Terminated = {
      exitCode: exit.exitCode,
      ...(exit.signal ? { signal: exit.signal } : {}),
      reason: ended.reason,
      ...(ended.message ? { message: ended.message } : await this.#terminationMessage(spec, terminationLog, exit, slot.tail)),
      startedAt: wireTime(startedAt),
      finishedAt: wireTime(Date.now()),
      containerID,
    };
    slot.facts.state = { terminated };
    this.#report();
    // Each run's root is its own: a restarted container starts from the image again, as with a runtime.
    await rm(runDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
    return exit;
  }

  async #terminationMessage(spec: V1Container, path: string, exit: Exit, tail: string[]): Promise<{ message?: string }> {
    let message = (await readFile(path).catch(() => Buffer.alloc(0))).subarray(0, MAX_MESSAGE_BYTES).toString('utf8');
    if (!message && exit.exitCode !== 0 && spec.terminationMessagePolicy === 'FallbackToLogsOnError') {
      message = tail.join('\n');
      if (Buffer.byteLength(message) > FALLBACK_LOG_BYTES) message = Buffer.from(message).subarray(-FALLBACK_LOG_BYTES).toString('utf8');
    }
    return message ? { message } : {};
  }

  #startProbes(slot: Slot, startedAt: number, target: ProbeTarget): void {
    const spec = slot.spec;
    const begin = (kind: ProbeKind, onResult: (passing: boolean, message?: string) => void) => {
      const probe = kind === 'startup' ? spec.startupProbe : kind === 'liveness' ? spec.livenessProbe : spec.readinessProbe;
      if (!probe) return;
      const prober = new Prober(kind, probe, target, startedAt, onResult);
      slot.probers.push(prober);
      prober.start();
    };
    const afterStartup = () => {
      begin('readiness', (passing, message) => {
        if (!passing && message) this.#event('Warning', 'Unhealthy', message, slot);
        slot.facts.ready = passing;
        this.#report();
      });
      begin('liveness', (passing, message) => {
        if (passing || this.#stopping) return;
        this.ctx.log(`kubelet: pod ${this.#key}: container ${spec.name} failed liveness probe, will be restarted: ${message}`);
        this.#event('Warning', 'Unhealthy', message ?? 'Liveness probe failed', slot);
        slot.killedByProbe = true;
        void this.#kill(slot, this.#pod.spec?.terminationGracePeriodSeconds ?? 30);
      });
    };
    if (!spec.startupProbe) return afterStartup();
    begin('startup', (passing, message) => {
      if (passing) {
        slot.facts.started = true;
        if (!spec.readinessProbe) slot.facts.ready = true;
        this.#report();
        afterStartup();
        return;
      }
      this.ctx.log(`kubelet: pod ${this.#key}: container ${spec.name} failed startup probe, will be restarted: ${message}`);
      this.#event('Warning', 'Unhealthy', message ?? 'Startup probe failed', slot);
      slot.killedByProbe = true;
      void this.#kill(slot, this.#pod.spec?.terminationGracePeriodSeconds ?? 30);
    });
  }

  /** The ConfigMaps and Secrets the container's env refers to (absent ones are left out), and the Services' variables. */
  async #envSources(spec: V1Container): Promise<EnvSources> {
    const configMaps = new Map<string, Record<string, string>>();
    const secrets = new Map<string, Record<string, string>>();
    const namespace = this.#pod.metadata!.namespace!;
    const names = (kind: 'configMap' | 'secret') => new Set([
      ...(spec.envFrom ?? []).map((f) => (kind === 'configMap' ? f.configMapRef?.name : f.secretRef?.name)),
      ...(spec.env ?? []).map((e) => (kind === 'configMap' ? e.valueFrom?.configMapKeyRef?.name : e.valueFrom?.secretKeyRef?.name)),
    ].filter((n): n is string => !!n));
    const text = (data: Record<string, Buffer>) => Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('utf8')]));
    for (const name of names('configMap')) {
      const data = await this.ctx.sources.configMap(namespace, name);
      if (data) configMaps.set(name, text(data));
    }
    for (const name of names('secret')) {
      const data = await this.ctx.sources.secret(namespace, name);
      if (data) secrets.set(name, text(data));
    }
    return { configMaps, secrets, services: serviceEnv(this.#pod, await this.ctx.sources.services(namespace)) };
  }

  /** Schedules a status write; writes are serialized and skipped when nothing changed. */
  #report(): void {
    if (this.#gone || this.#writeQueued) return;
    this.#writeQueued = true;
    this.#writing = this.#writing.then(async () => {
      this.#writeQueued = false;
      await this.#write().catch((err) => this.ctx.log(`kubelet: pod ${this.#key}: status update: ${err?.body ?? err}`));
    });
  }

  async #flush(): Promise<void> {
    this.#report();
    await this.#writing;
  }

  async #write(): Promise<void> {
    if (this.#gone) return;
    for (let attempt = 0; ; attempt++) {
      const status = podStatus(this.#pod, this.#facts, new Date());
      const key = statusKey(status);
      if (key === this.#lastWritten) return;
      try {
        // The pod's resourceVersion makes the write conditional: a stale view is re-read and the status recomputed.
        this.#pod = await this.ctx.core.patchNamespacedPodStatus({
          name: this.#pod.metadata!.name!, namespace: this.#pod.metadata!.namespace!,
          body: { metadata: { uid: this.#uid, resourceVersion: this.#pod.metadata!.resourceVersion }, status },
        }, mergePatch);
        this.#lastWritten = key;
        return;
      } catch (err) {
        const code = (err as { code?: number }).code;
        if (code === 404) {
          this.#gone = true;
          return;
        }
        if (code !== 409 || attempt >= 5) throw err;
        this.#pod = await this.ctx.core.readNamespacedPod({ name: this.#pod.metadata!.name!, namespace: this.#pod.metadata!.namespace! });
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

/** The user's group and home from the host's /etc/passwd (the image's, here), as a runtime resolves a numeric runAsUser. */
function passwdEntry(uid: number): { gid: number; home: string } | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const fields = line.split(':');
      if (Number(fields[2]) === uid && fields[2] !== '') return { gid: Number(fields[3]), home: fields[5] || '/' };
    }
  } catch {
    // No passwd: gid 0 and home /.
  }
  return undefined;
}
