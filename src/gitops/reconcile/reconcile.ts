import type { V1Deployment, V1Ingress, V1Job, V1Pod, V1Service } from '@kubernetes/client-node';
import type { Cluster, ObjectRef } from '../../ports/cluster.ts';
import { buildConfigHash } from '../api/build-config.ts';
import { appKey, resolveSpec, type Artifact, type Condition, type WalrusApp, type WalrusAppStatus } from '../api/types.ts';
import { BuildResultError } from '../errors.ts';
import { ANNOTATIONS } from '../templates/names.ts';
import type { EventRecorder } from '../events.ts';
import type { ChainHead } from '../watch/head-reader.ts';
import { BUILD_ATTEMPTS, classifyBuildFailure, decideBuildRetry, type BuildFailure } from './build-failure.ts';
import { conditionOf, recordHistory, removeCondition, setCondition, transitions, type ConditionUpdate } from './conditions.ts';
import { decidePolicy } from './policy.ts';
import { assessRollout } from './rollout.ts';
import { messageOf } from '../../core/errors.ts';
import type { AppManifest } from '../manifest/manifest.ts';
import { applyManifest } from '../manifest/precedence.ts';
import type { ProviderOffer } from '../provider/offer.ts';
import { parseManifestReport } from './manifest-report.ts';

/** The pod and Job templates (src/gitops/templates/, pure): what reconcile applies. */
export interface Templates {
  buildJob(app: WalrusApp, build: { commit: string; configHash: string; attempt?: number }): V1Job;
  runDeployment(app: WalrusApp, release: Release): V1Deployment;
  appService(app: WalrusApp): V1Service;
  /** The app's Ingress and URL, when the provider exposes apps (its offer's ingress), else null. */
  appIngress(app: WalrusApp): { ingress: V1Ingress; url: string } | null;
  buildJobName(app: WalrusApp, commit: string, configHash: string, attempt?: number): string;
}

export interface Release {
  commit: string;
  artifact: Artifact;
  /** The app's manifest at the commit (absent for releases made before manifests were read: the spec alone). */
  manifest?: AppManifest;
}

/** What one reconcile pass reads and writes. Caches are the informers' (listers); writes go to the API server. */
export interface ReconcileDeps {
  cluster: Pick<Cluster, 'patchAppStatus' | 'createJob' | 'deleteJob' | 'jobPods' | 'podLogTail' | 'apply'>;
  templates: Templates;
  /** The app as the informer holds it now. */
  app(key: string): WalrusApp | undefined;
  /** Jobs whose controller owner is the app. */
  ownedJobs(app: WalrusApp): V1Job[];
  readHead(repository: string, ref: string | null): Promise<ChainHead>;
  /** The app now follows this repository (or nothing, when deleted): the chain watcher's index. */
  follow(key: string, repositoryId: string | null): void;
  events: EventRecorder;
  /** The network the controller serves; an app naming another one is refused. */
  network: string;
  /** What the provider allows an app's manifest (manifest/precedence.ts). */
  offer: Pick<ProviderOffer, 'maxReplicas'>;
  now(): Date;
  log(line: string): void;
}

export interface ReconcileResult {
  /** Come back after this long even without an event (a rollout in progress, a build running). */
  requeueAfterMs?: number;
}

/** How many lines of a failed build's log the status message carries. */
const LOG_LINES = 20;
const WATCH_PROGRESS_MS = 15_000;

/**
 * One level-triggered pass over one WalrusApp (issue 11 part 4): every step reads the current state and is safe to
 * repeat; the status is written once, at the end, and each condition that changed becomes a Kubernetes Event.
 */
export async function reconcile(key: string, deps: ReconcileDeps): Promise<ReconcileResult> {
  const app = deps.app(key);
  if (!app || app.metadata.deletionTimestamp) {
    deps.follow(key, null);
    return {};
  }
  const pass = new Pass(app, deps);
  try {
    return await pass.run();
  } finally {
    await pass.finish();
  }
}

