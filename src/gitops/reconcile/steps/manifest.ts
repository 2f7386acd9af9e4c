import { recordHistory } from '../conditions.ts';
import { applyManifest } from '../../manifest/precedence.ts';
import { NEXT, stalling, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/**
 * The app's manifest at the head, against the provider's offer (manifest/precedence.ts): a manifest asking beyond it
 * is refused, naming the field; the commit is not released (nor tried again until the head moves) and the running
 * release keeps serving. Otherwise the rollout runs the app as the manifest says wherever the operator said nothing.
 */
export function checkManifest(pass: Pass): StepResult {
  const { status, now } = pass;
  const commit = pass.fact('head').commit;
  const manifest = pass.fact('manifest');
  const decision = applyManifest(pass.app, manifest, pass.deps.offer);
  if (decision.ok) return NEXT;
  const message = `package.json ${decision.field} ${decision.reason}`;
  status.failedRevision = commit;
  status.history = recordHistory(status.history, { commit, artifact: pass.fact('artifact'), manifest, result: 'ManifestRefused', time: now.toISOString(), message });
  pass.set('Released', 'False', 'ManifestRefused', message);
  const serving = status.lastAppliedRevision ? `; ${status.lastAppliedRevision.slice(0, 12)} keeps serving` : '';
  return stalling('ManifestRefused', `${commit.slice(0, 12)} is not released: ${message}${serving}`);
}
