import { plannedConfig } from '../../api/build-config.ts';
import { ANNOTATIONS } from '../../templates/names.ts';
import { BUILD_ATTEMPTS } from '../build-failure.ts';
import { NEXT, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/** Which build the head needs: its commit, the hash of the build settings (the offer's buildEnv among them), the attempt, and so the Job's name. */
export function planBuild(pass: Pass): StepResult {
  const commit = pass.fact('head').commit;
  const config = plannedConfig(pass.spec, pass.deps.offer.buildEnv);
  const attempt = currentAttempt(pass, commit, config.configHash);
  pass.learn('build', { commit, ...config, attempt, jobName: pass.deps.templates.buildJobName(pass.app, commit, config.configHash, attempt) });
  return NEXT;
}

/**
 * Which attempt at (commit, config) is current: the status's record, or a newer attempt's Job already made (the
 * informer's copy of the app may lag behind the status this controller wrote).
 */
function currentAttempt(pass: Pass, commit: string, configHash: string): number {
  const { status } = pass;
  const recorded = status.build?.commit === commit && status.build.configHash === configHash ? status.build.attempt : 1;
  const made = pass.deps.ownedJobs(pass.app)
    .map((job) => job.metadata?.annotations ?? {})
    .filter((annotations) => annotations[ANNOTATIONS.commit] === commit && annotations[ANNOTATIONS.buildConfig] === configHash)
    .map((annotations) => Number(annotations[ANNOTATIONS.buildAttempt] ?? 1));
  return Math.min(BUILD_ATTEMPTS, Math.max(recorded, ...made.filter((n) => Number.isInteger(n) && n >= 1)));
}
