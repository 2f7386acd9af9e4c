import type { ClientWithCoreApi, SuiClientTypes } from '@mysten/sui/client';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import {
  HeadSet, OwnershipTransferred, ReaderAdded, ReaderRemoved, RefProtected, RefUnprotected, RepositoryCreated, WriterAdded, WriterRemoved, eventType,
  type EventName,
} from '../contract/bcs.ts';
import type { AccessChange, AccessChangeKind, CreatedRepository, RepositoryDirectory } from '../ports/directory.ts';

const PAGE = 50;

type ListedEvent = SuiClientTypes.ListEventsResponse['events'][number];

/** How each access event reads: its kind and the field it is about. */
const ACCESS_EVENTS: Array<{ name: EventName; kind: AccessChangeKind; subject(bytes: Uint8Array): { repository: string; subject: string } }> = [
  { name: 'WriterAdded', kind: 'writer-added', subject: (b) => { const e = WriterAdded.parse(b); return { repository: e.repository, subject: e.writer }; } },
  { name: 'WriterRemoved', kind: 'writer-removed', subject: (b) => { const e = WriterRemoved.parse(b); return { repository: e.repository, subject: e.writer }; } },
  { name: 'ReaderAdded', kind: 'reader-added', subject: (b) => { const e = ReaderAdded.parse(b); return { repository: e.repository, subject: e.reader }; } },
  { name: 'ReaderRemoved', kind: 'reader-removed', subject: (b) => { const e = ReaderRemoved.parse(b); return { repository: e.repository, subject: e.reader }; } },
  { name: 'RefProtected', kind: 'ref-protected', subject: (b) => { const e = RefProtected.parse(b); return { repository: e.repository, subject: e.name }; } },
  { name: 'RefUnprotected', kind: 'ref-unprotected', subject: (b) => { const e = RefUnprotected.parse(b); return { repository: e.repository, subject: e.name }; } },
  { name: 'HeadSet', kind: 'head-set', subject: (b) => { const e = HeadSet.parse(b); return { repository: e.repository, subject: e.head }; } },
  { name: 'OwnershipTransferred', kind: 'ownership-transferred', subject: (b) => { const e = OwnershipTransferred.parse(b); return { repository: e.repository, subject: e.to }; } },
];

/** The changes after which someone who could read no longer may (the old owner of a transfer is no member). */
const REMOVALS = new Set<AccessChangeKind>(['writer-removed', 'reader-removed', 'ownership-transferred']);

/** The repository directory over the package's events (every page of each event type). */
export class SuiDirectory implements RepositoryDirectory {
  readonly #client: ClientWithCoreApi;
  readonly #packageId: string;

  constructor(options: { client: ClientWithCoreApi; packageId: string }) {
    this.#client = options.client;
    this.#packageId = options.packageId;
  }

  async listRepositories(): Promise<CreatedRepository[]> {
    return (await this.#events('RepositoryCreated')).map((event) => {
      const created = RepositoryCreated.parse(event.bcs);
      return { id: created.repository, owner: created.owner, name: created.name, txDigest: event.transactionDigest, checkpoint: checkpointOf(event) };
    });
  }

  async listAccessChanges(id: string): Promise<AccessChange[]> {
    const repository = normalizeSuiAddress(id);
    const lists = await Promise.all(ACCESS_EVENTS.map(async ({ name, kind, subject }) => (await this.#events(name)).flatMap((event) => {
      const parsed = subject(event.bcs);
      return parsed.repository === repository ? [{ kind, subject: parsed.subject, txDigest: event.transactionDigest, checkpoint: checkpointOf(event) }] : [];
    })));
    // An event carries no time: its transaction does (one read each; a repository's access changes are few).
    const changes = await Promise.all(lists.flat().map(async (change) => ({ ...change, timestampMs: await this.#timeOf(change.txDigest) })));
    // Events of different types interleave by time; within one type, the order of its list is kept.
    return changes.sort((a, b) => (a.timestampMs ?? a.checkpoint ?? 0) - (b.timestampMs ?? b.checkpoint ?? 0));
  }

  async countRemovals(id: string): Promise<number> {
    const repository = normalizeSuiAddress(id);
    const lists = await Promise.all(ACCESS_EVENTS.filter(({ kind }) => REMOVALS.has(kind)).map(async ({ name, subject }) =>
      (await this.#events(name)).filter((event) => subject(event.bcs).repository === repository)));
    return lists.flat().length;
  }

  async #timeOf(digest: string): Promise<number | null> {
    const result = await this.#client.core.getTransaction({ digest });
    const time = result.Transaction?.timestampMs ?? result.FailedTransaction?.timestampMs;
    return time === null || time === undefined ? null : Number(time);
  }

  async #events(name: EventName): Promise<ListedEvent[]> {
    const events: ListedEvent[] = [];
    let after: string | null = null;
    do {
      const page: SuiClientTypes.ListEventsResponse = await this.#client.core.listEvents({ filter: { eventType: eventType(this.#packageId, name) }, after, limit: PAGE });
      events.push(...page.events);
      after = page.hasNextPage ? page.endCursor : null;
    } while (after !== null);
    return events;
  }
}

function checkpointOf(event: ListedEvent): number | null {
  const checkpoint = (event as { checkpoint?: string | null }).checkpoint;
  return checkpoint === undefined || checkpoint === null ? null : Number(checkpoint);
}
