import type { V1Job } from '@kubernetes/client-node';
import { builtWith } from '../../api/build-config.ts';
import { BuildResultError } from '../errors.ts';
import { recordHistory } from '../conditions.ts';
import { BUILD_ATTEMPTS, classifyBuildFailure, decideBuildRetry, type BuildFailure } from '../build-failure.ts';
import { jobOutcome, parseArtifact } from '../build-result.ts';
import { keepReleaseOutput } from '../keep-output.ts';
import { parseManifestReport } from '../manifest-report.ts';
import { NEXT, stalling, waiting, WATCH_PROGRESS_MS, type StepResult } from '../outcome.ts';
import type { Pass, PlannedBuild } from '../pass.ts';
import { buildRefusal, type BuildRefusal } from '../isolation.ts';
import { BUILD_STEP, TEST_STEP } from '../../templates/build-job.ts';
import { withoutEnvValues } from '../../../core/env-values.ts';
import { FAILURE_TAIL_LINES, failureTail } from '../../../core/failure-tail.ts';
import { leaseSecretsOf } from '../release.ts';

/** A build that does not fit in what the quota has left now is tried again after this long. */
const QUOTA_RETRY_MS = 30_000;

/**
 * The head's artifact: the one the status records for (commit, build settings), or the result of the build Job,
 * started here when there is none. A running Job is waited for; an attempt the infrastructure failed is retried after
 * a back-off, in a new Job; the app's own failure, or the last attempt's, marks the commit failed.
 */
export async function build(pass: Pass): Promise<StepResult> {
  const planned = pass.fact('build');
  const { commit, configHash, jobName, attempt } = planned;
  const { deps, app, status } = pass;
  if (status.artifact?.commit === commit && builtWith(status.artifact, planned) && status.manifest?.commit === commit) {
    const { blobId, sha256, size, manifestRoot, buildKey, buildInfo } = status.artifact;
    const { commit: _commit, ...manifest } = status.manifest;
    // What the build reported about reproducibility goes on too: a later pass gates the release on it.
    pass.learn('artifact', { blobId, sha256, size, ...(manifestRoot === undefined ? {} : { manifestRoot }), ...(buildKey === undefined ? {} : { buildKey }), ...(buildInfo === undefined ? {} : { buildInfo }) });
    pass.learn('manifest', manifest);
    return NEXT;
  }
  const short = commit.slice(0, 12);
  const ofAttempts = attempt > 1 ? ` (attempt ${attempt} of ${BUILD_ATTEMPTS})` : '';
  const record = status.build?.commit === commit && status.build.configHash === configHash ? status.build : undefined;
  const job = deps.ownedJobs(app).find((candidate) => candidate.metadata?.name === jobName);
  if (!job) {
    const waitMs = record?.retryAt ? Date.parse(record.retryAt) - pass.now.getTime() : 0;
    if (waitMs > 0) {
      return waiting('BuildRetrying', `retrying the build of ${short}${ofAttempts} in ${Math.ceil(waitMs / 1000)} s after ${record!.lastFailure?.reason ?? 'a failure'}`, waitMs);
    }
    const buildJob = deps.templates.buildJob(app, { commit, configHash, attempt });
    const refusal = await buildRefusal(deps.cluster, buildJob);
    if (refusal) return refused(pass, commit, refusal);
    const secretsVersion = await leaseSecretsVersion(pass);
    await deps.cluster.createJob(buildJob);
    status.build = { commit, configHash, attempt, ...(record?.lastFailure ? { lastFailure: record.lastFailure } : {}), ...(secretsVersion === null ? {} : { secretsVersion }) };
    deps.log(`${pass.key}: build job ${jobName} created for ${commit}${ofAttempts}`);
    await deps.events.record(app, 'Normal', 'BuildStarted', `building ${short} in job ${jobName}${ofAttempts}`);
    pass.set('Built', 'Unknown', 'Building', `building ${short} in job ${jobName}${ofAttempts}`);
    return waiting('Building', `building ${short}${ofAttempts}`, WATCH_PROGRESS_MS);
  }
  const outcome = jobOutcome(job);
  if (outcome === 'running') return waiting('Building', `building ${short} in job ${jobName}${ofAttempts}`, WATCH_PROGRESS_MS);
  if (outcome === 'succeeded') {
    try {
      const pods = await deps.cluster.jobPods(pass.ref(jobName));
      await keepReleaseOutput(pass, job, pods, 'Built');
      const artifact = parseArtifact(jobName, pods);
      const manifest = parseManifestReport(jobName, pods);
      status.artifact = { commit, configHash, buildEnvCounted: true, ...artifact };
      status.manifest = { commit, ...manifest };
      const from = manifest.source === 'defaults' ? 'npm defaults (no manifest)' : 'its package.json manifest';
      pass.set('Built', 'True', 'BuildSucceeded', `built ${short}${ofAttempts} with ${from}: blob ${artifact.blobId}, ${artifact.size} bytes, sha256 ${artifact.sha256.slice(0, 12)}`);
      pass.learn('artifact', artifact);
      pass.learn('manifest', manifest);
      return NEXT;
    } catch (error) {
      if (!(error instanceof BuildResultError)) throw error;
      // Our pack step's output went missing: not the app's doing.
      return attemptFailed(pass, planned, { kind: 'infrastructure', reason: 'ArtifactMissing', summary: error.message }, error.message);
    }
  }
  const pods = await deps.cluster.jobPods(pass.ref(jobName));
  const failure = classifyBuildFailure(job, pods);
  await keepReleaseOutput(pass, job, pods, failure.reason);
  return attemptFailed(pass, planned, failure, await failureMessage(pass, failure, job));
}

