import { messageOf } from '../../../core/errors.ts';
import { DEFAULT_OFFER } from '../../api/offer.ts';
import { NEXT, type StepResult } from '../outcome.ts';
import type { Pass } from '../pass.ts';
import { artifactsToReclaim } from '../retention.ts';

/**
 * Artifact retention (retention.ts chooses): once a release has rolled out, the artifacts beyond the offer's
 * `keepArtifacts` are reclaimed, each with an Event, and their history entries marked so. A reclaim that fails is
 * reported and tried again next pass; it never holds the app back. The deploy records on chain keep naming them.
 */
export async function reclaimArtifacts(pass: Pass): Promise<StepResult> {
  const { deps, status } = pass;
  if (!deps.reclaimArtifact) return NEXT;
  const keep = deps.offer.keepArtifacts ?? DEFAULT_OFFER.keepArtifacts;
  const doomed = artifactsToReclaim(status, keep);
  const done = new Map<string, boolean>();
  for (const entry of doomed) {
    const { blobId } = entry.artifact!;
    if (!done.has(blobId)) done.set(blobId, await reclaimOne(pass, blobId, entry.commit, keep));
    if (done.get(blobId)) entry.reclaimed = true;
  }
  return NEXT;
}

async function reclaimOne(pass: Pass, blobId: string, commit: string, keep: number): Promise<boolean> {
  const { deps, app } = pass;
  const what = `artifact ${blobId} of ${commit.slice(0, 12)}`;
  try {
    const r = await deps.reclaimArtifact!(blobId);
    const parts = [r.deleted > 0 ? `deleted ${r.deleted} Blob object(s), freeing ${r.bytes} bytes of Walrus storage (transaction ${r.digest})` : 'deleted no Blob object'];
    if (r.permanent > 0) parts.push(`${r.permanent} permanent blob(s) left to lapse at their end epoch`);
    if (r.notOwned > 0) parts.push(`${r.notOwned} blob(s) not held by this provider (already gone, or stored by another key)`);
    await deps.events.record(app, 'Normal', 'ArtifactReclaimed', `${what} reclaimed (beyond the ${keep} kept): ${parts.join('; ')}`);
    return true;
  } catch (error) {
    await deps.events.record(app, 'Warning', 'ArtifactReclaimFailed', `${what} could not be reclaimed, tried again next pass: ${messageOf(error)}`);
    return false;
  }
}
