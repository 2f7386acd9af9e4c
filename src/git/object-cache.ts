import { spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Blame, CommitInfo, FileChange, FileCommit, ObjectCache, Patch, RepositoryObjects, TreeEntry } from '../ports/object-cache.ts';
import { GitCommandError, git, runGit } from './run-git.ts';

/** The empty tree's id in each object format, by the length of an id (a root commit's diff starts from it). */
const EMPTY_TREE = new Map([
  [40, '4b825dc642cb6eb9a060e54bf8d69288fbee4904'],
  [64, '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321'],
]);
const emptyTreeLike = (oid: string): string => EMPTY_TREE.get(oid.length) ?? EMPTY_TREE.get(40)!;
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
  readonly #fills = new Map<string, Promise<CachedRepository>>();
  /** The reader of each repository and the refs it was last made to hold (a caller passes the same map while nothing moved). */
  readonly #open = new Map<string, { refs: ReadonlyMap<string, string>; head: string; repository: CachedRepository }>();

  constructor(options: { dir: string; env: NodeJS.ProcessEnv }) {
    this.#dir = options.dir;
    this.#env = { ...options.env, GIT_LITERAL_PATHSPECS: '1', GIT_TERMINAL_PROMPT: '0' };
  }

  async open(id: string, url: string, refs: ReadonlyMap<string, string>, head: string): Promise<RepositoryObjects> {
    if (!/^0x[0-9a-f]{64}$/.test(id)) throw new Error(`not a repository id: ${id}`);
    const known = this.#open.get(id);
    if (known !== undefined && known.head === head && (known.refs === refs || sameRefs(known.refs, refs))) {
      known.refs = refs;
      return known.repository;
    }
    let fill = this.#fills.get(id);
    if (fill === undefined) {
      fill = this.#fill(join(this.#dir, `${id}.git`), url, refs, head).finally(() => this.#fills.delete(id));
      this.#fills.set(id, fill);
    }
    const repository = await fill;
    this.#open.set(id, { refs, head, repository });
    return repository;
  }

  async #fill(gitDir: string, url: string, refs: ReadonlyMap<string, string>, head: string): Promise<CachedRepository> {
    const env = this.#env;
    const opts = { cwd: gitDir, env };
    // Decrypted contents are the user's alone: the cache folder (also one made before this rule) is closed to
    // others, and git and the helper write every file and folder for this user only, whatever the umask.
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    await chmod(this.#dir, 0o700);
    if (!existsSync(join(gitDir, 'HEAD'))) {
      // The first fill is a mirror clone (what a clone does is faster than a fetch into an empty repository), made
      // aside and renamed into place so that an interrupted one leaves nothing behind.
      const aside = await mkdtemp(join(this.#dir, '.clone-'));
      try {
        await git(['clone', '--quiet', '--mirror', '--no-tags', url, join(aside, 'repo.git')], { env, ownerOnly: true });
        await rename(join(aside, 'repo.git'), gitDir);
      } finally {
        await rm(aside, { recursive: true, force: true });
      }
    } else {
      const have = new Map((await git(['for-each-ref', '--format=%(objectname) %(refname)'], opts)).split('\n').filter(Boolean).map((line) => {
        const space = line.indexOf(' ');
        return [line.slice(space + 1), line.slice(0, space)] as const;
      }));
      if (!sameRefs(have, refs)) await git(['fetch', '--quiet', '--prune', '--no-tags', '--no-write-fetch-head', url, '+refs/*:refs/*'], { ...opts, ownerOnly: true });
    }
    // HEAD names the default branch (a mirror clone usually has it right already: no git process then).
    const current = await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => '');
    if (head.startsWith('refs/') && current.trim() !== `ref: ${head}`) await runGit(['symbolic-ref', 'HEAD', head], opts);
    return new CachedRepository(gitDir, env);
  }
}

function sameRefs(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  return a.size === b.size && [...b].every(([name, oid]) => a.get(name) === oid);
}

