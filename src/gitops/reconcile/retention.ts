import type { HistoryEntry, WalrusAppStatus } from '../../ports/walrus-app.ts';

/**
 * Artifact retention, pure: which history entries' artifacts a provider may give up. Kept: the artifact the app
 * serves (also the rollback target, since a failed rollout goes back to the last release that rolled out), the head's
 * build (`status.artifact`, which a changed spec may deploy again), and those of the newest `keep` releases. Every
 * other artifact the history names, not reclaimed yet, goes. Two commits with the same tree share one artifact blob:
 * it is kept when either is.
 */
export function artifactsToReclaim(status: WalrusAppStatus, keep: number): HistoryEntry[] {
  const history = status.history ?? [];
  const kept = new Set<string>();
  const serving = history.find((entry) => entry.result === 'Released' && entry.commit === status.lastAppliedRevision)?.artifact;
  if (serving) kept.add(serving.blobId);
  if (status.artifact) kept.add(status.artifact.blobId);
  let releases = serving ? 1 : 0;
  for (const entry of history) {
    if (releases >= keep) break;
    if (entry.result !== 'Released' || !entry.artifact || entry.reclaimed || kept.has(entry.artifact.blobId)) continue;
    kept.add(entry.artifact.blobId);
    releases += 1;
  }
  return history.filter((entry) => entry.artifact && !entry.reclaimed && !kept.has(entry.artifact.blobId));
}
