import { join } from 'node:path';
import type { ObjectFormat } from '../core/object-id.ts';
import type { NewClone } from '../ports/local-repository.ts';
import { NativeGitRepository } from './native-repository.ts';
import { git, runGit } from './run-git.ts';

/** The remote name a checkout records its source under, as `git clone` does. */
const ORIGIN = 'origin';

/**
 * A new repository in `dir` for `git walrus checkout`: `git init`, `origin` pointing at the walrus:// URL (so a later
 * `git fetch` in it goes through the helper), and the few plumbing steps a clone adds to a fetch.
 */
export class NativeNewClone extends NativeGitRepository implements NewClone {
  readonly #workEnv: NodeJS.ProcessEnv;
  readonly #dir: string;

  private constructor(dir: string, env: NodeJS.ProcessEnv) {
    super(join(dir, '.git'), env);
    this.#dir = dir;
    this.#workEnv = { ...env, GIT_DIR: join(dir, '.git'), GIT_WORK_TREE: dir };
  }

  static async create(dir: string, options: { objectFormat: ObjectFormat; url: string }, env: NodeJS.ProcessEnv): Promise<NativeNewClone> {
    const clean = { ...env };
    delete clean.GIT_DIR;
    delete clean.GIT_WORK_TREE;
    await git(['init', '-q', `--object-format=${options.objectFormat}`, dir], { env: clean });
    const clone = new NativeNewClone(dir, clean);
    await git(['remote', 'add', ORIGIN, options.url], { env: clone.#workEnv });
    return clone;
  }

  async setRemoteRefs(refs: ReadonlyMap<string, string>): Promise<void> {
    const lines: string[] = [];
    for (const [name, id] of refs) {
      if (name.startsWith('refs/heads/')) lines.push(`update refs/remotes/${ORIGIN}/${name.slice('refs/heads/'.length)} ${id}`);
      else if (name.startsWith('refs/tags/')) lines.push(`update ${name} ${id}`);
    }
    if (lines.length > 0) await git(['update-ref', '--stdin'], { env: this.#workEnv, input: `${lines.join('\n')}\n` });
  }

  async isCommit(id: string): Promise<boolean> {
    const result = await runGit(['cat-file', '-t', id], { env: this.#workEnv });
    return result.code === 0 && result.stdout.trim() === 'commit';
  }

  async refsContaining(commit: string): Promise<string[]> {
    const out = await git(['for-each-ref', '--format=%(refname)', `--contains=${commit}`, `refs/remotes/${ORIGIN}/`, 'refs/tags/'], { env: this.#workEnv });
    return out.split('\n').filter(Boolean);
  }

  async commitTime(commit: string): Promise<number> {
    return Number((await git(['show', '-s', '--format=%ct', commit], { env: this.#workEnv })).trim());
  }

  async checkoutDetached(commit: string): Promise<void> {
    await git(['checkout', '-q', '--detach', commit], { env: this.#workEnv, cwd: this.#dir });
  }
}
