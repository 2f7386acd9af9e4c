/** A hermetic git environment and temporary directories: shared by the tests, the benchmarks and the demos. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Environment that keeps git away from the user's and the system's config. */
export function hermeticGitEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('GIT_')) delete env[key];
  return {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Ada',
    GIT_AUTHOR_EMAIL: 'ada@example.com',
    GIT_AUTHOR_DATE: '1700000000 +0000',
    GIT_COMMITTER_NAME: 'Ada',
    GIT_COMMITTER_EMAIL: 'ada@example.com',
    GIT_COMMITTER_DATE: '1700000000 +0000',
    ...extra,
  };
}

/**
 * A maker of new directories under the system's temporary directory, for tests that make one per case: every one it
 * made is removed when the process exits.
 */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  process.once('exit', () => { for (const path of made) rmSync(path, { recursive: true, force: true }); });
  return () => {
    const path = mkdtempSync(join(tmpdir(), prefix));
    made.push(path);
    return path;
  };
}

/** A new directory under the system's temporary directory, and how to remove it. */
export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
