import { conditionOf } from '../conditions.ts';
import { heldForBuildSecrets } from '../build-failure.ts';
import { NEXT, stalling, waiting, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';
import { applyRelease, lastGoodRelease, leaseSecretsOf } from '../release.ts';
import { assessRollout } from '../assess-rollout.ts';

/** How soon a pass looks again while the failed Job whose name the new build takes is still being deleted. */
const JOB_GONE_MS = 2_000;

/**
 * The head is a commit that failed (its build, or its rollout): it is not tried again until the head moves or the
 * spec changes; the last good release is re-applied, so that it keeps serving. Ready keeps the reason of the failure.
 * One exception: a build that lacked a build secret the lease had not set is built again, without a new push, once
 * the lease's secrets are at a later version than when its Job was made (`git walrus secrets set`).
 */
export async function holdFailedRevision(pass: Pass): Promise<StepResult> {
  const commit = pass.fact('head').commit;
  if (commit !== pass.status.failedRevision) return NEXT;
  const short = commit.slice(0, 12);
  const retry = await retryForBuildSecrets(pass);
  if (retry) return retry;
  const held = conditionOf(pass.conditions, 'Ready')?.reason ?? 'RevisionFailed';
  const reason = held === 'Succeeded' ? 'RevisionFailed' : held;
  const good = lastGoodRelease(pass.status);
  if (!good || good.commit === commit) return stalling(reason, `${short} failed and is not retried until the head moves`);
  const rollout = assessRollout(await applyRelease(pass, good));
  const serving = rollout.phase === 'Complete' ? `${good.commit.slice(0, 12)} is serving` : `rolling back to ${good.commit.slice(0, 12)}: ${rollout.message}`;
  return stalling(reason, `${short} failed and is not retried until the head moves; ${serving}`);
}

/**
 * The head's build failed for a build secret and the lease's secrets moved on since its Job was made: the hold is
 * lifted (NEXT: the build step makes the Job again, under the same name once the failed one is gone). Undefined when
 * the hold stays.
 */
async function retryForBuildSecrets(pass: Pass): Promise<StepResult | undefined> {
  const { status, deps, app } = pass;
  const held = heldForBuildSecrets(status);
  if (held === null || status.build!.configHash !== pass.fact('build').configHash) return undefined;
  const version = (await leaseSecretsOf(pass))?.version ?? 0;
  if (version <= held) return undefined;
  const short = status.failedRevision!.slice(0, 12);
  const { jobName } = pass.fact('build');
  if (deps.ownedJobs(app).some((job) => job.metadata?.name === jobName)) {
    return waiting('BuildSecretsChanged', `the lease's secrets are at version ${version}: ${short} is built again once its failed build job ${jobName} is gone`, JOB_GONE_MS);
  }
  delete status.failedRevision;
  deps.log(`${pass.key}: lease secrets now at version ${version} (the build of ${short} lacked a build secret at version ${held}): building it again`);
  await deps.events.record(app, 'Normal', 'BuildSecretsChanged', `the lease's secrets are at version ${version}, after the build of ${short} lacked a build secret at version ${held}: building it again`);
  return NEXT;
}
