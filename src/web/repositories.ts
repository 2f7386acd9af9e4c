/**
 * A repository as the pages see it: its state on chain (read at every view, one object read), its refs (re-read only
 * when the push count moved) and, when the running key may read it, its objects in the local cache.
 */
import { messageOf, WalrusGitError } from '../core/errors.ts';
import { canRead } from '../core/read-access.ts';
import type { RepositoryInfo } from '../ports/ledger.ts';
import type { RepositoryObjects } from '../ports/object-cache.ts';
import type { WebServices, WebSettings } from './app.ts';

export interface LoadedRepository {
  info: RepositoryInfo;
  refs: ReadonlyMap<string, string>;
  /** Whether the pages may show its contents: public, or private and readable by the running key (and allowed). */
  readable: boolean;
}

export class Repositories {
  readonly #services: WebServices;
  readonly #settings: WebSettings;
  readonly #refs = new Map<string, { seq: number; refs: Map<string, string> }>();

  constructor(services: WebServices, settings: WebSettings) {
    this.#services = services;
    this.#settings = settings;
  }

  async load(id: string): Promise<LoadedRepository> {
    const info = await this.#services.ledger.getRepository(id);
    let known = this.#refs.get(info.id);
    if (known === undefined || known.seq !== info.seq) {
      known = { seq: info.seq, refs: await this.#services.ledger.listRefs(info.id) };
      this.#refs.set(info.id, known);
    }
    return { info, refs: known.refs, readable: await this.readable(info) };
  }

  async readable(info: RepositoryInfo): Promise<boolean> {
    if (!info.private) return true;
    if (!this.#settings.privateContents) return false;
    const viewer = await this.#services.viewer();
    return viewer !== null && canRead(info, viewer);
  }

  /**
   * The repository's objects, fetched into the cache on first need (callers check `readable`). A fetch that fails (a
   * corrupt or lost pack, an unreachable aggregator) is a `RepositoryUnreadableError`, tried again at the next view.
   */
  async objects(repo: LoadedRepository): Promise<RepositoryObjects> {
    try {
      return await this.#services.objectCache.open(repo.info.id, `walrus://${repo.info.id}`, repo.refs, repo.info.head);
    } catch (error) {
      throw new RepositoryUnreadableError(repo.info.id, error);
    }
  }
}

/**
 * The repository's packs could not be fetched or applied for the code pages: the chain's pages still show.
 * What to do: open the push log and run "Verify everything" (or `git walrus verify --deep`): it names the push whose
 * pack is damaged or gone; a writer who still has those objects pushes them again.
 */
export class RepositoryUnreadableError extends WalrusGitError {
  constructor(id: string, cause: unknown) {
    super('WEB_REPOSITORY_UNREADABLE', `cannot read the contents of repository ${id}: ${messageOf(cause).replace(/^git clone failed \(exit \d+\): (fatal: )?/, '')}`, { id }, { cause });
  }
}