class Pass {
  readonly app: WalrusApp;
  readonly deps: ReconcileDeps;
  readonly spec;
  readonly status: WalrusAppStatus;
  readonly #before: Condition[];
  conditions: Condition[];
  readonly now: Date;

  constructor(app: WalrusApp, deps: ReconcileDeps) {
    this.app = app;
    this.deps = deps;
    this.spec = resolveSpec(app.spec);
    this.status = structuredClone(app.status ?? {});
    this.#before = this.status.conditions ?? [];
    this.conditions = [...this.#before];
    this.now = deps.now();
    // A changed spec (a fixed build command, new settings) may deploy a commit that failed before, as HelmRelease
    // resets its failure counters on a config change.
    const generation = app.metadata.generation;
    if (this.status.observedGeneration !== undefined && generation !== undefined && generation !== this.status.observedGeneration) {
      delete this.status.failedRevision;
      // ... with its attempts counted afresh.
      delete this.status.build;
    }
  }

  set(type: ConditionUpdate['type'], status: ConditionUpdate['status'], reason: string, message: string): void {
    this.conditions = setCondition(this.conditions, { type, status, reason, message }, this.now, this.app.metadata.generation);
  }

  drop(...types: ConditionUpdate['type'][]): void {
    for (const type of types) this.conditions = removeCondition(this.conditions, type);
  }

  /** Ready=False, and the pass ends here. */
  notReady(reason: string, message: string, stalled = false): ReconcileResult {
    this.set('Ready', 'False', reason, message);
    this.drop('Reconciling');
    if (stalled) this.set('Stalled', 'True', reason, message);
    return {};
  }

  progressing(reason: string, message: string): ReconcileResult {
    this.set('Reconciling', 'True', reason, message);
    if (!conditionOf(this.conditions, 'Ready')) this.set('Ready', 'Unknown', reason, message);
    return { requeueAfterMs: WATCH_PROGRESS_MS };
  }

  async run(): Promise<ReconcileResult> {
    const { spec, status, deps, app } = this;
    if (spec.suspend) {
      this.drop('Reconciling');
      this.set('Ready', conditionOf(this.conditions, 'Ready')?.status ?? 'Unknown', 'Suspended', 'spec.suspend is set: nothing is read, built or applied');
      return {};
    }
    this.drop('Stalled');
    if (spec.network !== null && spec.network !== deps.network) {
      return this.notReady('NetworkMismatch', `the app names network '${spec.network}' but this controller serves '${deps.network}'`, true);
    }
    let chain: ChainHead;
    try {
      chain = await deps.readHead(spec.repository, spec.ref);
    } catch (error) {
      this.notReady('ChainReadFailed', `reading ${spec.repository} from the chain failed: ${messageOf(error)}`);
      throw error;
    }
    deps.follow(appKey(app), chain.repositoryId);
    if (!chain.head) return this.notReady('RefNotFound', `${chain.ref} does not exist in ${spec.repository}`);
    const head = chain.head;
    status.head = head;

    const policy = decidePolicy(spec.policy.allowedPushers, chain.push, head.ref, head.commit);
    if (!policy.allowed) return this.notReady('PushRefused', policy.message);

    const configHash = buildConfigHash(spec);
    const attempt = this.#attempt(head.commit, configHash);
    const wantedJob = deps.templates.buildJobName(app, head.commit, configHash, attempt);
    await this.#cleanUpJobs(wantedJob, head.commit, configHash);

    if (head.commit === status.failedRevision) return this.#holdLastGood(head.commit);

    let release: Required<Release>;
    if (status.artifact?.commit === head.commit && status.artifact.configHash === configHash && status.manifest?.commit === head.commit) {
      const { blobId, sha256, size } = status.artifact;
      const { commit: _commit, ...manifest } = status.manifest;
      release = { commit: head.commit, artifact: { blobId, sha256, size }, manifest };
    } else {
      const built = await this.#build(wantedJob, head.commit, configHash, attempt);
      if ('result' in built) return built.result;
      release = { commit: head.commit, ...built };
    }
    const decision = applyManifest(app, release.manifest, deps.offer);
    if (!decision.ok) return this.#refused(release, decision.field, decision.reason);
    return this.#release(release);
  }

  /** The manifest asks beyond the offer: this commit is not released (and not tried again until the head moves). */
  #refused(release: Required<Release>, field: string, reason: string): ReconcileResult {
    const { status } = this;
    const message = `package.json ${field} ${reason}`;
    status.failedRevision = release.commit;
    status.history = recordHistory(status.history, { ...release, result: 'ManifestRefused', time: this.now.toISOString(), message });
    this.set('Released', 'False', 'ManifestRefused', message);
    const serving = status.lastAppliedRevision ? `; ${status.lastAppliedRevision.slice(0, 12)} keeps serving` : '';
    return this.notReady('ManifestRefused', `${release.commit.slice(0, 12)} is not released: ${message}${serving}`);
  }