/** Answers kept per reader: object ids name immutable content, and a reader lives as long as the refs it was made for. */
const MEMO_ENTRIES = 2000;
/** Blobs above this are read again each time rather than kept. */
const MEMO_BLOB_BYTES = 256 * 1024;

class CachedRepository implements RepositoryObjects {
  readonly #opts: { cwd: string; env: NodeJS.ProcessEnv };
  readonly #memo = new Map<string, Promise<unknown>>();

  constructor(gitDir: string, env: NodeJS.ProcessEnv) {
    this.#opts = { cwd: gitDir, env };
  }

  /** Each git answer once: a page view after the first runs no git process for what it already asked. */
  #once<T>(key: string, answer: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    const kept = this.#memo.get(key) as Promise<T> | undefined;
    if (kept !== undefined) return kept;
    const pending = answer();
    this.#memo.set(key, pending);
    if (this.#memo.size > MEMO_ENTRIES) this.#memo.delete(this.#memo.keys().next().value!);
    pending.then((value) => { if (!keep(value)) this.#memo.delete(key); }, () => this.#memo.delete(key));
    return pending;
  }

  resolveCommit(rev: string): Promise<string | null> {
    return this.#once(`resolve ${rev}`, () => this.#resolveCommit(rev));
  }

  async #resolveCommit(rev: string): Promise<string | null> {
    if (rev === '' || /[\0\n]/.test(rev)) return null;
    const result = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], this.#opts);
    return result.code === 0 ? result.stdout.trim() : null;
  }

  entry(commit: string, path: string): Promise<TreeEntry | null> {
    return this.#once(`entry ${commit} ${path}`, () => this.#entry(commit, path));
  }

