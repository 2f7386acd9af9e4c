import type { ObjectFormat } from '../core/object-id.ts';
import type { Ancestry } from '../core/push-plan.ts';

/**
 * What the remote use-cases need from the local git repository (implemented over native git by src/git/).
 * Object ids are lowercase hex.
 */
export interface LocalRepository {
  objectFormat(): Promise<ObjectFormat>;
  /** The object a ref name, `HEAD` or hex id names; null when it names nothing. */
  resolve(name: string): Promise<string | null>;
  /** The subset of `ids` present in the object database. */
  presentObjects(ids: readonly string[]): Promise<Set<string>>;
  /** How `old` relates to `next` (is `old` an ancestor, is it known here, are both commits). */
  ancestry(old: string, next: string): Promise<Ancestry>;
  /**
   * Streams a thin pack of everything reachable from `include` and not from `exclude` (git pack-objects --thin
   * --stdout --revs); git's own progress goes to stderr when `progress` is set.
   */
  packObjects(include: readonly string[], exclude: readonly string[], progress: boolean): AsyncIterable<Uint8Array>;
  /**
   * Starts indexing a downloaded pack while it arrives, in quarantine: its objects enter the object database only
   * on `apply`, so a pack that fails verification leaves nothing behind.
   */
  receivePack(progress: boolean): Promise<IncomingPack>;
  /** The per-repository fetch record (how many packs of the remote this repository has applied). */
  readAppliedPacks(repositoryId: string): Promise<number>;
  writeAppliedPacks(repositoryId: string, count: number): Promise<void>;
  /** The refs this repository last listed from the remote, with the `seq` they belong to; null when none are kept. */
  readListedRefs(repositoryId: string): Promise<ListedRefs | null>;
  /** Keeps `listed` for the next `list` (written crash-safely: a reader sees the old or the new record). */
  writeListedRefs(repositoryId: string, listed: ListedRefs): Promise<void>;
}

/** Refs as the chain held them at repository `seq` (refs change only by a push or repack, which advance seq). */
export interface ListedRefs {
  seq: number;
  refs: Map<string, string>;
}

export interface IncomingPack {
  write(bytes: Uint8Array): Promise<void>;
  /** Finishes indexing (index-pack --fix-thin) and moves the pack into the object database. */
  apply(): Promise<void>;
  /** Stops indexing and removes the quarantine without touching the object database. */
  discard(): Promise<void>;
}
