/** Throw-away git repositories for tests, with hermetic identity and config. */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A test body that builds its fixture with `make`, runs `test` on it, and removes the fixture's directory whether
 * the test passed or not.
 */
export function withFixture<F extends { dir: { remove(): void } }>(make: () => Promise<F>, test: (fixture: F) => Promise<void>): () => Promise<void> {
  return async () => {
    const fixture = await make();
    try {
      await test(fixture);
    } finally {
      fixture.dir.remove();
    }
  };
}

/** Runs git in `cwd` and returns trimmed stdout. */
export function gitIn(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Creates a repository with `git init` (optionally SHA-256) on branch main. */
export function initRepo(dir: string, env: NodeJS.ProcessEnv, format: 'sha1' | 'sha256' = 'sha1'): string {
  gitIn(dir, env, 'init', '-q', '-b', 'main', `--object-format=${format}`, '.');
  return dir;
}

/** Writes a file and commits it; returns the new commit id. */
export function commitFile(dir: string, env: NodeJS.ProcessEnv, file: string, content: string, message = `edit ${file}`): string {
  writeFileSync(join(dir, file), content);
  gitIn(dir, env, 'add', file);
  gitIn(dir, env, 'commit', '-q', '-m', message);
  return gitIn(dir, env, 'rev-parse', 'HEAD');
}

/** Two fresh repositories on main under `root`, `source` to push from and `target` to fetch into. */
export function sourceAndTarget(root: string, env: NodeJS.ProcessEnv): { source: string; target: string } {
  const [source, target] = [join(root, 'source'), join(root, 'target')];
  for (const dir of [source, target]) {
    mkdirSync(dir);
    initRepo(dir, env);
  }
  return { source, target };
}
