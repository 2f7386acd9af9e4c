import type { Ledger, PushEvent } from '../../ports/ledger.ts';

/** Where the watcher's position is kept between runs (in the cluster: see cursor-store.ts). */
export interface CursorStore {
  load(): Promise<string | null>;
  save(cursor: string): Promise<void>;
}

export interface PollResult {
  /** Chain reads this poll made: one when nothing changed. */
  reads: number;
  events: number;
}

/**
 * Follows every repository at once through one cursor over the package's `Pushed` events (docs/architecture.md, The
 * GitOps controller): a poll reads the events after the cursor, page by page, hands each to `onPush`, and persists the
 * new cursor, so watching N repositories costs one read per poll when nothing moved, not N. A first run with no stored
 * cursor starts at the newest event instead of replaying history (the initial list of apps reconciles each one anyway).
 * The cursor is saved only after every event before it was handed over: a crash re-delivers, never skips (reconcile is
 * idempotent).
 */
export class ChainWatcher {
  readonly #feed: Pick<Ledger, 'listPushesAfter' | 'latestPushCursor'>;
  readonly #store: CursorStore;
  readonly #onPush: (event: PushEvent) => void;
  #started = false;
  #cursor: string | null = null;

  constructor(options: { feed: Pick<Ledger, 'listPushesAfter' | 'latestPushCursor'>; store: CursorStore; onPush: (event: PushEvent) => void }) {
    this.#feed = options.feed;
    this.#store = options.store;
    this.#onPush = options.onPush;
  }

  get cursor(): string | null {
    return this.#cursor;
  }

  async poll(): Promise<PollResult> {
    let reads = 0;
    let events = 0;
    if (!this.#started) {
      this.#cursor = await this.#store.load();
      if (this.#cursor === null) {
        this.#cursor = await this.#feed.latestPushCursor();
        reads++;
        if (this.#cursor !== null) await this.#store.save(this.#cursor);
      }
      this.#started = true;
    }
    const before = this.#cursor;
    for (;;) {
      const page = await this.#feed.listPushesAfter(this.#cursor);
      reads++;
      for (const event of page.events) this.#onPush(event);
      events += page.events.length;
      if (page.cursor !== null) this.#cursor = page.cursor;
      if (!page.hasNextPage || page.events.length === 0) break;
    }
    if (this.#cursor !== null && this.#cursor !== before) await this.#store.save(this.#cursor);
    return { reads, events };
  }
}

/** Which apps follow which repository (object id), so a push enqueues exactly its followers. */
export class RepositoryIndex {
  readonly #apps = new Map<string, Set<string>>();
  readonly #repositoryOf = new Map<string, string>();

  follow(appKey: string, repositoryId: string): void {
    const previous = this.#repositoryOf.get(appKey);
    if (previous === repositoryId) return;
    if (previous !== undefined) this.unfollow(appKey);
    this.#repositoryOf.set(appKey, repositoryId);
    let apps = this.#apps.get(repositoryId);
    if (!apps) this.#apps.set(repositoryId, (apps = new Set()));
    apps.add(appKey);
  }

  unfollow(appKey: string): void {
    const repositoryId = this.#repositoryOf.get(appKey);
    if (repositoryId === undefined) return;
    this.#repositoryOf.delete(appKey);
    const apps = this.#apps.get(repositoryId)!;
    apps.delete(appKey);
    if (apps.size === 0) this.#apps.delete(repositoryId);
  }

  appsOf(repositoryId: string): string[] {
    return [...(this.#apps.get(repositoryId) ?? [])];
  }

  get size(): number {
    return this.#repositoryOf.size;
  }
}
