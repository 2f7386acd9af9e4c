import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommitInfo, ObjectCache, Patch, RepositoryObjects, TreeEntry } from '../ports/object-cache.ts';
import { GitCommandError, git, runGit } from './run-git.ts';

const EMPTY_TREE_SHA1 = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const FIELD = '\x1f';
/** author name, email, time, committer name, email, time, then the message (last: it may hold anything). */
const COMMIT_FORMAT = ['%H', '%P', '%an', '%ae', '%at', '%cn', '%ce', '%ct', '%B'].join('%x1f');

/**
 * The object cache of `git walrus web`: one bare repository per repository id under `dir`, filled by `git fetch`
 * from the repository's walrus:// URL, so through the remote helper and the same packs, checks and decryption as
 * a clone. Reads are plain git commands; paths and names go to git as data (stdin, literal pathspecs), never as
 * options.
 */
export class GitObjectCache implements ObjectCache {
  readonly #dir: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #fills = new Map<string, Promise<void>>();

  constructor(options: { dir: string; env: NodeJS.ProcessEnv }) {
    this.#dir = options.dir;
    this.#env = { ...options.env, GIT_LITERAL_PATHSPECS: '1', GIT_TERMINAL_PROMPT: '0' };
  }

  async open(id: string, url: string, refs: ReadonlyMap<string, string>, head: string): Promise<RepositoryObjects> {
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw new Error(`not a repository id: ${id}`);
    const gitDir = join(this.#dir, `${id}.git`);
    let fill = this.#fills.get(id);
    if (fill === undefined) {
      fill = this.#fill(gitDir, url, refs, head).finally(() => this.#fills.delete(id));
      this.#fills.set(id, fill);
    }
    await fill;
    return new CachedRepository(gitDir, this.#env);
  }

  async #fill(gitDir: string, url: string, refs: ReadonlyMap<string, string>, head: string): Promise<void> {
    const env = this.#env;
    const opts = { cwd: gitDir, env };
    await mkdir(gitDir, { recursive: true });
    if ((await runGit(['rev-parse', '--git-dir'], opts)).stdout.trim() !== '.') await git(['init', '--quiet', '--bare', '.'], opts);
    const have = new Map((await git(['for-each-ref', '--format=%(objectname) %(refname)'], opts)).split('\n').filter(Boolean).map((line) => {
      const space = line.indexOf(' ');
      return [line.slice(space + 1), line.slice(0, space)] as const;
    }));
    const same = have.size === refs.size && [...refs].every(([name, oid]) => have.get(name) === oid);
    if (!same) await git(['fetch', '--quiet', '--prune', '--no-tags', '--no-write-fetch-head', url, '+refs/*:refs/*'], opts);
    if (head.startsWith('refs/')) await runGit(['symbolic-ref', 'HEAD', head], opts);
  }
}

class CachedRepository implements RepositoryObjects {
  readonly #opts: { cwd: string; env: NodeJS.ProcessEnv };

  constructor(gitDir: string, env: NodeJS.ProcessEnv) {
    this.#opts = { cwd: gitDir, env };
  }

  async resolveCommit(rev: string): Promise<string | null> {
    if (rev === '' || /[\0\n]/.test(rev)) return null;
    const result = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], this.#opts);
    return result.code === 0 ? result.stdout.trim() : null;
  }

  async entry(commit: string, path: string): Promise<TreeEntry | null> {
    const tree = (await git(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`], this.#opts)).trim();
    if (path === '') return { name: '', type: 'tree', mode: '040000', oid: tree, size: null };
    const result = await runBytes(['ls-tree', '-z', '-l', '--full-tree', tree, '--', path], this.#opts);
    // ls-tree with a literal pathspec lists the entry itself, under its full path.
    const entry = parseTree(result.toString('utf8')).find((e) => e.name === path);
    return entry === undefined ? null : { ...entry, name: path.split('/').at(-1)! };
  }

  async listTree(treeOid: string): Promise<TreeEntry[]> {
    const entries = parseTree((await runBytes(['ls-tree', '-z', '-l', treeOid], this.#opts)).toString('utf8'));
    return entries.sort((a, b) => Number(b.type === 'tree') - Number(a.type === 'tree') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async readBlob(oid: string): Promise<Uint8Array> {
    return runBytes(['cat-file', 'blob', oid], this.#opts);
  }

  async log(commit: string, skip: number, limit: number): Promise<CommitInfo[]> {
    return parseCommits(await runBytes(['log', '-z', `--format=${COMMIT_FORMAT}`, `--skip=${skip}`, `--max-count=${limit}`, commit, '--'], this.#opts));
  }

  async countCommits(commit: string): Promise<number> {
    return Number((await git(['rev-list', '--count', commit, '--'], this.#opts)).trim());
  }

  async between(from: string, to: string, limit: number): Promise<CommitInfo[]> {
    return parseCommits(await runBytes(['log', '-z', `--format=${COMMIT_FORMAT}`, `--max-count=${limit}`, `${from}..${to}`, '--'], this.#opts));
  }

  async commit(oid: string): Promise<CommitInfo | null> {
    const result = await runBytes(['show', '-s', '-z', `--format=${COMMIT_FORMAT}`, oid, '--'], this.#opts).catch(() => null);
    return result === null ? null : parseCommits(result)[0] ?? null;
  }

  async diff(from: string | null, to: string, maxBytes: number): Promise<Patch> {
    const base = from ?? EMPTY_TREE_SHA1;
    const bytes = await runBytes(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', base, to, '--'], this.#opts, maxBytes);
    const truncated = bytes.length >= maxBytes;
    let text = bytes.toString('utf8');
    // Cut at the last whole file: diff2html needs every file's header.
    if (truncated) text = text.slice(0, Math.max(0, text.lastIndexOf('\ndiff --git ') + 1));
    return { text, truncated };
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    const result = await runGit(['merge-base', a, b], this.#opts);
    return result.code === 0 ? result.stdout.trim() : null;
  }
}

/** `ls-tree -z -l` lines: `<mode> <type> <oid> <size>\t<name>`. */
function parseTree(text: string): TreeEntry[] {
  return text.split('\0').filter(Boolean).map((line) => {
    const tab = line.indexOf('\t');
    const [mode, type, oid, size] = line.slice(0, tab).split(/\s+/);
    return { name: line.slice(tab + 1), type: type as TreeEntry['type'], mode: mode!, oid: oid!, size: size === '-' ? null : Number(size) };
  });
}

function parseCommits(bytes: Buffer): CommitInfo[] {
  return bytes.toString('utf8').split('\0').filter((record) => record.trim() !== '').map((record) => {
    const fields = record.replace(/^\n/, '').split(FIELD);
    const [oid, parents, an, ae, at, cn, ce, ct] = fields;
    return {
      oid: oid!,
      parents: parents ? parents.split(' ') : [],
      author: { name: an!, email: ae!, time: Number(at) },
      committer: { name: cn!, email: ce!, time: Number(ct) },
      message: fields.slice(8).join(FIELD),
    };
  });
}

/** Runs git and returns its stdout as bytes (at most `max`: git is stopped past it). */
function runBytes(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, max = Infinity): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const parts: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let cut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (cut) return;
      parts.push(chunk);
      size += chunk.length;
      if (size >= max) { cut = true; child.kill(); }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0 || cut) resolve(cut ? Buffer.concat(parts).subarray(0, max) : Buffer.concat(parts));
      else reject(new GitCommandError(args, code, stderr));
    });
  });
}
