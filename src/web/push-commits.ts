/**
 * Which push brought which commits: a push brought the commits its new ref targets reach and the targets of every
 * earlier push do not (what the log had already set). Read from the object cache, one git walk per push, each kept,
 * and indexed by commit once per log.
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

/** Each reader's index of which push brought which commit, for the log it was made from (its newest push). */
const indexes = new WeakMap<RepositoryObjects, { newest: number; index: Promise<Map<string, PushEvent>> }>();

/**
 * Which push brought each commit the log explains, made once per reader and log (a page of blame names many
 * commits); a commit no push brought is absent.
 */
export function pushIndex(objects: RepositoryObjects, events: readonly PushEvent[]): Promise<Map<string, PushEvent>> {
  const newest = events.at(-1)?.seq ?? 0;
  const kept = indexes.get(objects);
  if (kept?.newest === newest) return kept.index;
  const index = (async () => {
    const brought = new Map<string, PushEvent>();
    const known = new Set<string>();
    for (const event of events) {
      if (targets(event).length > 0) for (const commit of await objects.introduced(targets(event), [...known])) if (!brought.has(commit.oid)) brought.set(commit.oid, event);
      for (const target of targets(event)) known.add(target);
    }
    return brought;
  })();
  indexes.set(objects, { newest, index });
  index.catch(() => indexes.delete(objects));
  return index;
}

/** The push that brought commit `oid`, or null when no push in `events` did (a history the log does not explain). */
export async function pushThatBrought(objects: RepositoryObjects, events: readonly PushEvent[], oid: string): Promise<PushEvent | null> {
  return (await pushIndex(objects, events)).get(oid) ?? null;
}
