/** A throw-away git repository made with the real git binary, for tests that need genuine commits and packs. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class ScratchRepo {
  readonly dir = mkdtempSync(join(tmpdir(), 'scratch-repo-'));
  #tick = 0;

  constructor() {
    this.git(['init', '-q', '-b', 'main']);
  }

  git(args: string[], input?: string): Buffer {
    // Fixed identity and dates: the same commands give the same object ids.
    const date = `${1_700_000_000 + this.#tick * 60} +0100`;
    return execFileSync('git', args, {
      cwd: this.dir,
      input,
      maxBuffer: 1 << 26,
      env: {
        ...process.env,
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'Ada Lovelace',
        GIT_AUTHOR_EMAIL: 'ada@example.org',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: 'Ada Lovelace',
        GIT_COMMITTER_EMAIL: 'ada@example.org',
        GIT_COMMITTER_DATE: date,
      },
    });
  }

  text(args: string[]): string {
    return this.git(args).toString().trim();
  }

  /** Writes the files, commits them all and returns the new commit id. */
  commit(message: string, files: Record<string, string>): string {
    this.#tick += 1;
    for (const [name, content] of Object.entries(files)) writeFileSync(join(this.dir, name), content);
    this.git(['add', '-A']);
    this.git(['commit', '-q', '--allow-empty', '-m', message]);
    return this.text(['rev-parse', 'HEAD']);
  }

  /** `git pack-objects --revs` of the given revision lines (`tip`, `^base`), as a push makes them. */
  pack(revs: string[], options: { thin?: boolean } = {}): Uint8Array {
    const args = ['pack-objects', '--stdout', '--revs', ...(options.thin ? ['--thin'] : [])];
    return new Uint8Array(this.git(args, `${revs.join('\n')}\n`));
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
