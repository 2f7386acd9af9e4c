import type { V1ContainerStatus, V1Job, V1Pod } from '@kubernetes/client-node';
import type { WalrusAppStatus } from '../../ports/walrus-app.ts';
import { BUILD_SECRETS_STEP, BUILD_STEP, CHECKOUT_STEP, MANIFEST_STEP, PACK_STEP, TEST_STEP } from '../templates/build-job.ts';
import { registryFailure } from './registry-failure.ts';

/**
 * Why a build Job failed, and whose fault it was. The app's own build or test step exiting non-zero (or outgrowing its
 * time or storage), or its manifest being invalid, is the app's: retrying gives the same result, so the commit is marked failed at once. Anything else is the
 * infrastructure's: the tool steps (checkout and pack reach the chain and Walrus), a pod that was evicted, deleted or
 * never got to run, a deadline the build step never reached. Those are transient as a rule, so the build is retried
 * with back-off in a new Job, a bounded number of times. So is a build or test step that ended on npm's report that
 * it could not reach the package registry (a DNS lookup that failed, a connection refused or reset, a registry's 5xx:
 * RegistryUnreachable, registry-failure.ts): the provider's network or the registry, not the app's code. A checkout
 * the key servers refused (the lease closed or ran out, the controller's key no reader) is about access: retrying
 * gives the same answer until someone changes it.
 */
export interface BuildFailure {
  kind: 'app' | 'infrastructure' | 'access';
  /** CamelCase, for conditions and events: BuildFailed, BuildTimedOut, RegistryUnreachable, CheckoutFailed, PackFailed, PodEvicted, PodLost, ... */
  reason: string;
  /** One line saying what happened. */
  summary: string;
  /** The container whose exit explains it (its log tail makes the full message), when there is one. */
  container?: { pod: string; name: string; exitCode: number; message?: string };
}

/** How many Jobs one (commit, build config) gets when the infrastructure fails; the app's own failure gets one. */
export const BUILD_ATTEMPTS = 3;
const FIRST_RETRY_MS = 10_000;
const MAX_RETRY_MS = 5 * 60_000;

/** The wait before attempt `failed + 1`, after attempt `failed` (1-based) failed: 10 s, 20 s, 40 s, … at most 5 min. */
export function retryDelayMs(failed: number): number {
  return Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, failed - 1));
}

export type BuildRetryDecision = { retry: true; attempt: number; retryAt: Date } | { retry: false };

/** After attempt `attempt` failed with `failure`: another attempt (when, and its number), or none. */
export function decideBuildRetry(failure: Pick<BuildFailure, 'kind'>, attempt: number, now: Date, attempts = BUILD_ATTEMPTS): BuildRetryDecision {
  if (failure.kind !== 'infrastructure' || attempt >= attempts) return { retry: false };
  return { retry: true, attempt: attempt + 1, retryAt: new Date(now.getTime() + retryDelayMs(attempt)) };
}

