/**
 * The build Job's build and test steps on this machine (`git walrus artifact rebuild`): the planned scripts under a
 * fresh HOME (so a fresh npm cache), with nothing of the caller's environment but PATH (and what `extraEnv` adds,
 * which the script's prelude must override to reproduce anyway: tests use it to vary TZ, locale and the like).
 * A manifest that names build secrets gets them from `buildSecrets` (the lease's, opened here), written where the
 * build script reads them (a 0600 file in the scratch directory, removed with it) as the build Job's step writes them.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WalrusGitError } from '../../core/errors.ts';
import { shellEnvironmentFile } from '../../core/lease-secrets.ts';
import type { SecretEntry } from '../../core/lease-secrets.ts';
import type { AppManifest } from '../../ports/walrus-app.ts';
import { BUILD_SECRETS_FILE_VARIABLE, parseManifest } from '../manifest/manifest.ts';
import { withoutEnvValues } from '../../core/env-values.ts';
import { FAILURE_TAIL_CHARS, failureTail } from '../../core/failure-tail.ts';
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
  /** The secrets the manifest's walrus.buildSecrets names (asked only when it names some). */
  buildSecrets?: (names: readonly string[]) => Promise<SecretEntry[]>;
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
    const env: Record<string, string> = { ...options.extraEnv, PATH: options.path, HOME: join(scratch, 'home'), CI: 'true' };
    const names = manifest.buildSecrets ?? [];
    const secrets = names.length === 0 || options.buildSecrets === undefined ? [] : await options.buildSecrets(names);
    if (secrets.length > 0) {
      await mkdir(join(scratch, 'build-secrets'), { mode: 0o700 });
      env[BUILD_SECRETS_FILE_VARIABLE] = join(scratch, 'build-secrets', 'env');
      await writeFile(env[BUILD_SECRETS_FILE_VARIABLE], shellEnvironmentFile(secrets), { mode: 0o600 });
    }
    await runStep('build', dir, [...(options.wrap ?? []), 'sh', join(planDir, 'build.sh')], env, secrets);
    await runStep('test', dir, [...(options.wrap ?? []), 'sh', join(planDir, 'test.sh')], env, secrets);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return manifest;
}

/** Runs one step; a failure quotes its last output, with the build secrets' values written as `$NAME`. */
async function runStep(step: string, cwd: string, command: string[], env: Record<string, string>, secrets: readonly SecretEntry[]): Promise<void> {
  const child = spawn(command[0]!, command.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (piece: Buffer) => { output = (output + piece.toString()).slice(-2 * FAILURE_TAIL_CHARS); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new LocalBuildError(step, code, failureTail(withoutEnvValues(output, secrets)));
}
