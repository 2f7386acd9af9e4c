import { parseWalrusUrl } from '../../core/walrus-url.ts';
import type { Ledger, PushEvent } from '../../ports/ledger.ts';
import type { HeadStatus } from '../api/types.ts';
import { pushThatSet } from '../reconcile/policy.ts';

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
 * The push that set the ref comes from the push log, which is read again only when the repository's seq moved past
 * what this reader has seen: the chain watcher feeds it every push (`observe`), so a followed repository costs no log
 * scan after the first.
 */
export class HeadReader {
  readonly #ledger: Pick<Ledger, 'resolve' | 'getRepository' | 'listRefs' | 'listPushes'>;
  readonly #ids = new Map<string, string>();
  /** Per repository: every push seen, and the seq they cover up to. */
  readonly #logs = new Map<string, { seq: number; pushes: PushEvent[] }>();

  constructor(ledger: Pick<Ledger, 'resolve' | 'getRepository' | 'listRefs' | 'listPushes'>) {
    this.#ledger = ledger;
  }

  /** A push the chain watcher saw: appended when it continues a log this reader holds. */
  observe(event: PushEvent): void {
    const log = this.#logs.get(event.repository);
    if (log && event.seq === log.seq + 1) {
      log.pushes.push(event);
      log.seq = event.seq;
    }
  }

  async read(repository: string, ref: string | null): Promise<ChainHead> {
    const repositoryId = await this.#resolve(repository);
    const info = await this.#ledger.getRepository(repositoryId);
    const refs = await this.#ledger.listRefs(repositoryId);
    const name = fullRefName(ref ?? info.head, refs);
    const commit = refs.get(name);
    if (commit === undefined) return { repositoryId, ref: name, head: null, push: null };
    let log = this.#logs.get(repositoryId);
    if (!log || log.seq < info.seq) {
      const pushes = await this.#ledger.listPushes(repositoryId);
      log = { seq: pushes.at(-1)?.seq ?? 0, pushes };
      this.#logs.set(repositoryId, log);
    }
    const push = pushThatSet(log.pushes, name, commit);
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
