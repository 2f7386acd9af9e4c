/**
 * A repository as the pages see it: its state on chain (read at every view, one object read), its refs (re-read only
 * when the push count moved) and, when the running key may read it, its objects in the local cache.
 */
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

  /** The repository's objects, fetched into the cache on first need (callers check `readable`). */
  objects(repo: LoadedRepository): Promise<RepositoryObjects> {
    return this.#services.objectCache.open(repo.info.id, `walrus://${repo.info.id}`, repo.refs, repo.info.head);
  }
}