/** An attempt failed: another one after a back-off when the infrastructure failed it and attempts remain, else BuildFailed. */
async function attemptFailed(pass: Pass, planned: PlannedBuild, failure: BuildFailure, message: string): Promise<StepResult> {
  const { commit, configHash, attempt } = planned;
  const { deps, app, status, now } = pass;
  const short = commit.slice(0, 12);
  const lastFailure = { reason: failure.reason, message, time: now.toISOString() };
  const decision = decideBuildRetry(failure, attempt, now);
  if (decision.retry) {
    status.build = { commit, configHash, attempt: decision.attempt, retryAt: decision.retryAt.toISOString(), lastFailure };
    const waitMs = decision.retryAt.getTime() - now.getTime();
    const text = `attempt ${attempt} of ${BUILD_ATTEMPTS} to build ${short} failed (${failure.reason}, not the app's build); attempt ${decision.attempt} in ${waitMs / 1000} s: ${message}`;
    await deps.events.record(app, 'Warning', 'BuildRetrying', text);
    pass.set('Built', 'Unknown', 'BuildRetrying', text);
    return waiting('BuildRetrying', `attempt ${attempt} to build ${short} failed (${failure.reason}); retrying in ${waitMs / 1000} s`, waitMs);
  }
  const secretsVersion = status.build?.commit === commit ? status.build.secretsVersion : undefined;
  status.build = { commit, configHash, attempt, lastFailure, ...(secretsVersion === undefined ? {} : { secretsVersion }) };
  const after = failure.kind === 'infrastructure' ? `${failure.reason}${attempt > 1 ? ` (after ${attempt} attempts)` : ''}: ` : failure.kind === 'access' ? `${failure.reason}: ` : '';
  // The app's own failure keeps its reason (BuildFailed, BuildTimedOut, TestsFailed, ManifestInvalid).
  const reason = failure.kind === 'app' ? failure.reason : 'BuildFailed';
  status.failedRevision = commit;
  status.history = recordHistory(status.history, { commit, result: 'BuildFailed', time: now.toISOString(), message: `${after}${message}` });
  pass.set('Built', 'False', reason, `${after}${message}`);
  const serving = status.lastAppliedRevision ? `; ${status.lastAppliedRevision.slice(0, 12)} keeps serving` : '';
  const what = reason === 'TestsFailed' ? 'the tests of' : reason === 'ManifestInvalid' ? 'the manifest of' : 'the build of';
  return stalling(reason, `${what} ${short} failed${serving}`);
}

/**
 * A leased app's current version of its lease's secrets (0 before any), which the build-secrets step is about to read;
 * null for an app under no lease. Recorded with the Job, so a build that lacked a build secret is built again once a
 * later version exists (hold-failed-revision.ts).
 */
async function leaseSecretsVersion(pass: Pass): Promise<number | null> {
  const secrets = await leaseSecretsOf(pass);
  return secrets === undefined ? null : secrets?.version ?? 0;
}

/**
 * The namespace's quota or limits refuse the build's pod: a build that can never fit fails its commit (as the app's
 * own failure: the build asks too much), one that only does not fit now waits for room.
 */
function refused(pass: Pass, commit: string, refusal: BuildRefusal): StepResult {
  const { status, now } = pass;
  const short = commit.slice(0, 12);
  const message = `the build of ${short} was refused: ${refusal.message}`;
  if (!refusal.permanent) {
    pass.set('Built', 'Unknown', refusal.reason, `${message}; waiting for room`);
    return waiting(refusal.reason, `${message}; waiting for room`, QUOTA_RETRY_MS);
  }
  status.failedRevision = commit;
  status.history = recordHistory(status.history, { commit, result: 'BuildFailed', time: now.toISOString(), message });
  pass.set('Built', 'False', refusal.reason, message);
  const serving = status.lastAppliedRevision ? `; ${status.lastAppliedRevision.slice(0, 12)} keeps serving` : '';
  return stalling(refusal.reason, `the build of ${short} was refused by the namespace's ${refusal.reason === 'QuotaExceeded' ? 'quota' : 'limits'}${serving}`);
}

/**
 * The failure in the build's own words: the failed container's last log lines, else its termination message. An app
 * step's environment values are taken out (the offer's buildEnv may hold a registry token; a script may echo it); the
 * tool steps' environment is the controller's own settings, which say where the chain is.
 */
async function failureMessage(pass: Pass, failure: BuildFailure, job: V1Job): Promise<string> {
  const container = failure.container;
  if (!container) return failure.summary;
  const logs = await pass.deps.cluster.podLogTail(pass.ref(container.pod), container.name, FAILURE_TAIL_LINES).catch(() => null);
  const text = failureTail(logs ?? container.message ?? '');
  const appStep = container.name === BUILD_STEP || container.name === TEST_STEP;
  const env = appStep ? job.spec?.template.spec?.initContainers?.find((candidate) => candidate.name === container.name)?.env ?? [] : [];
  return `${failure.summary}${text ? `:\n${withoutEnvValues(text, env)}` : ''}`;
}
