import { parseWalrusUrl } from '../../core/walrus-url.ts';
import type { Ledger, PushEvent } from '../../ports/ledger.ts';
import type { HeadStatus } from '../../ports/walrus-app.ts';
import type { RemoteSnapshot } from '../../remote/remote-state.ts';
import type { CertifiedReads } from '../../ports/certified.ts';
import { certifyHeads } from '../../remote/certified-heads.ts';

/**
 * Proves a repository's listing (its object and refs as the node served them, with its push log up to that object)
 * certified, or throws why not.
 */
export type CertifyListing = (repositoryId: string, listing: RemoteSnapshot, pushes: readonly PushEvent[]) => Promise<void>;

/** The listing check of certified reads, as a clone makes it; an RPC that lied or lags beside a proved one goes to `warn`. */
export function certifiedListing(certified: CertifiedReads, warn: (line: string) => void): CertifyListing {
  return (repositoryId, listing, pushes) => certifyHeads(certified, repositoryId, listing, pushes, warn);
}

export interface ChainHead {
  repositoryId: string;
  /** The ref followed, in full (`refs/heads/main`). */
  ref: string;
  /** Null when the ref does not exist (yet). */
  head: HeadStatus | null;
  /** The push that set the ref to its commit, from the push log; null when the log has none. */
  push: PushEvent | null;
}

/**
 * Reads an app's head from the chain every time it is asked (level-triggered): the repository object and its refs.
 * The push that set the ref comes from the push log, kept per repository from one incremental scan of the package's
 * `Pushed` events: when a repository's seq is ahead of what this reader holds, it reads the events after its own
 * cursor (every repository's at once), so N apps cost one pass over the events in total, not one pass each. The chain
 * watcher also hands it every push it sees (`observe`), so a followed repository usually needs no read at all.
 * Given `certify`, a listing is handed on only once proved against the validators' certificates.
 */
export class HeadReader {
  readonly #ledger: Pick<Ledger, 'resolve' | 'getRepository' | 'listRefs' | 'listPushesAfter'>;
  readonly #ids = new Map<string, string>();
  /** Per repository: its pushes in seq order, without gaps. */
  readonly #logs = new Map<string, { seq: number; pushes: PushEvent[] }>();
  /** Where this reader's own scan of the events stands; one scan at a time. */
  #cursor: string | null = null;
  #scanning: Promise<void> | null = null;
  readonly #certify: CertifyListing | null;

  constructor(ledger: Pick<Ledger, 'resolve' | 'getRepository' | 'listRefs' | 'listPushesAfter'>, certify: CertifyListing | null = null) {
    this.#ledger = ledger;
    this.#certify = certify;
  }

  /** A push seen on the chain (by the watcher or this reader's scan): appended when it continues the log. */
  observe(event: PushEvent): void {
    let log = this.#logs.get(event.repository);
    if (!log) this.#logs.set(event.repository, (log = { seq: 0, pushes: [] }));
    if (event.seq === log.seq + 1) {
      log.pushes.push(event);
      log.seq = event.seq;
    }
  }

  #catchUp(): Promise<void> {
    return (this.#scanning ??= (async () => {
      try {
        for (;;) {
          const page = await this.#ledger.listPushesAfter(this.#cursor);
          for (const event of page.events) this.observe(event);
          if (page.cursor !== null) this.#cursor = page.cursor;
          if (!page.hasNextPage || page.events.length === 0) return;
        }
      } finally {
        this.#scanning = null;
      }
    })());
  }

  async read(repository: string, ref: string | null): Promise<ChainHead> {
    const repositoryId = await this.#resolve(repository);
    const info = await this.#ledger.getRepository(repositoryId);
    const refs = await this.#ledger.listRefs(repositoryId);
    const name = fullRefName(ref ?? info.head, refs);
    const commit = refs.get(name);
    if (this.#certify) {
      if ((this.#logs.get(repositoryId)?.seq ?? 0) < info.seq) await this.#catchUp();
      const pushes = (this.#logs.get(repositoryId)?.pushes ?? []).filter((push) => push.seq <= info.seq);
      await this.#certify(repositoryId, { info, refs }, pushes);
    }
    if (commit === undefined) return { repositoryId, ref: name, head: null, push: null };
    if ((this.#logs.get(repositoryId)?.seq ?? 0) < info.seq) await this.#catchUp();
    const push = pushThatSet(this.#logs.get(repositoryId)?.pushes ?? [], name, commit);
    return {
      repositoryId, ref: name, push,
      head: { ref: name, commit, seq: push?.seq ?? info.seq, pusher: push?.sender ?? '', transaction: push?.txDigest ?? '' },
    };
  }

  async #resolve(url: string): Promise<string> {
    let id = this.#ids.get(url);
    if (id === undefined) {
      id = await this.#ledger.resolve(parseWalrusUrl(url));
      this.#ids.set(url, id);
    }
    return id;
  }
}

/** `main` → `refs/heads/main` (or `refs/tags/main` when only that exists), as git resolves a short ref name. */
export function fullRefName(ref: string, refs: ReadonlyMap<string, string>): string {
  if (ref.startsWith('refs/')) return ref;
  for (const candidate of [`refs/heads/${ref}`, `refs/tags/${ref}`]) if (refs.has(candidate)) return candidate;
  return `refs/heads/${ref}`;
}

/** The latest push that set `ref` to `commit` (the push log is in ascending seq order), or null. */
export function pushThatSet(pushes: readonly PushEvent[], ref: string, commit: string): PushEvent | null {
  for (let index = pushes.length - 1; index >= 0; index--) {
    const update = pushes[index].updates.find((candidate) => candidate.name === ref);
    if (update) return update.new === commit ? pushes[index] : null;
  }
  return null;
}
