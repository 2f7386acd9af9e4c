/**
 * Reads git objects straight from packfiles with isomorphic-git: no git binary and no clone. Packs are added in
 * push order to a throw-away bare object store in a temporary directory, so a thin pack's deltas resolve against the
 * objects of earlier packs (what `git index-pack --fix-thin` does). Used by `git walrus show` and `verify --deep`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import type { CommitObject, TagObject } from 'isomorphic-git';
import { WalrusGitError } from '../core/errors.ts';
import { parseTree, type TreeEntry } from './tree-entries.ts';

type StoredObject =
  | { type: 'commit'; object: CommitObject }
  | { type: 'tag'; object: TagObject }
  | { type: 'tree'; object: TreeEntry[] }
  | { type: 'blob' };

/**
 * A pack could not be indexed: corrupt bytes, or a thin pack whose delta base is in no earlier pack.
 * What to do: fetch again; if it persists, tell the repository's writers which pack (its blob id) cannot be read.
 */
export class PackUnreadableError extends WalrusGitError {
  constructor(label: string, reason: string, cause?: unknown) {
    super('PACK_UNREADABLE', `${label}: the pack cannot be read: ${reason}`, { pack: label, reason }, { cause });
  }
}

/** Who and when, as git records it in a commit or tag. */
export interface GitSignature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  /** Minutes, with git's sign convention as isomorphic-git reports it (UTC+2 → -120). */
  timezoneOffset: number;
}

export interface CommitSummary {
  oid: string;
  tree: string;
  parents: string[];
  author: GitSignature;
  committer: GitSignature;
  /** First line of the message. */
  subject: string;
  message: string;
}

/** The first object a reachability walk could not read, and the object that refers to it. */
export interface MissingObject {
  oid: string;
  /** The object that names `oid` (null when `oid` is the starting point itself). */
  referencedBy: string | null;
}

/** An object store that grows one pack at a time; call `close()` to delete its temporary directory. */
export class PackObjectReader {
  readonly #gitdir: string;
  readonly #cache: object = {};
  #packs = 0;

  private constructor(gitdir: string) {
    this.#gitdir = gitdir;
  }

  static async open(): Promise<PackObjectReader> {
    const gitdir = await mkdtemp(join(tmpdir(), 'walrus-packs-'));
    await mkdir(join(gitdir, 'objects', 'pack'), { recursive: true });
    await mkdir(join(gitdir, 'refs'), { recursive: true });
    await writeFile(join(gitdir, 'HEAD'), 'ref: refs/heads/main\n');
    return new PackObjectReader(gitdir);
  }

