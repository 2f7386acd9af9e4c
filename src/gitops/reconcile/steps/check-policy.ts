import { NEXT, stalling, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';
import { decidePolicy } from '../policy.ts';

/** A head deploys only when the push that set it was sent by an allowed address (`spec.policy.allowedPushers`). */
export function checkPolicy(pass: Pass): StepResult {
  const head = pass.fact('head');
  const decision = decidePolicy(pass.spec.policy.allowedPushers, pass.fact('push'), head.ref, head.commit);
  return decision.allowed ? NEXT : stalling('PushRefused', decision.message);
}
