/**
 * The build Job's build and test steps on this machine (`git walrus artifact rebuild`): the planned scripts under a
 * fresh HOME (so a fresh npm cache), with nothing of the caller's environment but PATH (and what `extraEnv` adds,
 * which the script's prelude must override to reproduce anyway: tests use it to vary TZ, locale and the like).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WalrusGitError } from '../../core/errors.ts';
import type { AppManifest } from '../../ports/walrus-app.ts';
import { parseManifest } from '../manifest/manifest.ts';
import { planBuild } from './build-report.ts';

/** The app's own build or tests failed on this machine: what it printed last is in the message. */
export class LocalBuildError extends WalrusGitError {
  constructor(step: string, code: number | null, tail: string) {
    super('LOCAL_BUILD_FAILED', `the ${step} step failed here (exit ${code}); its last output:\n${tail}`, { step, code });
  }
}

export interface LocalBuildOptions {
  /** The PATH npm and node are found on. */
  path: string;
  extraEnv?: Record<string, string>;
  /** Where the build's HOME goes (a fresh directory below it, removed afterwards); the system's temp by default. */
  scratch?: string;
  /** Prefixes the step's command (e.g. `unshare -Uru` to run it under another host name). */
  wrap?: string[];
}

/** Plans and runs the build and test steps in the checked-out tree `dir`; returns the manifest it built with. */
export async function buildLocally(dir: string, options: LocalBuildOptions): Promise<AppManifest> {
  const packageJson = await readFile(join(dir, 'package.json'), 'utf8').catch(() => null);
  const lockfile = (await readFile(join(dir, 'package-lock.json')).catch(() => null)) !== null || (await readFile(join(dir, 'npm-shrinkwrap.json')).catch(() => null)) !== null;
  const manifest = parseManifest(packageJson, lockfile);
  const scratch = await mkdtemp(join(options.scratch ?? tmpdir(), 'walrus-rebuild-'));
  try {
    const planDir = join(scratch, 'plan');
    await planBuild(dir, manifest, planDir);
    const env = { ...options.extraEnv, PATH: options.path, HOME: join(scratch, 'home'), CI: 'true' };
    await runStep('build', dir, [...(options.wrap ?? []), 'sh', join(planDir, 'build.sh')], env);
    await runStep('test', dir, [...(options.wrap ?? []), 'sh', join(planDir, 'test.sh')], env);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return manifest;
}

async function runStep(step: string, cwd: string, command: string[], env: Record<string, string>): Promise<void> {
  const child = spawn(command[0]!, command.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (piece: Buffer) => { output = (output + piece.toString()).slice(-4000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new LocalBuildError(step, code, output.split('\n').slice(-20).join('\n'));
}
