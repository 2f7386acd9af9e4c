import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { WalrusGitError } from '../core/errors.ts';

/**
 * A git command failed; `stderr` holds what git said.
 * What to do: read what git said (the end of the message); the same git command run by hand shows more.
 */
export class GitCommandError extends WalrusGitError {
  constructor(args: readonly string[], exitCode: number | null, stderr: string) {
    super('GIT_COMMAND', `git ${args[0]} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no message'}`, { args, exitCode, stderr });
  }
}

export interface GitOptions {
  cwd?: string;
  /** Environment for git (defaults to this process's, which carries the GIT_DIR git gave the helper). */
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Let git write its own messages (progress) to our stderr. */
  inheritStderr?: boolean;
  /** Create every file and folder for this user only (umask 077 for git and what it runs, e.g. the helper). */
  ownerOnly?: boolean;
}

/** Runs git and resolves with its exit code and output; never throws for a non-zero exit. */
export function runGit(args: readonly string[], options: GitOptions = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnGit(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
    child.stdin!.end(options.input ?? '');
  });
}

/** Runs git and returns its stdout; a non-zero exit throws GitCommandError. */
export async function git(args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await runGit(args, options);
  if (result.code !== 0) throw new GitCommandError(args, result.code, result.stderr);
  return result.stdout;
}

export function spawnGit(args: readonly string[], options: GitOptions = {}): ChildProcess {
  // A umask can be set for a child only through a shell; `exec` leaves git as the process spawned.
  const [command, commandArgs] = options.ownerOnly ? ['sh', ['-c', 'umask 077 && exec git "$@"', 'git', ...args]] : ['git', args];
  const child = spawn(command, commandArgs, {
    cwd: options.cwd,
    // Without `env`, git inherits this process's environment (which carries the GIT_DIR git gave the helper).
    env: options.env,
    stdio: ['pipe', 'pipe', options.inheritStderr ? 'inherit' : 'pipe'],
  });
  // git may exit without reading all its input (e.g. on an error): its exit code reports that, not EPIPE.
  child.stdin!.on('error', () => {});
  return child;
}

/** Resolves when a spawned git exits 0; otherwise rejects with GitCommandError carrying its stderr. */
export function gitExit(child: ChildProcess, args: readonly string[], success: readonly number[] = [0]): Promise<void> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code !== null && success.includes(code) ? resolve() : reject(new GitCommandError(args, code, stderr))));
  });
}
