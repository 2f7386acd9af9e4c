import { SETTLED, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/** Every step before went through: the release serves, the app is Ready. */
export function markReady(pass: Pass): StepResult {
  pass.set('Ready', 'True', 'Succeeded', `serving ${pass.fact('release').commit.slice(0, 12)}`);
  pass.drop('Reconciling');
  return SETTLED;
}
