import { exposureDigest, alignExposure } from '../align-exposure.ts';
import { NEXT, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';

/**
 * The provider's offer changed how apps are exposed (no ingress any more, another domain, no LoadBalancer): what
 * the app has is brought in line now, not at its next rollout (a pass waiting on a build or stalled never gets
 * there), and an event says what changed. Looked at only when the offer's exposure differs from the one recorded.
 */
export async function followOffer(pass: Pass): Promise<StepResult> {
  const { deps, app, status } = pass;
  const digest = exposureDigest(deps.templates, app);
  if (status.exposure === digest) return NEXT;
  const changes = await alignExposure(pass);
  status.exposure = digest;
  if (changes.length > 0) await deps.events.record(app, 'Normal', 'ExposureChanged', `the provider's offer changed how apps are exposed: ${changes.join('; ')}`);
  return NEXT;
}
