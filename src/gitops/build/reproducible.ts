/**
 * What makes a build repeatable, and its name (docs/architecture.md, Reproducible builds). Pure.
 *
 * The build step runs the planned script (manifest/manifest.ts `buildScript`) with a prelude that fixes what npm and
 * the app's build tools read from their surroundings: `SOURCE_DATE_EPOCH` (the commit's time, for tools that stamp a
 * date), `TZ=UTC`, the `C.UTF-8` locale, umask 022 and an npm cache of its own under the build's fresh HOME. Install
 * scripts are held back (`--ignore-scripts`) except for the packages the manifest allows. The epilogue removes
 * `node_modules/.cache` and records the tools (node, npm, platform, libc) in the build's report directory, which the
 * pack step reads and leaves out of the artifact.
 *
 * The build key is the sha256 of a canonical JSON of everything that determines the output: only builds under the same
 * key are compared, so two providers with another node version or CPU architecture never count as disagreeing.
 */
import { createHash } from 'node:crypto';
import { canonical } from '../api/build-config.ts';

/** Files of the report directory (ports/tree-archive.ts BUILD_REPORT_DIR): who wrote what. */
export const SOURCE_FILE = 'source.json';
export const PLAN_FILE = 'plan.json';
export const TOOLS_FILE = 'tools.json';

/** Where the checkout left the tree from: the checkout step writes it, the manifest step plans with its time. */
export interface BuildSource {
  repository: string;
  commit: string;
  /** Committer time, seconds since the epoch: the build's SOURCE_DATE_EPOCH. */
  commitTime: number;
}

/** What the manifest step planned from the tree: the lockfile, the script and the install-scripts policy. */
export interface BuildPlanReport {
  /** sha256 of package-lock.json (or npm-shrinkwrap.json), null without one (then the build cannot be reproduced). */
  lockfileSha256: string | null;
  /** sha256 of the build script: the install, the rebuilds, the app's build command and the prelude's settings. */
  scriptSha256: string;
  allowScripts: string[];
  /** Dependencies the lockfile says have install scripts: which ran (allowed) and which were held back. */
  installScripts: { ran: string[]; heldBack: string[] };
  /** Every installed package (lockfile path, version, integrity). */
  resolved: Array<{ path: string; version: string; integrity: string | null }>;
}

/** The tools the build step ran with, as it reported them. */
export interface BuildTools {
  node: string;
  npm: string;
  platform: string;
  arch: string;
  /** `glibc-2.36`, or `musl`. */
  libc: string;
}

export interface BuildKeyInputs {
  repository: string;
  commit: string;
  lockfileSha256: string | null;
  /** The build image as the provider names it: by digest (`node:22@sha256:…`) to be comparable across providers. */
  image: string;
  scriptSha256: string;
  allowScripts: string[];
  /** The variables the build sees: the fixed ones by name and value, the provider's buildEnv by digest. */
  environment: { fixed: Record<string, string>; buildEnvDigest: string | null };
  tools: BuildTools;
}

/** The build-info record stored beside an artifact: the key, its inputs, and what the plan found in the lockfile. */
export interface BuildInfo {
  format: 'walrus-build-info/1';
  buildKey: string;
  inputs: BuildKeyInputs;
  installScripts: BuildPlanReport['installScripts'];
  resolved: BuildPlanReport['resolved'];
}

/** The variables the prelude fixes (beside SOURCE_DATE_EPOCH, which the key covers through the commit). */
export const FIXED_ENVIRONMENT: Readonly<Record<string, string>> = { TZ: 'UTC', LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' };

export function buildKey(inputs: BuildKeyInputs): string {
  return createHash('sha256').update(JSON.stringify(canonical(inputs))).digest('hex');
}

/** The script's first lines: the fixed environment, the commit's time when known, the umask and npm's own cache. */
export function reproduciblePrelude(commitTime: number | null): string[] {
  const fixed = Object.entries(FIXED_ENVIRONMENT).map(([name, value]) => `${name}=${value}`).join(' ');
  return [
    `export ${fixed}${commitTime === null ? '' : ` SOURCE_DATE_EPOCH=${commitTime}`}`,
    'export npm_config_cache="$HOME/.npm-build" npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false',
    'umask 022',
  ];
}

/** The script's last lines: caches out of the tree, the tools recorded in the report directory. */
export function reproducibleEpilogue(reportDir: string): string[] {
  const libc = `node -p "process.report.getReport().header.glibcVersionRuntime ? 'glibc-' + process.report.getReport().header.glibcVersionRuntime : 'musl'"`;
  return [
    'rm -rf node_modules/.cache',
    `mkdir -p ${reportDir}`,
    `printf '{"node":"%s","npm":"%s","platform":"%s","arch":"%s","libc":"%s"}\\n' "$(node -v)" "$(npm -v)" "$(node -p process.platform)" "$(node -p process.arch)" "$(${libc})" > ${reportDir}/${TOOLS_FILE}`,
  ];
}

/** The plan's lockfile findings: installed packages and those with install scripts, split by the allow list. */
export function lockfileReport(lockfile: string | null, allowScripts: readonly string[]): Pick<BuildPlanReport, 'lockfileSha256' | 'installScripts' | 'resolved'> {
  if (lockfile === null) return { lockfileSha256: null, installScripts: { ran: [], heldBack: [] }, resolved: [] };
  const packages = (JSON.parse(lockfile) as { packages?: Record<string, { version?: string; integrity?: string; hasInstallScript?: boolean }> }).packages ?? {};
  const resolved: BuildPlanReport['resolved'] = [];
  const ran: string[] = [];
  const heldBack: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (path === '') continue;
    resolved.push({ path, version: entry.version ?? '', integrity: entry.integrity ?? null });
    if (!entry.hasInstallScript) continue;
    const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    (allowScripts.includes(name) ? ran : heldBack).push(path);
  }
  return { lockfileSha256: createHash('sha256').update(lockfile).digest('hex'), installScripts: { ran, heldBack }, resolved };
}
