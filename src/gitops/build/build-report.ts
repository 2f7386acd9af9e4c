/**
 * The report a reproducible build leaves about itself in the tree's report directory (ports/tree-archive.ts
 * BUILD_REPORT_DIR, never packed): the checkout's source, the manifest step's plan, the build step's tools. The pack
 * step reads them back into a build-info record and its build key (reproducible.ts).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BUILD_REPORT_DIR } from '../../ports/tree-archive.ts';
import type { AppManifest } from '../../ports/walrus-app.ts';
import { BUILD_SECRETS_LIST, BUILD_SECRETS_WRAPPER } from '../api/types.ts';
import { buildScript, buildSecretsWrapper, testScript } from '../manifest/manifest.ts';
import { buildKey, FIXED_ENVIRONMENT, lockfileReport, PLAN_FILE, reproducibleEpilogue, reproduciblePrelude, SOURCE_FILE, TOOLS_FILE } from './reproducible.ts';
import type { BuildInfo, BuildPlanReport, BuildSource, BuildTools } from './reproducible.ts';

export async function writeSource(dir: string, source: BuildSource): Promise<void> {
  await mkdir(join(dir, BUILD_REPORT_DIR), { recursive: true });
  await writeFile(join(dir, BUILD_REPORT_DIR, SOURCE_FILE), `${JSON.stringify(source)}\n`);
}

/**
 * Writes the build and test scripts, the build secrets' names and their wrapper for an operator's own build command
 * into `planDir`, and the plan into the tree's report directory. The commit's time
 * comes from the checkout's source record; a tree checked out otherwise is built without SOURCE_DATE_EPOCH.
 */
export async function planBuild(dir: string, manifest: AppManifest, planDir: string): Promise<BuildPlanReport> {
  const source = await readJson<BuildSource>(join(dir, BUILD_REPORT_DIR, SOURCE_FILE));
  const lockfile = await readText(join(dir, 'npm-shrinkwrap.json')) ?? await readText(join(dir, 'package-lock.json'));
  const script = buildScript(manifest, reproduciblePrelude(source?.commitTime ?? null), reproducibleEpilogue(BUILD_REPORT_DIR));
  await mkdir(planDir, { recursive: true });
  await writeFile(join(planDir, 'build.sh'), script);
  await writeFile(join(planDir, 'test.sh'), testScript(manifest));
  await writeFile(join(planDir, BUILD_SECRETS_LIST), (manifest.buildSecrets ?? []).map((name) => `${name}\n`).join(''));
  await writeFile(join(planDir, BUILD_SECRETS_WRAPPER), buildSecretsWrapper(manifest));
  const allowScripts = manifest.allowScripts ?? [];
  const plan: BuildPlanReport = { ...lockfileReport(lockfile, allowScripts), scriptSha256: createHash('sha256').update(script).digest('hex'), allowScripts };
  await mkdir(join(dir, BUILD_REPORT_DIR), { recursive: true });
  await writeFile(join(dir, BUILD_REPORT_DIR, PLAN_FILE), `${JSON.stringify(plan)}\n`);
  return plan;
}

/**
 * The build-info record of the tree at `dir` (built under `image`, with the provider's buildEnv digest), or null when
 * its report is incomplete (a tree not checked out, planned and built by these steps: nothing to name it by).
 */
export async function readBuildInfo(dir: string, image: string, buildEnvDigest: string | null): Promise<BuildInfo | null> {
  const report = join(dir, BUILD_REPORT_DIR);
  const [source, plan, tools] = await Promise.all([readJson<BuildSource>(join(report, SOURCE_FILE)), readJson<BuildPlanReport>(join(report, PLAN_FILE)), readJson<BuildTools>(join(report, TOOLS_FILE))]);
  if (source === null || plan === null || tools === null) return null;
  const inputs = {
    repository: source.repository, commit: source.commit, lockfileSha256: plan.lockfileSha256, image, scriptSha256: plan.scriptSha256,
    allowScripts: plan.allowScripts, environment: { fixed: { ...FIXED_ENVIRONMENT }, buildEnvDigest }, tools,
  };
  return { format: 'walrus-build-info/1', buildKey: buildKey(inputs), inputs, installScripts: plan.installScripts, resolved: plan.resolved };
}

async function readText(path: string): Promise<string | null> {
  return readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
}

async function readJson<T>(path: string): Promise<T | null> {
  const text = await readText(path);
  return text === null ? null : JSON.parse(text) as T;
}
