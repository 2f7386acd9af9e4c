import { conditionOf } from '../conditions.ts';
import { NEXT, stalling, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';
import { applyRelease, lastGoodRelease } from '../release.ts';
import { assessRollout } from '../assess-rollout.ts';

/**
 * The head is a commit that failed (its build, or its rollout): it is not tried again until the head moves or the
 * spec changes; the last good release is re-applied, so that it keeps serving. Ready keeps the reason of the failure.
 */
export async function holdFailedRevision(pass: Pass): Promise<StepResult> {
  const commit = pass.fact('head').commit;
  if (commit !== pass.status.failedRevision) return NEXT;
  const short = commit.slice(0, 12);
  const held = conditionOf(pass.conditions, 'Ready')?.reason ?? 'RevisionFailed';
  const reason = held === 'Succeeded' ? 'RevisionFailed' : held;
  const good = lastGoodRelease(pass.status);
  if (!good || good.commit === commit) return stalling(reason, `${short} failed and is not retried until the head moves`);
  const rollout = assessRollout(await applyRelease(pass, good));
  const serving = rollout.phase === 'Complete' ? `${good.commit.slice(0, 12)} is serving` : `rolling back to ${good.commit.slice(0, 12)}: ${rollout.message}`;
  return stalling(reason, `${short} failed and is not retried until the head moves; ${serving}`);
}
