import { NEXT, stalling, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/** An app naming another network than the one this controller serves is refused until its spec changes. */
export function checkNetwork(pass: Pass): StepResult {
  const wanted = pass.spec.network;
  if (wanted === null || wanted === pass.deps.network) return NEXT;
  return stalling('NetworkMismatch', `the app names network '${wanted}' but this controller serves '${pass.deps.network}'`);
}