  /** The app as `release` runs: the spec with the release's manifest where the operator wrote nothing. */
  #runningApp(release: Release): WalrusApp {
    if (!release.manifest) return this.app;
    const decision = applyManifest(this.app, release.manifest, this.deps.offer);
    // A release that ran once but is beyond today's offer (a rollback target): the spec alone.
    return decision.ok ? decision.app : this.app;
  }

  /** Finished build Jobs whose outcome the status already holds, and Jobs for anything but the wanted build, go. */
  async #cleanUpJobs(wantedJob: string, commit: string, configHash: string): Promise<void> {
    const recorded = (this.app.status?.artifact?.commit === commit && this.app.status.artifact.configHash === configHash) || this.app.status?.failedRevision === commit;
    for (const job of this.deps.ownedJobs(this.app)) {
      const name = job.metadata!.name!;
      if (name !== wantedJob || (jobOutcome(job) !== 'running' && recorded)) {
        await this.deps.cluster.deleteJob(this.ref(name));
        this.deps.log(`${appKey(this.app)}: deleted build job ${name}`);
      }
    }
  }

  /**
   * Which attempt at (commit, config) is current: the status's record, or a newer attempt's Job already made (the
   * informer's copy of the app may lag behind the status this controller wrote).
   */
  #attempt(commit: string, configHash: string): number {
    const recorded = this.status.build?.commit === commit && this.status.build.configHash === configHash ? this.status.build.attempt : 1;
    const made = this.deps.ownedJobs(this.app)
      .map((job) => job.metadata?.annotations ?? {})
      .filter((annotations) => annotations[ANNOTATIONS.commit] === commit && annotations[ANNOTATIONS.buildConfig] === configHash)
      .map((annotations) => Number(annotations[ANNOTATIONS.buildAttempt] ?? 1));
    return Math.min(BUILD_ATTEMPTS, Math.max(recorded, ...made.filter((n) => Number.isInteger(n) && n >= 1)));
  }

  async #build(jobName: string, commit: string, configHash: string, attempt: number): Promise<{ artifact: Artifact; manifest: AppManifest } | { result: ReconcileResult }> {
    const { deps, app, status } = this;
    const short = commit.slice(0, 12);
    const ofAttempts = attempt > 1 ? ` (attempt ${attempt} of ${BUILD_ATTEMPTS})` : '';
    const record = status.build?.commit === commit && status.build.configHash === configHash ? status.build : undefined;
    const job = deps.ownedJobs(app).find((candidate) => candidate.metadata?.name === jobName);
    if (!job) {
      const waitMs = record?.retryAt ? Date.parse(record.retryAt) - this.now.getTime() : 0;
      if (waitMs > 0) {
        const message = `retrying the build of ${short}${ofAttempts} in ${Math.ceil(waitMs / 1000)} s after ${record!.lastFailure?.reason ?? 'a failure'}`;
        return { result: { ...this.progressing('BuildRetrying', message), requeueAfterMs: waitMs } };
      }
      await deps.cluster.createJob(deps.templates.buildJob(app, { commit, configHash, attempt }));
      status.build = { commit, configHash, attempt, ...(record?.lastFailure ? { lastFailure: record.lastFailure } : {}) };
      deps.log(`${appKey(app)}: build job ${jobName} created for ${commit}${ofAttempts}`);
      await deps.events.record(app, 'Normal', 'BuildStarted', `building ${short} in job ${jobName}${ofAttempts}`);
      this.set('Built', 'Unknown', 'Building', `building ${short} in job ${jobName}${ofAttempts}`);
      return { result: this.progressing('Building', `building ${short}${ofAttempts}`) };
    }
    const outcome = jobOutcome(job);
    if (outcome === 'running') return { result: this.progressing('Building', `building ${short} in job ${jobName}${ofAttempts}`) };
    if (outcome === 'succeeded') {
      try {
        const pods = await deps.cluster.jobPods(this.ref(jobName));
        const artifact = parseArtifact(jobName, pods);
        const manifest = parseManifestReport(jobName, pods);
        this.status.artifact = { commit, configHash, ...artifact };
        this.status.manifest = { commit, ...manifest };
        const from = manifest.source === 'defaults' ? 'npm defaults (no manifest)' : 'its package.json manifest';
        this.set('Built', 'True', 'BuildSucceeded', `built ${short}${ofAttempts} with ${from}: blob ${artifact.blobId}, ${artifact.size} bytes, sha256 ${artifact.sha256.slice(0, 12)}`);
        return { artifact, manifest };
      } catch (error) {
        if (!(error instanceof BuildResultError)) throw error;
        // Our pack step's output went missing: not the app's doing.
        return { result: await this.#attemptFailed(commit, configHash, attempt, { kind: 'infrastructure', reason: 'ArtifactMissing', summary: error.message }, error.message) };
      }
    }
    const failure = classifyBuildFailure(job, await deps.cluster.jobPods(this.ref(jobName)));
    return { result: await this.#attemptFailed(commit, configHash, attempt, failure, await this.#failureMessage(failure)) };
  }

  /** An attempt failed: another one after a back-off when the infrastructure failed it and attempts remain, else BuildFailed. */
  async #attemptFailed(commit: string, configHash: string, attempt: number, failure: BuildFailure, message: string): Promise<ReconcileResult> {
    const { deps, app } = this;
    const short = commit.slice(0, 12);
    const lastFailure = { reason: failure.reason, message, time: this.now.toISOString() };
    const decision = decideBuildRetry(failure, attempt, this.now);
    if (decision.retry) {
      this.status.build = { commit, configHash, attempt: decision.attempt, retryAt: decision.retryAt.toISOString(), lastFailure };
      const waitMs = decision.retryAt.getTime() - this.now.getTime();
      const text = `attempt ${attempt} of ${BUILD_ATTEMPTS} to build ${short} failed (${failure.reason}, not the app's build); attempt ${decision.attempt} in ${waitMs / 1000} s: ${message}`;
      await deps.events.record(app, 'Warning', 'BuildRetrying', text);
      this.set('Built', 'Unknown', 'BuildRetrying', text);
      return { ...this.progressing('BuildRetrying', `attempt ${attempt} to build ${short} failed (${failure.reason}); retrying in ${waitMs / 1000} s`), requeueAfterMs: waitMs };
    }
    this.status.build = { commit, configHash, attempt, lastFailure };
    const after = failure.kind === 'infrastructure' ? `${failure.reason}${attempt > 1 ? ` (after ${attempt} attempts)` : ''}: ` : '';
    return this.#buildFailed(commit, `${after}${message}`, failure.kind === 'app' ? failure.reason : 'BuildFailed');
  }

  /** `reason`: BuildFailed, BuildTimedOut, TestsFailed or ManifestInvalid (build-failure.ts). */
  #buildFailed(commit: string, message: string, reason: string): ReconcileResult {
    const status = this.status;
    status.failedRevision = commit;
    status.history = recordHistory(status.history, { commit, result: 'BuildFailed', time: this.now.toISOString(), message });
    this.set('Built', 'False', reason, message);
    const serving = status.lastAppliedRevision ? `; ${status.lastAppliedRevision.slice(0, 12)} keeps serving` : '';
    const what = reason === 'TestsFailed' ? 'the tests of' : reason === 'ManifestInvalid' ? 'the manifest of' : 'the build of';
    return this.notReady(reason, `${what} ${commit.slice(0, 12)} failed${serving}`);
  }

  /** The failure in the build's own words: the failed container's last log lines, else its termination message. */
  async #failureMessage(failure: BuildFailure): Promise<string> {
    const container = failure.container;
    if (!container) return failure.summary;
    const logs = await this.deps.cluster.podLogTail(this.ref(container.pod), container.name, LOG_LINES).catch(() => null);
    const text = (logs ?? container.message ?? '').trim().split('\n').slice(-LOG_LINES).join('\n');
    return `${failure.summary}${text ? `:\n${text}` : ''}`;
  }

  async #apply(release: Release): Promise<V1Deployment> {
    const app = this.#runningApp(release);
    const deployment = await this.deps.cluster.apply(this.deps.templates.runDeployment(app, release));
    await this.deps.cluster.apply(this.deps.templates.appService(app));
    const exposed = this.deps.templates.appIngress(app);
    if (exposed) await this.deps.cluster.apply(exposed.ingress);
    if (exposed) this.status.url = exposed.url;
    else delete this.status.url;
    return deployment;
  }

  async #release(release: Release): Promise<ReconcileResult> {
    const { status, app, deps } = this;
    const short = release.commit.slice(0, 12);
    const deployment = await this.#apply(release);
    const rollout = assessRollout(deployment);
    if (rollout.phase === 'Progressing') {
      this.set('Released', 'Unknown', 'Progressing', `rolling out ${short}: ${rollout.message}`);
      return this.progressing('Progressing', `rolling out ${short}: ${rollout.message}`);
    }
    if (rollout.phase === 'Complete') {
      const first = status.lastAppliedRevision !== release.commit;
      status.lastAppliedRevision = release.commit;
      // A release after a failure: the failed commit is history now (its entry says so), not a state to show.
      if (status.failedRevision !== release.commit) delete status.failedRevision;
      status.history = recordHistory(status.history, { commit: release.commit, artifact: release.artifact, ...(release.manifest ? { manifest: release.manifest } : {}), result: 'Released', time: this.now.toISOString(), message: rollout.message });
      this.set('Released', 'True', 'RolloutSucceeded', `${short} rolled out: ${rollout.message}`);
      this.set('Ready', 'True', 'Succeeded', `serving ${short}`);
      this.drop('Reconciling', 'Remediated');
      if (first) deps.log(`${appKey(app)}: ${short} released (${rollout.message})`);
      return {};
    }
    // ProgressDeadlineExceeded: back to the last good template; this commit is not tried again until the head moves.
    status.failedRevision = release.commit;
    status.history = recordHistory(status.history, { commit: release.commit, artifact: release.artifact, ...(release.manifest ? { manifest: release.manifest } : {}), result: 'RolledBack', time: this.now.toISOString(), message: rollout.message });
    this.set('Released', 'False', 'UpgradeFailed', `${short} did not become available: ${rollout.message}`);
    const good = lastGoodRelease(status);
    if (!good) {
      this.drop('Remediated');
      return this.notReady('ProgressDeadlineExceeded', `${short} did not become available and there is no earlier release to roll back to: ${rollout.message}`, true);
    }
    await this.#apply(good);
    deps.log(`${appKey(app)}: ${short} failed (${rollout.message}); rolled back to ${good.commit.slice(0, 12)}`);
    this.set('Remediated', 'True', 'RollbackSucceeded', `rolled back to ${good.commit.slice(0, 12)} after ${short} failed: ${rollout.message}`);
    return this.notReady('RolledBack', `${short} failed and was rolled back; ${good.commit.slice(0, 12)} keeps serving`);
  }

  /** The head is a commit that failed: keep (re-apply) the last good release, and wait for a new head. */
  async #holdLastGood(commit: string): Promise<ReconcileResult> {
    const good = lastGoodRelease(this.status);
    const short = commit.slice(0, 12);
    if (good && good.commit !== commit) {
      const rollout = assessRollout(await this.#apply(good));
      const serving = rollout.phase === 'Complete' ? `${good.commit.slice(0, 12)} is serving` : `rolling back to ${good.commit.slice(0, 12)}: ${rollout.message}`;
      const reason = conditionOf(this.conditions, 'Ready')?.reason ?? 'RevisionFailed';
      return this.notReady(reason === 'Succeeded' ? 'RevisionFailed' : reason, `${short} failed and is not retried until the head moves; ${serving}`);
    }
    return this.notReady(conditionOf(this.conditions, 'Ready')?.reason ?? 'RevisionFailed', `${short} failed and is not retried until the head moves`);
  }

  ref(name: string): ObjectRef {
    return { namespace: this.app.metadata.namespace, name };
  }

  /** Writes the status (always, even after an error) and turns each condition change into an Event. */
  async finish(): Promise<void> {
    this.status.conditions = this.conditions;
    this.status.observedGeneration = this.app.metadata.generation;
    if (JSON.stringify(this.status) !== JSON.stringify(this.app.status ?? {})) {
      await this.deps.cluster.patchAppStatus(this.ref(this.app.metadata.name), this.status);
    }
    for (const condition of transitions(this.#before, this.conditions)) {
      if (condition.type === 'Reconciling' || condition.status === 'Unknown') continue;
      const abnormal = condition.type === 'Stalled' || condition.type === 'Remediated' ? condition.status === 'True' : condition.status === 'False';
      await this.deps.events.record(this.app, abnormal ? 'Warning' : 'Normal', condition.reason, condition.message);
    }
  }
}

