import { conditionOf, transitions } from './conditions.ts';
import type { Outcome } from './outcome.ts';
import type { Pass } from './pass.ts';
import type { Condition } from '../../ports/walrus-app.ts';

/**
 * The conditions every outcome sets, in one place (kstatus: Reconciling and Stalled are present only while True):
 * Waiting → Reconciling; Stalling → Ready=False and Stalled; a named Generic failure → Ready=False. Stalled goes with
 * any outcome but Stalling; a repeated Stalling keeps its condition (and its transition time) as it was.
 */
export function conclude(pass: Pass, outcome: Outcome): void {
  switch (outcome.kind) {
    case 'Settled':
      pass.drop('Stalled');
      return;
    case 'Waiting':
      pass.drop('Stalled');
      pass.set('Reconciling', 'True', outcome.reason, outcome.message);
      if (!conditionOf(pass.conditions, 'Ready')) pass.set('Ready', 'Unknown', outcome.reason, outcome.message);
      return;
    case 'Stalling':
      pass.drop('Reconciling');
      pass.set('Ready', 'False', outcome.reason, outcome.message);
      pass.set('Stalled', 'True', outcome.reason, outcome.message);
      return;
    case 'Generic':
      pass.drop('Stalled');
      if (outcome.reason) {
        pass.drop('Reconciling');
        pass.set('Ready', 'False', outcome.reason, outcome.message);
      }
  }
}

/**
 * Writes the status when the pass changed it, then turns each condition that changed into a Kubernetes Event (one
 * event per distinct reason and message: Ready=False and Stalled=True of one stall make one). A failed write is
 * returned, not thrown, so that the caller reports it beside the pass's own outcome; its events are then not sent
 * (the next pass sends them with the status it writes). Otherwise the conditions that changed are returned (what the
 * controller's metrics count: builds, rollouts, rollbacks).
 */
export async function writeStatus(pass: Pass): Promise<{ error: unknown } | { changed: Condition[] }> {
  const { app, deps, status } = pass;
  status.conditions = pass.conditions;
  status.observedGeneration = app.metadata.generation;
  if (JSON.stringify(status) !== JSON.stringify(app.status ?? {})) {
    try {
      await deps.cluster.patchAppStatus(pass.ref(app.metadata.name), status, app.metadata.resourceVersion);
    } catch (error) {
      return { error };
    }
  }
  const sent = new Set<string>();
  const changed = transitions(pass.before, pass.conditions);
  for (const condition of changed) {
    if (condition.type === 'Reconciling' || condition.status === 'Unknown') continue;
    const abnormal = condition.type === 'Stalled' || condition.type === 'Remediated' ? condition.status === 'True' : condition.status === 'False';
    const type = abnormal ? 'Warning' : 'Normal';
    const key = JSON.stringify([type, condition.reason, condition.message]);
    if (sent.has(key)) continue;
    sent.add(key);
    await deps.events.record(app, type, condition.reason, condition.message);
  }
  return { changed };
}
