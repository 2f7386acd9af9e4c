import { recordHistory } from '../conditions.ts';
import { NEXT, stalling, waiting, WATCH_PROGRESS_MS, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';
import { applyRelease, lastGoodRelease } from '../release.ts';
import { assessRollout } from '../assess-rollout.ts';

/**
 * The head's artifact rolls out: the Deployment's template and the Service are applied (server-side, the same
 * objects again change nothing) and the Deployment's own rolling update is followed. A rollout that exceeds its
 * progress deadline is rolled back to the last good release, and its commit is not tried again until the head moves.
 */
export async function rollout(pass: Pass): Promise<StepResult> {
  const { status, deps, now } = pass;
  const release = { commit: pass.fact('head').commit, artifact: pass.fact('artifact'), manifest: pass.fact('manifest') };
  const short = release.commit.slice(0, 12);
  const state = assessRollout(await applyRelease(pass, release));
  if (state.phase === 'Progressing') {
    pass.set('Released', 'Unknown', 'Progressing', `rolling out ${short}: ${state.message}`);
    return waiting('Progressing', `rolling out ${short}: ${state.message}`, WATCH_PROGRESS_MS);
  }
  if (state.phase === 'Complete') {
    const first = status.lastAppliedRevision !== release.commit;
    status.lastAppliedRevision = release.commit;
    // A release after a failure: the failed commit is history now (its entry says so), not a state to show.
    if (status.failedRevision !== release.commit) delete status.failedRevision;
    status.history = recordHistory(status.history, { commit: release.commit, artifact: release.artifact, manifest: release.manifest, result: 'Released', time: now.toISOString(), message: state.message });
    pass.set('Released', 'True', 'RolloutSucceeded', `${short} rolled out: ${state.message}`);
    pass.drop('Remediated');
    if (first) deps.log(`${pass.key}: ${short} released (${state.message})`);
    pass.learn('release', release);
    return NEXT;
  }
  // ProgressDeadlineExceeded: back to the last good template; this commit is not tried again until the head moves.
  status.failedRevision = release.commit;
  status.history = recordHistory(status.history, { commit: release.commit, artifact: release.artifact, manifest: release.manifest, result: 'RolledBack', time: now.toISOString(), message: state.message });
  pass.set('Released', 'False', 'UpgradeFailed', `${short} did not become available: ${state.message}`);
  const good = lastGoodRelease(status);
  if (!good) {
    pass.drop('Remediated');
    return stalling('ProgressDeadlineExceeded', `${short} did not become available and there is no earlier release to roll back to: ${state.message}`);
  }
  await applyRelease(pass, good);
  deps.log(`${pass.key}: ${short} failed (${state.message}); rolled back to ${good.commit.slice(0, 12)}`);
  pass.set('Remediated', 'True', 'RollbackSucceeded', `rolled back to ${good.commit.slice(0, 12)} after ${short} failed: ${state.message}`);
  return stalling('RolledBack', `${short} failed and was rolled back; ${good.commit.slice(0, 12)} keeps serving`);
}