  /**
   * Adds a pack (after every earlier pack it may be thin against) and returns the ids of the objects it holds.
   * `label` names the pack in errors (e.g. `push 4, pack #3`).
   */
  async addPack(bytes: Uint8Array, label: string): Promise<string[]> {
    const name = `pack-${String(this.#packs).padStart(8, '0')}`;
    const filepath = join('objects', 'pack', `${name}.pack`);
    await writeFile(join(this.#gitdir, filepath), bytes);
    const fail = async (reason: string, cause?: unknown): Promise<never> => {
      // A pack we cannot index must not stay where later reads would trip over it.
      await rm(join(this.#gitdir, filepath), { force: true });
      await rm(join(this.#gitdir, filepath.replace(/\.pack$/, '.idx')), { force: true });
      throw new PackUnreadableError(label, reason, cause);
    };
    const declared = packObjectCount(bytes);
    if (declared === null) return fail('no PACK header');
    // isomorphic-git indexes a pack without its trailing checksum and checks it only when an object is read, where a
    // mismatch is an uncoded error: refuse it here, before anything reads from it.
    if (!trailerMatches(bytes)) return fail('its trailing checksum does not match its contents');
    let oids: string[];
    try {
      ({ oids } = await git.indexPack({ fs, dir: this.#gitdir, gitdir: this.#gitdir, filepath, cache: this.#cache }));
    } catch (error) {
      return fail((error as Error).message, error);
    }
    // isomorphic-git skips objects it cannot resolve instead of failing, so count them.
    if (oids.length !== declared) {
      return fail(`${declared - oids.length} of ${declared} objects cannot be resolved (a delta base is in no earlier pack)`);
    }
    this.#packs += 1;
    return oids;
  }

  /** The commit `oid` (peeling annotated tags), or null when it is not a commit or tag. Throws when absent. */
  async readCommit(oid: string): Promise<CommitSummary | null> {
    const object = await this.#read(oid);
    if (object.type === 'tag') return this.readCommit(object.object.object);
    if (object.type !== 'commit') return null;
    const commit = object.object;
    return {
      oid,
      tree: commit.tree,
      parents: commit.parent,
      author: commit.author,
      committer: commit.committer,
      subject: commit.message.split('\n', 1)[0]!,
      message: commit.message,
    };
  }

  /** The type of `oid`, or null when the store does not hold it. */
  async typeOf(oid: string): Promise<'commit' | 'tree' | 'blob' | 'tag' | null> {
    try {
      return (await this.#read(oid)).type;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  /**
   * Walks everything reachable from `oid` (tags, commits and their parents, trees, blobs; submodule links are not
   * followed) and returns the first object that is missing, or null when the history is complete. `seen` is shared
   * between calls so a long history is walked once.
   */
  async findMissing(oid: string, seen: Set<string> = new Set()): Promise<MissingObject | null> {
    const stack: Array<{ oid: string; referencedBy: string | null }> = [{ oid, referencedBy: null }];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next.oid)) continue;
      let object: StoredObject;
      try {
        object = await this.#read(next.oid);
      } catch (error) {
        if (isNotFound(error)) return next;
        throw error;
      }
      seen.add(next.oid);
      const from = next.oid;
      if (object.type === 'tag') stack.push({ oid: object.object.object, referencedBy: from });
      else if (object.type === 'commit') {
        const commit = object.object;
        stack.push({ oid: commit.tree, referencedBy: from });
        for (const parent of commit.parent) stack.push({ oid: parent, referencedBy: from });
      } else if (object.type === 'tree') {
        for (const entry of object.object) {
          if (entry.type !== 'commit') stack.push({ oid: entry.oid, referencedBy: from });
        }
      }
    }
    return null;
  }

  async close(): Promise<void> {
    await rm(this.#gitdir, { recursive: true, force: true });
  }

  /**
   * Object `oid`, commits and tags parsed by isomorphic-git, trees by our own reader: isomorphic-git's tree parser
   * refuses names a checkout on Windows or macOS could not write, which a history may hold all the same.
   */
  async #read(oid: string): Promise<StoredObject> {
    const raw = await git.readObject({ fs, gitdir: this.#gitdir, oid, format: 'content', cache: this.#cache });
    if (raw.type === 'tree') return { type: 'tree', object: parseTree(oid, raw.object as Uint8Array) };
    if (raw.type === 'blob') return { type: 'blob' };
    const parsed = await git.readObject({ fs, gitdir: this.#gitdir, oid, format: 'parsed', cache: this.#cache });
    return parsed.type === 'commit' ? { type: 'commit', object: parsed.object as CommitObject } : { type: 'tag', object: parsed.object as TagObject };
  }
}

/** The object count of a version 2 or 3 pack header (`PACK`, version, count; big-endian), or null. */
function packObjectCount(bytes: Uint8Array): number | null {
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== 'PACK') return null;
  return new DataView(bytes.buffer, bytes.byteOffset, 12).getUint32(8);
}

/** A pack ends with the hash of everything before it: SHA-1 (20 bytes), or SHA-256 (32) in a SHA-256 repository. */
function trailerMatches(bytes: Uint8Array): boolean {
  return [['sha1', 20], ['sha256', 32]].some(([algorithm, length]) => {
    const end = bytes.length - (length as number);
    return end >= 12 && createHash(algorithm as string).update(bytes.subarray(0, end)).digest().equals(bytes.subarray(end));
  });
}

function isNotFound(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'NotFoundError';
}
