import { HISTORY_LIMIT } from '../api/types.ts';
import { type Condition, type ConditionStatus, type ConditionType, type HistoryEntry } from '../../ports/walrus-app.ts';

export interface ConditionUpdate {
  type: ConditionType;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/**
 * Sets one condition (metav1.Condition rules): `lastTransitionTime` moves only when the status changes, so
 * `kubectl describe` shows since when the app has been (not) Ready. Returns a new list, sorted by type.
 */
export function setCondition(conditions: readonly Condition[], update: ConditionUpdate, now: Date, generation: number | undefined): Condition[] {
  const previous = conditions.find((condition) => condition.type === update.type);
  const lastTransitionTime = previous && previous.status === update.status ? previous.lastTransitionTime : now.toISOString();
  const next: Condition = { ...update, lastTransitionTime, ...(generation !== undefined ? { observedGeneration: generation } : {}) };
  return [...conditions.filter((condition) => condition.type !== update.type), next].sort((a, b) => a.type.localeCompare(b.type));
}

export function removeCondition(conditions: readonly Condition[], type: ConditionType): Condition[] {
  return conditions.filter((condition) => condition.type !== type);
}

export function conditionOf(conditions: readonly Condition[] | undefined, type: ConditionType): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/** The conditions whose status or reason changed from `before` to `after` (each one is a Kubernetes Event). */
export function transitions(before: readonly Condition[] | undefined, after: readonly Condition[]): Condition[] {
  return after.filter((condition) => {
    const old = conditionOf(before, condition.type);
    return !old || old.status !== condition.status || old.reason !== condition.reason;
  });
}

/** Adds a release outcome, newest first, at most HISTORY_LIMIT; the same outcome for the same commit is not repeated. */
export function recordHistory(history: readonly HistoryEntry[] | undefined, entry: HistoryEntry): HistoryEntry[] {
  const [latest, ...rest] = history ?? [];
  if (latest && latest.commit === entry.commit && latest.result === entry.result) return [latest, ...rest];
  return [entry, ...(history ?? [])].slice(0, HISTORY_LIMIT);
}