/** The last release that rolled out, with its artifact (from the history), to roll back to. */
export function lastGoodRelease(status: WalrusAppStatus): Release | null {
  const entry = status.history?.find((candidate) => candidate.result === 'Released' && candidate.artifact && candidate.commit === status.lastAppliedRevision);
  return entry ? { commit: entry.commit, artifact: entry.artifact!, ...(entry.manifest ? { manifest: entry.manifest } : {}) } : null;
}

export function jobOutcome(job: V1Job): 'running' | 'succeeded' | 'failed' {
  const conditions = job.status?.conditions ?? [];
  if (conditions.some((condition) => condition.type === 'Complete' && condition.status === 'True') || (job.status?.succeeded ?? 0) > 0) return 'succeeded';
  if (conditions.some((condition) => condition.type === 'Failed' && condition.status === 'True')) return 'failed';
  return 'running';
}

/** `{blobId, sha256, size}` from the termination message of the build pod's last (pack) container. */
export function parseArtifact(jobName: string, pods: readonly V1Pod[]): Artifact {
  const succeeded = pods.find((pod) => pod.status?.phase === 'Succeeded') ?? pods[0];
  if (!succeeded) throw new BuildResultError(jobName, 'its pod is gone');
  const statuses = succeeded.status?.containerStatuses ?? [];
  const message = statuses.map((container) => container.state?.terminated?.message).find((text) => text && text.trim().startsWith('{'));
  if (!message) throw new BuildResultError(jobName, 'the pack container wrote no termination message');
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    throw new BuildResultError(jobName, `the termination message is not JSON: ${message.slice(0, 200)}`);
  }
  const { blobId, sha256, size } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof blobId !== 'string' || !blobId || typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256) || typeof size !== 'number' || !Number.isInteger(size) || size < 0) {
    throw new BuildResultError(jobName, `the termination message lacks blobId, sha256 or size: ${message.slice(0, 200)}`);
  }
  return { blobId, sha256, size };
}
