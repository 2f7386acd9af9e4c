import { conditionOf } from '../conditions.ts';
import { NEXT, SETTLED, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/** `spec.suspend`: nothing is read, built or applied; Ready keeps its status, with the reason Suspended. */
export function skipIfSuspended(pass: Pass): StepResult {
  if (!pass.spec.suspend) return NEXT;
  pass.drop('Reconciling');
  pass.set('Ready', conditionOf(pass.conditions, 'Ready')?.status ?? 'Unknown', 'Suspended', 'spec.suspend is set: nothing is read, built or applied');
  return SETTLED;
}