  async #entry(commit: string, path: string): Promise<TreeEntry | null> {
    const tree = (await git(['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`], this.#opts)).trim();
    if (path === '') return { name: '', type: 'tree', mode: '040000', oid: tree, size: null };
    const result = await runBytes(['ls-tree', '-z', '-l', '--full-tree', tree, '--', path], this.#opts);
    // ls-tree with a literal pathspec lists the entry itself, under its full path.
    const entry = parseTree(result.toString('utf8')).find((e) => e.name === path);
    return entry === undefined ? null : { ...entry, name: path.split('/').at(-1)! };
  }

  listTree(treeOid: string): Promise<TreeEntry[]> {
    return this.#once(`tree ${treeOid}`, () => this.#listTree(treeOid));
  }

  async #listTree(treeOid: string): Promise<TreeEntry[]> {
    const entries = parseTree((await runBytes(['ls-tree', '-z', '-l', treeOid], this.#opts)).toString('utf8'));
    return entries.sort((a, b) => Number(b.type === 'tree') - Number(a.type === 'tree') || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  readBlob(oid: string): Promise<Uint8Array> {
    return this.#once(`blob ${oid}`, () => runBytes(['cat-file', 'blob', oid], this.#opts), (bytes) => bytes.length <= MEMO_BLOB_BYTES);
  }

  streamBlob(oid: string): Readable {
    const child = spawn('git', ['cat-file', 'blob', oid], { cwd: this.#opts.cwd, env: this.#opts.env, stdio: ['ignore', 'pipe', 'ignore'] });
    // The reader stopping early (a closed download) stops git too.
    child.stdout.once('close', () => { if (child.exitCode === null) child.kill(); });
    return child.stdout;
  }

  history(commit: string, path: string, skip: number, limit: number): Promise<CommitInfo[]> {
    return this.#once(`history ${commit} ${skip} ${limit} ${path}`, async () => parseCommits(await runBytes(['log', '-z', `--format=${COMMIT_FORMAT}`, `--skip=${skip}`, `--max-count=${limit}`, commit, '--', ...(path === '' ? [] : [path])], this.#opts)));
  }

  fileHistory(commit: string, path: string, skip: number, limit: number): Promise<FileCommit[]> {
    return this.#once(`file history ${commit} ${skip} ${limit} ${path}`, async () => parseFileHistory(await runBytes(['log', '-z', '--follow', '--name-status', `--format=${COMMIT_FORMAT}`, `--skip=${skip}`, `--max-count=${limit}`, commit, '--', path], this.#opts)));
  }

  blame(commit: string, path: string, maxCommits: number): Promise<Blame> {
    return this.#once(`blame ${commit} ${maxCommits} ${path}`, async () => {
      // The walk looks no further back than `maxCommits` commits: lines older than that are blamed on the commit
      // there (git's range boundary), which the page names, so a long history costs a bounded walk.
      const boundary = (await git(['rev-list', '--max-count=1', `--skip=${maxCommits}`, commit, '--'], this.#opts)).trim() || null;
      const text = (await runBytes(['blame', '--porcelain', boundary === null ? commit : `${boundary}..${commit}`, '--', path], this.#opts)).toString('utf8');
      return parseBlame(text, boundary);
    });
  }

  introduced(tips: readonly string[], known: readonly string[]): Promise<CommitInfo[]> {
    return this.#once(`introduced ${tips.join(',')} ^${known.join(',')}`, async () => {
      // Ids go on stdin (as data, never options); --ignore-missing passes over tips the store lacks (a forced update's
      // old commits that no ref reaches any more).
      const input = Buffer.from([...tips, ...known.map((oid) => `^${oid}`)].join('\n') + '\n');
      return parseCommits(await runBytes(['log', '-z', `--format=${COMMIT_FORMAT}`, '--ignore-missing', '--stdin', '--'], this.#opts, Infinity, input));
    });
  }

  log(commit: string, skip: number, limit: number): Promise<CommitInfo[]> {
    return this.#once(`log ${commit} ${skip} ${limit}`, async () => parseCommits(await runBytes(['log', '-z', `--format=${COMMIT_FORMAT}`, `--skip=${skip}`, `--max-count=${limit}`, commit, '--'], this.#opts)));
  }

  countCommits(commit: string): Promise<number> {
    return this.#once(`count ${commit}`, async () => Number((await git(['rev-list', '--count', commit, '--'], this.#opts)).trim()));
  }

  between(from: string, to: string, limit: number): Promise<CommitInfo[]> {
    return this.#once(`between ${from} ${to} ${limit}`, async () => parseCommits(await runBytes(['log', '-z', `--format=${COMMIT_FORMAT}`, `--max-count=${limit}`, `${from}..${to}`, '--'], this.#opts)));
  }

  commit(oid: string): Promise<CommitInfo | null> {
    return this.#once(`commit ${oid}`, async () => {
      const result = await runBytes(['show', '-s', '-z', `--format=${COMMIT_FORMAT}`, oid, '--'], this.#opts).catch(() => null);
      return result === null ? null : parseCommits(result)[0] ?? null;
    });
  }

  async diff(from: string | null, to: string, maxBytes: number): Promise<Patch> {
    const base = from ?? emptyTreeLike(to);
    const bytes = await runBytes(['diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', base, to, '--'], this.#opts, maxBytes);
    const truncated = bytes.length >= maxBytes;
    let text = bytes.toString('utf8');
    // Cut at the last whole file: diff2html needs every file's header.
    if (truncated) text = text.slice(0, Math.max(0, text.lastIndexOf('\ndiff --git ') + 1));
    return { text, truncated };
  }

  diffStat(from: string | null, to: string): Promise<FileChange[]> {
    return this.#once(`numstat ${from} ${to}`, async () => parseNumstat((await runBytes(['diff', '--numstat', '-z', '--no-ext-diff', '--no-textconv', '-M', from ?? emptyTreeLike(to), to, '--'], this.#opts)).toString('utf8')));
  }

  mergeBase(a: string, b: string): Promise<string | null> {
    return this.#once(`merge-base ${a} ${b}`, async () => {
      const result = await runGit(['merge-base', a, b], this.#opts);
      return result.code === 0 ? result.stdout.trim() : null;
    });
  }
}

/**
 * `diff --numstat -z` records: `<added>\t<deleted>\t<path>\0`, or for a rename `<added>\t<deleted>\t\0<old>\0<new>\0`;
 * a binary file counts `-` for both.
 */
export function parseNumstat(text: string): FileChange[] {
  const fields = text.split('\0');
  const changes: FileChange[] = [];
  for (let i = 0; i < fields.length && fields[i] !== ''; i += 1) {
    const [added, deleted, path] = fields[i]!.split('\t') as [string, string, string];
    const count = (n: string) => (n === '-' ? null : Number(n));
    if (path !== '') changes.push({ path, added: count(added), deleted: count(deleted) });
    else {
      changes.push({ path: fields[i + 2]!, renamedFrom: fields[i + 1]!, added: count(added), deleted: count(deleted) });
      i += 2;
    }
  }
  return changes;
}

/**
 * `log -z --name-status --format=…` with one path: each commit's record, then (for a commit that changed the path) its
 * status (`\nM`, `\nA`, `\nR100`…) and the path, or for a rename or copy the old path and the new.
 */
export function parseFileHistory(bytes: Buffer): FileCommit[] {
  const fields = bytes.toString('utf8').split('\0');
  const entries: FileCommit[] = [];
  for (let i = 0; i < fields.length; i += 1) {
    if (fields[i]!.trim() === '') continue;
    const [commit] = parseCommits(Buffer.from(fields[i]!));
    const status = fields[i + 1]?.startsWith('\n') ? fields[i + 1]!.slice(1) : null;
    if (status === null) {
      entries.push({ commit: commit!, path: entries.at(-1)?.renamedFrom ?? entries.at(-1)?.path ?? '' });
      continue;
    }
    if (/^[RC]/.test(status)) {
      entries.push({ commit: commit!, path: fields[i + 3]!, renamedFrom: fields[i + 2]! });
      i += 3;
    } else {
      entries.push({ commit: commit!, path: fields[i + 2]! });
      i += 2;
    }
  }
  return entries;
}

/**
 * `blame --porcelain`: per line of the result a header `<commit> <old line> <new line>[ <lines>]`, the commit's
 * details (author, summary, filename…) the first time it appears, then the line itself after a tab.
 */
export function parseBlame(text: string, boundary: string | null): Blame {
  const lines: string[] = [];
  const commits: Blame['commits'] = new Map();
  let current: { author: { name: string; email: string; time: number }; summary: string; path: string } | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('\t') || line === '') continue;
    const header = /^([0-9a-f]{40}|[0-9a-f]{64}) \d+ (\d+)(?: \d+)?$/.exec(line);
    if (header !== null) {
      const oid = header[1]!;
      lines[Number(header[2]) - 1] = oid;
      current = commits.get(oid);
      if (current === undefined) commits.set(oid, current = { author: { name: '', email: '', time: 0 }, summary: '', path: '' });
      continue;
    }
    if (current === undefined) continue;
    const space = line.indexOf(' ');
    const [key, value] = space < 0 ? [line, ''] : [line.slice(0, space), line.slice(space + 1)];
    if (key === 'author') current.author.name = value;
    else if (key === 'author-mail') current.author.email = value.replace(/^<|>$/g, '');
    else if (key === 'author-time') current.author.time = Number(value);
    else if (key === 'summary') current.summary = value;
    else if (key === 'filename') current.path = value;
  }
  return { lines, commits, stoppedAt: boundary !== null && commits.has(boundary) ? boundary : null };
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

/** Runs git (with `input` on its stdin) and returns its stdout as bytes (at most `max`: git is stopped past it). */
function runBytes(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }, max = Infinity, input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.on('error', () => {}).end(input); // git may exit before reading it all: its exit code tells
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
