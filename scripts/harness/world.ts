/**
 * A hermetic world for end-to-end tests, benchmarks and demos: the real git binary with this checkout first on PATH (so git finds
 * `git-remote-walrus` and `git walrus`), a fresh HOME and GIT_WALRUS_HOME, and the embedded `local` network.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hermeticGitEnv, tempDir } from './git-env.ts';
import { spawnReaped } from './reaper.ts';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface World {
  root: string;
  env: NodeJS.ProcessEnv;
  /** Runs a command (git by default) in `cwd` (relative to the world's root). */
  run(cwd: string, args: string[], options?: { env?: NodeJS.ProcessEnv; command?: string }): Promise<RunResult>;
  /** Like run, but throws with git's stderr when the command fails. */
  ok(cwd: string, args: string[], options?: { env?: NodeJS.ProcessEnv }): Promise<string>;
  path(...parts: string[]): string;
  /** Port call counts the helper and CLI reported since the last call (GIT_WALRUS_STATS). */
  takeStats(): Array<{ role: string; blobWrites: number; blobReads: number; bytesWritten: number; chainReads: number; transactions: number; keyServerRequests: number; keyServerKeys: number; sealedKeysDecrypted: number }>;
  remove(): void;
}

let statsOffset = 0;

/** `extra` joins every command's environment (e.g. the variables that point git at a `git walrus devnet` server). */
export function createWorld(prefix = 'walrus-e2e-', extra: NodeJS.ProcessEnv = {}): World {
  const dir = tempDir(prefix);
  const root = dir.path;
  const home = join(root, 'home');
  mkdirSync(home);
  const statsFile = join(root, 'stats.jsonl');
  const env = hermeticGitEnv(home, {
    PATH: `${REPO_ROOT}:${process.env.PATH}`,
    GIT_WALRUS_HOME: join(root, 'walrus-home'),
    GIT_WALRUS_STATS: statsFile,
    GIT_TERMINAL_PROMPT: '0',
    ...extra,
  });
  const run: World['run'] = (cwd, args, options = {}) =>
    new Promise((done, fail) => {
      const child = spawn(options.command ?? 'git', args, { cwd: resolve(root, cwd), env: { ...env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
      child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
      child.on('error', fail);
      child.on('close', (code) => done({ code: code ?? 128, stdout, stderr }));
    });
  return {
    root,
    env,
    run,
    ok: async (cwd, args, options) => {
      const result = await run(cwd, args, options);
      if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed (${result.code}):\n${result.stderr}`);
      return result.stdout.trim();
    },
    path: (...parts) => join(root, ...parts),
    takeStats: () => {
      let text = '';
      try { text = readFileSync(statsFile, 'utf8'); } catch { return []; }
      const fresh = text.slice(statsOffset);
      statsOffset = text.length;
      return fresh.split('\n').filter(Boolean).map((line) => JSON.parse(line));
    },
    remove: () => { statsOffset = 0; dir.remove(); },
  };
}

/** `git init` + a first commit in `<root>/<name>`; returns the directory name. */
export async function initWorkRepo(world: World, name: string, format: 'sha1' | 'sha256' = 'sha1'): Promise<string> {
  mkdirSync(world.path(name));
  await world.ok(name, ['init', '-q', '-b', 'main', `--object-format=${format}`]);
  return name;
}

/** Writes a file and commits it; returns the commit id. */
export async function commit(world: World, repo: string, file: string, content: string, message = `change ${file}`): Promise<string> {
  writeFileSync(world.path(repo, file), content);
  await world.ok(repo, ['add', file]);
  await world.ok(repo, ['commit', '-q', '-m', message]);
  return world.ok(repo, ['rev-parse', 'HEAD']);
}

/** `git walrus init <name>` inside `repo`; returns the remote URL (the last line of stdout). */
export async function walrusInit(world: World, repo: string, name: string, extra: string[] = [], options: { env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const out = await world.ok(repo, ['walrus', 'init', name, ...extra], options);
  return out.split('\n').at(-1)!;
}

/** Every ref with its value, sorted: what "byte-for-byte" compares. */
export async function refsOf(world: World, repo: string, pattern = 'refs/'): Promise<string> {
  return world.ok(repo, ['for-each-ref', '--format=%(objectname) %(refname)', pattern]);
}

/**
 * Starts `git walrus devnet` (state in `<root>/devnet-state`, a free port, `extra` arguments) and waits for the URL
 * it serves; `pid` is the `git walrus` process (the server is its child); `printed` is everything it printed on
 * starting (its addresses); `stop` resolves once the server has exited.
 * The server never outlives the process that started it (reaper.ts).
 */
export async function startDevnet(world: World, extra: string[] = [], stateDir = 'devnet-state'): Promise<{ url: string; pid: number; printed: string; stop(): Promise<void> }> {
  const child = spawnReaped('git', ['walrus', 'devnet', '--dir', world.path(stateDir), ...extra], { cwd: world.root, env: world.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  const printed = await new Promise<string>((done, fail) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      // The last line of what it prints on starting.
      if (/^use it with: .*\n/m.test(out)) done(out);
    });
    child.on('close', (code) => fail(new Error(`git walrus devnet exited (${code}):\n${stderr}`)));
  });
  const exited = new Promise<void>((done) => child.once('close', () => done()));
  const url = /^devnet: (\S+)$/m.exec(printed)![1]!;
  return { url, pid: child.pid!, printed, stop: () => { child.kill('SIGTERM'); return exited; } };
}
