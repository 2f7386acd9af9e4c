/**
 * Which push brought which commits: a push brought the commits its new ref targets reach and the targets of every
 * earlier push do not (what the log had already set). Read from the object cache, one git walk per push, each kept.
 */
import type { PushEvent } from '../ports/ledger.ts';
import type { CommitInfo, RepositoryObjects } from '../ports/object-cache.ts';

/** The targets a push set (none for a deletion or a repack). */
function targets(event: PushEvent): string[] {
  return event.updates.flatMap((update) => (update.new === null ? [] : [update.new]));
}

/** The commits each of `shown` brought, newest first (`events` is the whole log in order: earlier pushes count). */
export async function commitsOfPushes(objects: RepositoryObjects, events: readonly PushEvent[], shown: ReadonlySet<number>): Promise<Map<number, CommitInfo[]>> {
  const brought = new Map<number, CommitInfo[]>();
  const known = new Set<string>();
  for (const event of events) {
    if (shown.has(event.seq) && targets(event).length > 0) brought.set(event.seq, await objects.introduced(targets(event), [...known]));
    for (const oid of targets(event)) known.add(oid);
  }
  return brought;
}

/** The push that brought commit `oid`, or null when no push in `events` did (a history the log does not explain). */
export async function pushThatBrought(objects: RepositoryObjects, events: readonly PushEvent[], oid: string): Promise<PushEvent | null> {
  const known = new Set<string>();
  for (const event of events) {
    if (targets(event).length > 0 && (await objects.introduced(targets(event), [...known])).some((commit) => commit.oid === oid)) return event;
    for (const target of targets(event)) known.add(target);
  }
  return null;
}
