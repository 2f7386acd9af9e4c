import type { ObjectFormat } from '../core/object-id.ts';
import type { Ancestry } from '../core/push-plan.ts';

/**
 * What the remote use-cases need from the local git repository (implemented over native git by src/git/).
 * Object ids are lowercase hex.
 */
export interface LocalRepository {
  objectFormat(): Promise<ObjectFormat>;
  /** The objects ref names, `HEAD` or hex ids name, in order (null where one names nothing), in one git call. */
  resolve(names: readonly string[]): Promise<(string | null)[]>;
  /** The subset of `ids` present in the object database. */
  presentObjects(ids: readonly string[]): Promise<Set<string>>;
  /**
   * For each pair, how `old` relates to `new` (is `old` an ancestor, is it known here, are both commits), in order;
   * in a few git calls for any number of pairs (a mirror push asks about every ref).
   */
  ancestry(pairs: readonly { old: string; new: string }[]): Promise<Ancestry[]>;
  /**
   * Starts writing a thin pack of everything reachable from `include` and not from `exclude` (git pack-objects
   * --thin --revs) to a temporary file, as fast as git produces it: git never waits for the caller, who reads the
   * pack in chunks as it grows and holds only the chunk in hand. git's own progress goes to stderr when `progress`.
   */
  packObjects(include: readonly string[], exclude: readonly string[], progress: boolean): Promise<SpooledPack>;
  /**
   * Starts indexing a downloaded pack while it arrives, in quarantine: its objects enter the object database only
   * on `apply`, so a pack that fails verification leaves nothing behind.
   */
  /**
   * Starts indexing a pack into a quarantine. With `checkLinks`, every object the pack's objects link to must be in
   * the pack or the repository, or indexing fails (index-pack's check for clones), and the pack is kept (a `.keep`
   * file, whose path `apply` returns) until git has updated its refs and unlocks it.
   */
  receivePack(progress: boolean, checkLinks?: boolean): Promise<IncomingPack>;
  /** Removes what fetches that were killed left in quarantine (only theirs: never a live process's, nor git's own). */
  removeAbandonedFetches(): Promise<void>;
  /**
   * The object format while the repository has no ref (a repository git is cloning into), else null: one git call
   * where a ref exists.
   */
  formatWhileEmpty(): Promise<ObjectFormat | null>;
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

export interface SpooledPack {
  /**
   * Fills `into` with the pack's bytes from `offset` once git has written them (fewer only at the end of the pack)
   * and resolves to their count: 0 past the end. Rejects if git fails.
   */
  read(offset: number, into: Uint8Array): Promise<number>;
  /** The pack's whole size, once git has written all of it (rejects if git fails). Optional. */
  size?(): Promise<number>;
  /** Stops git if it is still writing and removes the file. */
  discard(): Promise<void>;
}

export interface IncomingPack {
  write(bytes: Uint8Array): Promise<void>;
  /** Finishes indexing (index-pack --fix-thin) and moves the pack into the object database. */
  apply(): Promise<string | null>;
  /** Stops indexing and removes the quarantine without touching the object database. */
  discard(): Promise<void>;
}

/** A repository being cloned into a new directory: what a checkout needs beyond a fetch. */
export interface NewClone extends LocalRepository {
  /** Records the remote's branches as `refs/remotes/<remote>/<branch>` and its tags as `refs/tags/<tag>`. */
  setRemoteRefs(refs: ReadonlyMap<string, string>): Promise<void>;
  /** Whether `id` names a commit present here. */
  isCommit(id: string): Promise<boolean>;
  /** The refs set by setRemoteRefs from which `commit` is reachable. */
  refsContaining(commit: string): Promise<string[]>;
  /** Fills the work tree with `commit`, HEAD detached at it. */
  checkoutDetached(commit: string): Promise<void>;
  /** The commit's committer time, in seconds since the epoch (a reproducible build's SOURCE_DATE_EPOCH). */
  commitTime(commit: string): Promise<number>;
}

/** Creates the repository in `dir` (which the caller checked is new or empty), with `url` as its `origin`. */
export type CreateClone = (dir: string, options: { objectFormat: ObjectFormat; url: string }) => Promise<NewClone>;
