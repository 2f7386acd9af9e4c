/**
 * A local, read-only git object store per repository, filled from the same packs the remote helper fetches (for
 * `git walrus web`): pages read trees, files, commits and diffs from it instead of from Walrus. Implemented by
 * src/git/object-cache.ts over a bare repository per repository id. Object ids are lowercase hex.
 */
import type { Readable } from 'node:stream';

export interface TreeEntry {
  /** The entry's name inside its tree (any bytes a pusher chose, decoded as UTF-8). */
  name: string;
  type: 'blob' | 'tree' | 'commit';
  mode: string;
  oid: string;
  /** Bytes, for blobs. */
  size: number | null;
}

export interface PersonStamp {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  time: number;
}

export interface CommitInfo {
  oid: string;
  parents: string[];
  author: PersonStamp;
  committer: PersonStamp;
  /** The whole message. */
  message: string;
}

/** A unified diff as git prints it, cut at `maxBytes` on a file boundary. */
export interface Patch {
  text: string;
  truncated: boolean;
}

/** One file a diff changes: lines added and deleted, null for a binary file (git counts no lines in one). */
export interface FileChange {
  path: string;
  /** The old path of a renamed file. */
  renamedFrom?: string;
  added: number | null;
  deleted: number | null;
}

/** A commit of a file's history, with the file's path in it (a history that follows renames changes path). */
export interface FileCommit {
  commit: CommitInfo;
  /** The file's path at this commit. */
  path: string;
  /** The path it had before, when this commit renamed (or copied) it. */
  renamedFrom?: string;
}

/** Who last changed each line of a file at a commit. */
export interface Blame {
  /** One entry per line of the file, in order: the commit that last changed it. */
  lines: string[];
  /** Each commit named in `lines`, with the file's path at it. */
  commits: Map<string, { author: PersonStamp; summary: string; path: string }>;
  /**
   * Where the walk stopped, when the history goes back further than it looked: lines attributed to this commit were
   * last changed at it or before. Null when the whole history was looked at.
   */
  stoppedAt: string | null;
}

export interface RepositoryObjects {
  /** The commit a ref name, tag or (abbreviated) object id names; null when none. */
  resolveCommit(rev: string): Promise<string | null>;
  /** The entry at `path` ('' = the root tree) in `commit`; null when there is none. */
  entry(commit: string, path: string): Promise<TreeEntry | null>;
  /** The entries of a tree, trees first, then by name. */
  listTree(treeOid: string): Promise<TreeEntry[]>;
  /** A blob's bytes (callers check the size first). */
  readBlob(oid: string): Promise<Uint8Array>;
  /** A blob's bytes as a stream, for downloads of any size. */
  streamBlob(oid: string): Readable;
  /** Commits reachable from `commit`, newest first, `skip` then at most `limit`. */
  log(commit: string, skip: number, limit: number): Promise<CommitInfo[]>;
  /** Commits reachable from `commit` that change `path` (a file or folder), newest first, `skip` then at most `limit`. */
  history(commit: string, path: string, skip: number, limit: number): Promise<CommitInfo[]>;
  /**
   * The commits reachable from `commit` that change the file at `path`, newest first, following it across renames (as
   * `git log --follow` does), `skip` then at most `limit`.
   */
  fileHistory(commit: string, path: string, skip: number, limit: number): Promise<FileCommit[]>;
  /** Who last changed each line of the file at `path` in `commit`, looking at most `maxCommits` commits back. */
  blame(commit: string, path: string, maxCommits: number): Promise<Blame>;
  /**
   * The commits reachable from `tips` and from none of `known` (what a push brought, given what earlier pushes had set),
   * newest first; ids the store does not hold are passed over.
   */
  introduced(tips: readonly string[], known: readonly string[]): Promise<CommitInfo[]>;
  /** How many commits `commit` reaches. */
  countCommits(commit: string): Promise<number>;
  /** Commits in `to` and not in `from`, newest first, at most `limit`. */
  between(from: string, to: string, limit: number): Promise<CommitInfo[]>;
  commit(oid: string): Promise<CommitInfo | null>;
  /** The diff from `from` (null: the empty tree) to `to`. */
  diff(from: string | null, to: string, maxBytes: number): Promise<Patch>;
  /** Every file the same diff changes, however large the diff is. */
  diffStat(from: string | null, to: string): Promise<FileChange[]>;
  /** The best common ancestor, or null. */
  mergeBase(a: string, b: string): Promise<string | null>;
}

export interface ObjectCache {
  /**
   * The cache of repository `id`, made to hold `refs` (name → commit) first: what it lacks is fetched once from
   * `url` through the remote helper (concurrent callers share one fetch); `head` names the default branch.
   */
  open(id: string, url: string, refs: ReadonlyMap<string, string>, head: string): Promise<RepositoryObjects>;
}