/** What a build Job that ended `Failed` tells about its failure, from the Job and its pods as the API server has them. */
export function classifyBuildFailure(job: V1Job, pods: readonly V1Pod[]): BuildFailure {
  const jobFailed = job.status?.conditions?.find((condition) => condition.type === 'Failed' && condition.status === 'True');
  const jobWords = jobFailed ? `${jobFailed.reason ?? 'Failed'}: ${jobFailed.message ?? 'the build job failed'}` : 'the build job failed';
  // The newest pod is the one that ended the Job (backoffLimit 0: there is one, unless it was replaced).
  const pod = [...pods].sort((a, b) => time(b.metadata?.creationTimestamp) - time(a.metadata?.creationTimestamp))[0];
  if (!pod) return { kind: 'infrastructure', reason: 'PodLost', summary: `the build pod is gone (${jobWords})` };
  const name = pod.metadata?.name ?? '?';
  const steps = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  const step = (step: string) => steps.find((container) => container.name === step);
  const build = step(BUILD_STEP);

  if (pod.status?.reason === 'Evicted') {
    const message = pod.status.message ?? 'evicted';
    // The kubelet evicts a pod whose emptyDir outgrows its sizeLimit: the build's own use (or its repository's size).
    if (/EmptyDir volume/i.test(message)) return { kind: 'app', reason: 'BuildFailed', summary: `the build pod was evicted: ${message.trim()}` };
    return { kind: 'infrastructure', reason: 'PodEvicted', summary: `the build pod was evicted: ${message.trim()}` };
  }
  const deadline = pod.status?.reason === 'DeadlineExceeded' || jobFailed?.reason === 'DeadlineExceeded';
  if (deadline) {
    // Past spec.build.timeout in the app's own step is the app's; a pod that never got that far (slow to start, a
    // stuck checkout) is the node's.
    const inBuild = build && (build.state?.running || build.state?.terminated) && exitedZero(step(CHECKOUT_STEP)) && !started(step(PACK_STEP));
    if (inBuild) return { kind: 'app', reason: 'BuildTimedOut', summary: `the build step ran past spec.build.timeout (${job.spec?.activeDeadlineSeconds ?? '?'} s)` };
    const where = runningStep(steps);
    const why = where ? notStarted(step(where)) : undefined;
    return { kind: 'infrastructure', reason: 'DeadlineExceeded', summary: `the build job ran out of time before its build step finished${where ? ` (in step ${where}${why ? `, which could not start: ${why}` : ''})` : ''}: ${jobWords}` };
  }
  const failed = steps.find((container) => (container.state?.terminated?.exitCode ?? 0) !== 0);
  if (failed) {
    const terminated = failed.state!.terminated!;
    // A command that never ran has no log to quote: the runtime's reason is the whole story, so the summary carries it.
    const why = notStarted(failed);
    const message = why ? undefined : terminated.message;
    const container = { pod: name, name: failed.name, exitCode: terminated.exitCode, ...(message ? { message } : {}) };
    const summary = why ? `container ${failed.name} could not start (exit code ${terminated.exitCode}): ${why}` : `container ${failed.name} exited with code ${terminated.exitCode}`;
    // The termination message is the step's last output (FallbackToLogsOnError in templates/build-job.ts). An app
    // whose own output ends the way npm's does is retried for nothing, BUILD_ATTEMPTS times at most, then failed.
    const registry = (failed.name === BUILD_STEP || failed.name === TEST_STEP) && !why ? registryFailure(terminated.message) : undefined;
    if (registry) {
      const where = registry.host ? ` at ${registry.host}` : '';
      return { kind: 'infrastructure', reason: 'RegistryUnreachable', summary: `the ${failed.name} step could not reach the package registry${where}: npm ${registry.code}, ${registry.what}; the network or the registry failed, not the app (exit code ${terminated.exitCode})`, container };
    }
    if (failed.name === BUILD_STEP) return { kind: 'app', reason: 'BuildFailed', summary, container };
    const refused = failed.name === CHECKOUT_STEP ? accessRefusal(terminated.message) : undefined;
    if (refused) return { kind: 'access', reason: refused, summary: `the key servers refused the checkout (${summary})`, container };
    // The manifest names a build secret the lease has not set: the tenant's to fix (BuildSecretNotSetError's words).
    if (failed.name === BUILD_SECRETS_STEP && /walrus\.buildSecrets names .* which lease 0x[0-9a-f]+ has not set/.test(terminated.message ?? '')) {
      return { kind: 'app', reason: BUILD_SECRET_NOT_SET, summary: "a secret the app's package.json walrus.buildSecrets names is not set on the lease", container };
    }
    // The manifest step only reads the checked-out tree: its failure is the manifest's content.
    if (failed.name === MANIFEST_STEP) return { kind: 'app', reason: 'ManifestInvalid', summary: "the app's manifest (package.json walrus) is invalid", container };
    if (failed.name === TEST_STEP) return { kind: 'app', reason: 'TestsFailed', summary: `the app's tests failed (exit code ${terminated.exitCode})`, container };
    const reason = failed.name === CHECKOUT_STEP ? 'CheckoutFailed' : failed.name === PACK_STEP ? 'PackFailed' : 'ToolFailed';
    return { kind: 'infrastructure', reason, summary, container };
  }
  const stuck = steps.find((container) => notStarted(container));
  const stuckWords = stuck ? `; container ${stuck.name} could not start: ${notStarted(stuck)}` : '';
  return { kind: 'infrastructure', reason: jobFailed?.reason ?? 'JobFailed', summary: `the build job failed with no failed container (pod ${name} ${pod.status?.phase ?? 'in no phase'}${stuckWords}): ${jobWords}` };
}

/** The reason of a build that stopped at the build-secrets step for a name the lease had not set. */
export const BUILD_SECRET_NOT_SET = 'BuildSecretNotSet';

/**
 * The version of the lease's secrets the failed head's build lacked a build secret at (the version when its Job was
 * made), or null when the app is not held for one: a later version may hold it, so the commit is built again then.
 */
export function heldForBuildSecrets(status: WalrusAppStatus | undefined): number | null {
  const build = status?.build;
  if (build === undefined || status!.failedRevision !== build.commit || build.lastFailure?.reason !== BUILD_SECRET_NOT_SET) return null;
  return build.secretsVersion ?? 0;
}

/** What the kubelet and runtimes call a container whose command never ran (Docker's, containerd's, the kubelet's words). */
const NOT_STARTED = new Set(['ContainerCannotRun', 'StartError', 'CreateContainerError', 'CreateContainerConfigError', 'RunContainerError']);

/** Why the container never ran (`exec: "git-walrus": executable file not found in $PATH`), or undefined when it did. */
function notStarted(container: V1ContainerStatus | undefined): string | undefined {
  const state = container?.state?.terminated ?? container?.state?.waiting;
  if (!state?.reason || !NOT_STARTED.has(state.reason)) return undefined;
  return `${state.reason}: ${state.message?.trim() || 'no reason given'}`;
}

/** The key servers' refusal a checkout's last words carry (the wording of src/seal/key-server-refusal.ts and NotReaderError). */
function accessRefusal(message: string | undefined): string | undefined {
  if (message === undefined) return undefined;
  if (/: lease closed: /.test(message)) return 'LeaseClosed';
  if (/: lease exhausted: /.test(message)) return 'LeaseExhausted';
  if (/: not the lease's provider: /.test(message)) return 'NotLeaseProvider';
  if (/: tenant not a reader: /.test(message)) return 'TenantNotReader';
  if (/ is private and 0x[0-9a-f]+ is not one of its readers/.test(message)) return 'NotAReader';
  return undefined;
}

function exitedZero(container: V1ContainerStatus | undefined): boolean {
  return container?.state?.terminated?.exitCode === 0;
}

function started(container: V1ContainerStatus | undefined): boolean {
  return Boolean(container?.state?.running || container?.state?.terminated);
}

function runningStep(steps: readonly V1ContainerStatus[]): string | undefined {
  const step = steps.find((container) => container.state?.running) ?? steps.find((container) => (container.state?.terminated?.exitCode ?? 0) !== 0)
    ?? steps.find((container) => !started(container));
  return step?.name;
}

function time(value: Date | string | undefined): number {
  return value ? new Date(value).getTime() : 0;
}
