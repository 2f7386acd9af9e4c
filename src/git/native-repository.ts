import { mkdir, mkdtemp, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import type { ObjectFormat } from '../core/object-id.ts';
import { isObjectFormat } from '../core/object-id.ts';
import { isAncestorInWalk, parseHistoryWalk } from '../core/ancestry-walk.ts';
import { mapOrdered } from '../core/ordered-parallel.ts';
import type { Ancestry } from '../core/push-plan.ts';
import { writeFileAtomic } from '../fs/atomic.ts';
import { processExists } from '../fs/process-alive.ts';
import type { IncomingPack, ListedRefs, LocalRepository, SpooledPack } from '../ports/local-repository.ts';
import { git, gitExit, runGit, spawnGit } from './run-git.ts';

/** Ancestry questions the history walk leaves open, asked of git (`merge-base --is-ancestor`) at once. */
const UNDECIDED_PAIRS_IN_FLIGHT = 4;

/**
 * The local repository through the native git binary, as git hands it to the helper (GIT_DIR in the environment).
 * Packs stream through pipes: neither direction holds a whole pack in memory.
 */
/**
 * Our quarantine directories under objects/: `incoming-walrus-<pid>-XXXXXX`, told apart from git's own (receive-pack's
 * `incoming-XXXXXX`). git's gc removes neither, so a fetch killed mid-download would leave its partial pack for good:
 * `removeAbandonedFetches` removes those of processes that are gone.
 */
const QUARANTINE_PREFIX = 'incoming-walrus-';

export class NativeGitRepository implements LocalRepository {
  readonly gitDir: string;
  readonly #env: NodeJS.ProcessEnv;
  /**
   * The object format and directory, asked of one git process once: a fetch of several packs receives each into a
   * quarantine beside the objects, the session's cleanup looks there too, and a clone's listing wants the format. A
   * clone's format is set by git after the listing, from it; the listing's question is what the repository had
   * before, and nothing asks again in that session.
   */
  #layout: Promise<{ format: ObjectFormat; objects: string }> | null = null;

  constructor(gitDir: string, env: NodeJS.ProcessEnv) {
    this.gitDir = gitDir;
    this.#env = { ...env, GIT_DIR: gitDir };
  }

  async objectFormat(): Promise<ObjectFormat> {
    return (await this.#repositoryLayout()).format;
  }

  async resolve(names: readonly string[]): Promise<(string | null)[]> {
    if (names.length === 0) return [];
    // One process for any number of names (a mirror push names thousands): each input line answers one output line,
    // the id, or `<name> missing` / `<name> ambiguous`.
    const out = await git(['cat-file', '--batch-check=%(objectname)'], { env: this.#env, input: names.join('\n') + '\n' });
    return out.split('\n').slice(0, names.length).map((line) => (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(line) ? line : null));
  }

  async presentObjects(ids: readonly string[]): Promise<Set<string>> {
    return new Set((await this.resolve(ids)).filter((id) => id !== null));
  }

  async ancestry(pairs: readonly { old: string; new: string }[]): Promise<Ancestry[]> {
    if (pairs.length === 0) return [];
    const resolved = await this.resolve(pairs.flatMap((pair) => [pair.old, `${pair.old}^{commit}`, `${pair.new}^{commit}`]));
    const commits = pairs.map((_, i) => ({ present: resolved[3 * i] !== null, old: resolved[3 * i + 1] ?? null, new: resolved[3 * i + 2] ?? null }));
    const walked = commits.flatMap((c) => (c.present && c.old !== null && c.new !== null ? [{ old: c.old, new: c.new }] : []));
    // One walk over what the push brings answers most pairs (src/core/ancestry-walk.ts); git decides the rest.
    const input = [...new Set(walked.map((c) => c.new))].join('\n') + '\n' + [...new Set(walked.map((c) => `^${c.old}`))].join('\n') + '\n';
    const walk = parseHistoryWalk(walked.length === 0 ? '' : await git(['rev-list', '--parents', '--stdin'], { env: this.#env, input }));
    const isAncestor = async (old: string, next: string) => isAncestorInWalk(walk, old, next) ?? (await runGit(['merge-base', '--is-ancestor', old, next], { env: this.#env })).code === 0;
    const answers: Ancestry[] = [];
    for await (const answer of mapOrdered(commits, UNDECIDED_PAIRS_IN_FLIGHT, async (c): Promise<Ancestry> => {
      if (!c.present) return 'missing-old';
      if (c.old === null || c.new === null) return 'not-commits';
      return (await isAncestor(c.old, c.new)) ? 'fast-forward' : 'diverged';
    })) answers.push(answer);
    return answers;
  }

  async packObjects(include: readonly string[], exclude: readonly string[], progress: boolean): Promise<SpooledPack> {
    const args = ['pack-objects', '--thin', '--stdout', '--revs', '--delta-base-offset', progress ? '--progress' : '-q'];
    // Named as git names its own temporary packs, so `git gc` removes one a killed helper left behind.
    const path = join(await this.#objectsDir(), 'pack', `tmp_walrus_${randomBytes(6).toString('hex')}.pack`);
    const file = await open(path, 'w+', 0o600);
    // The reader attaches at once: a child's output nobody listens to is dropped when it exits.
    const child = spawnGit(args, { env: this.#env, inheritStderr: true });
    const exited = gitExit(child, args);
    exited.catch(() => {});
    child.stdin!.end([...include, ...exclude.map((id) => `^${id}`)].join('\n') + '\n');
    let written = 0;
    let finished = false;
    let failure: unknown = null;
    let wake = () => {};
    const spooled = (async () => {
      for await (const piece of child.stdout! as AsyncIterable<Uint8Array>) {
        await file.write(piece, 0, piece.byteLength, written);
        written += piece.byteLength;
        wake();
      }
      await exited;
    })().catch((error: unknown) => { failure = error; }).finally(() => { finished = true; wake(); });
    return {
      async read(offset, into) {
        while (written < offset + into.byteLength && !finished) await new Promise<void>((resolve) => { wake = resolve; });
        if (failure !== null) throw failure;
        const length = Math.max(0, Math.min(into.byteLength, written - offset));
        let done = 0;
        while (done < length) done += (await file.read(into, done, length - done, offset + done)).bytesRead;
        return length;
      },
      async size() {
        await spooled;
        if (failure !== null) throw failure;
        return written;
      },
      async discard() {
        if (!finished) child.kill();
        await spooled;
        await file.close();
        await rm(path, { force: true });
      },
    };
  }

  async receivePack(progress: boolean, checkLinks = false): Promise<IncomingPack> {
    // git's own receive-pack quarantine: a fresh object directory for the new pack, with the repository's objects as
    // an alternate so --fix-thin finds the bases of a thin pack.
    const objects = await this.#objectsDir();
    const quarantine = await mkdtemp(join(objects, `${QUARANTINE_PREFIX}${process.pid}-`));
    await mkdir(join(quarantine, 'pack'));
    // --check-self-contained-and-connected dies on a missing link and exits 1 for a pack that links to objects
    // outside it (a thin pack, or one after the first of a clone): both 0 and 1 are an indexed, linked pack.
    const check = checkLinks ? ['--check-self-contained-and-connected', `--keep=git-remote-walrus ${process.pid}`] : [];
    const args = ['index-pack', '--stdin', '--fix-thin', ...check, ...(progress ? ['-v'] : [])];
    const child = spawnGit(args, { env: { ...this.#env, GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: objects } });
    const exited = gitExit(child, args, checkLinks ? [0, 1] : [0]);
    exited.catch(() => {});
    child.stdout!.resume();
    if (progress) child.stderr!.pipe(process.stderr);
    const stdin = child.stdin!;
    const remove = () => rm(quarantine, { recursive: true, force: true });
    return {
      async write(bytes) {
        if (!stdin.write(bytes)) await Promise.race([once(stdin, 'drain'), exited]);
      },
      async apply() {
        stdin.end();
        try {
          await exited;
          // The .idx last: git sees a pack once its index exists.
          const files = await readdir(join(quarantine, 'pack'));
          const order = (name: string) => (name.endsWith('.idx') ? 1 : 0);
          for (const name of files.sort((a, b) => order(a) - order(b))) await rename(join(quarantine, 'pack', name), join(objects, 'pack', name));
          const keep = files.find((name) => name.endsWith('.keep'));
          return keep === undefined ? null : join(objects, 'pack', keep);
        } finally {
          await remove();
        }
      },
      async discard() {
        child.kill();
        await exited.catch(() => {});
        await remove();
      },
    };
  }

  async removeAbandonedFetches(): Promise<void> {
    const objects = await this.#objectsDir();
    const names = await readdir(objects).catch(() => [] as string[]);
    await Promise.all(names.map(async (name) => {
      if (!name.startsWith(QUARANTINE_PREFIX)) return;
      const pid = Number.parseInt(name.slice(QUARANTINE_PREFIX.length), 10);
      if (Number.isInteger(pid) && pid > 0 && !processExists(pid)) await rm(join(objects, name), { recursive: true, force: true });
    }));
  }

  async #objectsDir(): Promise<string> {
    return (await this.#repositoryLayout()).objects;
  }

  #repositoryLayout(): Promise<{ format: ObjectFormat; objects: string }> {
    return (this.#layout ??= git(['rev-parse', '--show-object-format', '--git-path', 'objects'], { env: this.#env }).then((out) => {
      const [format = '', objects = ''] = out.split('\n');
      return { format: isObjectFormat(format) ? format : 'sha1', objects: resolve(this.gitDir, objects) };
    }));
  }

  async formatWhileEmpty(): Promise<ObjectFormat | null> {
    const hasRefs = (await git(['for-each-ref', '--count=1', '--format=%(refname)'], { env: this.#env })).trim() !== '';
    return hasRefs ? null : this.objectFormat();
  }

  async readAppliedPacks(repositoryId: string): Promise<number> {
    const record = await this.#readRecord<{ appliedPacks?: number }>(repositoryId, 'applied.json');
    return record && Number.isInteger(record.appliedPacks) ? record.appliedPacks! : 0;
  }

  async writeAppliedPacks(repositoryId: string, count: number): Promise<void> {
    await this.#writeRecord(repositoryId, 'applied.json', { appliedPacks: count });
  }

  async readListedRefs(repositoryId: string): Promise<ListedRefs | null> {
    const record = await this.#readRecord<{ seq?: number; refs?: Record<string, string> }>(repositoryId, 'refs.json');
    if (!record || !Number.isInteger(record.seq) || typeof record.refs !== 'object' || record.refs === null) return null;
    return { seq: record.seq!, refs: new Map(Object.entries(record.refs)) };
  }

  async writeListedRefs(repositoryId: string, listed: ListedRefs): Promise<void> {
    await this.#writeRecord(repositoryId, 'refs.json', { seq: listed.seq, refs: Object.fromEntries(listed.refs) });
  }

  /** A per-repository record under $GIT_DIR/walrus/<repository id>/; null when absent, unreadable or another repository's. */
  async #readRecord<T extends object>(repositoryId: string, name: string): Promise<T | null> {
    try {
      const record = JSON.parse(await readFile(this.#recordPath(repositoryId, name), 'utf8')) as T & { repository?: string };
      return record.repository === repositoryId ? record : null;
    } catch {
      return null;
    }
  }

  async #writeRecord(repositoryId: string, name: string, fields: object): Promise<void> {
    // Written aside and renamed: an interrupted fetch leaves the old record, never a torn one.
    await writeFileAtomic(this.#recordPath(repositoryId, name), `${JSON.stringify({ repository: repositoryId, ...fields })}\n`);
  }

  #recordPath(repositoryId: string, name: string): string {
    return join(this.gitDir, 'walrus', repositoryId, name);
  }
}
