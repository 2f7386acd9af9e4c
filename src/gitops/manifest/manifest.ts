/**
 * The app's own run settings, committed in its repository: the `walrus` field of its package.json (version 1). Pure:
 * text in, a validated manifest or a ManifestError naming the field out. What the app does not say takes the npm
 * defaults (docs/architecture.md, The GitOps controller):
 *
 *   "walrus": {
 *     "version": 1,                       // the manifest format; optional, 1 is the only one
 *     "port": 3000,                       // given to the app as PORT (default 8080)
 *     "health": { "path": "/", "periodSeconds": 5, "failureThreshold": 3 },   // readiness probe (default GET /)
 *     "build": "npm run build",           // after the install (default: npm run build --if-present)
 *     "test": "npm test",                 // run before the pack; failing tests stop the release (default: none)
 *     "start": "node server.js",          // default: npm start
 *     "replicas": 2,                      // at most the provider's cap (default 1)
 *     "env": { "NODE_ENV": "production" }, // not secret: it is in the repository
 *     "allowScripts": ["esbuild"],       // the only dependencies whose install scripts run (default: none)
 *     "buildSecrets": ["NPM_TOKEN"]       // the lease's secrets the install alone sees (a private registry's token)
 *   }
 *
 * The install is `npm ci` when a lockfile (package-lock.json or npm-shrinkwrap.json) is committed, else `npm install`,
 * always with `--ignore-scripts`, then `npm rebuild` of the allowed packages (src/gitops/build/reproducible.ts).
 */
import { WalrusGitError } from '../../core/errors.ts';
import { MAX_SECRETS, SECRET_NAME_RULE } from '../../core/lease-secrets.ts';
import type { AppManifest } from '../../ports/walrus-app.ts';
import { BUILD_SECRETS_FILE } from '../api/types.ts';


export const MANIFEST_VERSION = 1;
/** The manifest travels as the manifest step's termination message, which Kubernetes caps at 4096 bytes. */
export const MANIFEST_MAX_BYTES = 3072;

/**
 * A manifest the controller cannot use: `data.field` names it (as written in package.json, e.g. `walrus.port`).
 * What to do: fix the field the message names in the `walrus` section of package.json and push again.
 */
export class ManifestError extends WalrusGitError {
  constructor(field: string, reason: string) {
    super('MANIFEST_INVALID', `${field}: ${reason}`, { field });
  }
}

const FIELDS = ['version', 'port', 'health', 'build', 'test', 'start', 'replicas', 'env', 'allowScripts', 'buildSecrets'];
const HEALTH_FIELDS = ['path', 'periodSeconds', 'failureThreshold'];

/** The manifest of a tree whose package.json reads `packageJson` (null: no package.json). */
export function parseManifest(packageJson: string | null, lockfile: boolean): AppManifest {
  if (packageJson === null) return { source: 'defaults', lockfile };
  let parsed: unknown;
  try {
    parsed = JSON.parse(packageJson);
  } catch (error) {
    throw new ManifestError('package.json', `not valid JSON (${(error as Error).message})`);
  }
  if (!isObject(parsed)) throw new ManifestError('package.json', 'expected a JSON object');
  const given = parsed.walrus;
  if (given === undefined) return { source: 'defaults', lockfile };
  const walrus = object(given, 'walrus');
  known(walrus, 'walrus', FIELDS);
  if (walrus.version !== undefined && walrus.version !== MANIFEST_VERSION) {
    throw new ManifestError('walrus.version', `this controller reads manifest version ${MANIFEST_VERSION}, not ${JSON.stringify(walrus.version)}`);
  }
  const manifest: AppManifest = { source: 'package.json', lockfile };
  if (walrus.port !== undefined) manifest.port = whole(walrus.port, 'walrus.port', 1, 65535);
  if (walrus.health !== undefined) {
    const health = object(walrus.health, 'walrus.health');
    known(health, 'walrus.health', HEALTH_FIELDS);
    manifest.health = {};
    if (health.path !== undefined) {
      if (typeof health.path !== 'string' || !/^\/[\x21-\x7e]{0,255}$/.test(health.path)) throw new ManifestError('walrus.health.path', 'expected an HTTP path such as / or /healthz (no spaces, at most 256 characters)');
      manifest.health.path = health.path;
    }
    if (health.periodSeconds !== undefined) manifest.health.periodSeconds = whole(health.periodSeconds, 'walrus.health.periodSeconds', 1, 300);
    if (health.failureThreshold !== undefined) manifest.health.failureThreshold = whole(health.failureThreshold, 'walrus.health.failureThreshold', 1, 30);
  }
  for (const field of ['build', 'test', 'start'] as const) {
    if (walrus[field] !== undefined) manifest[field] = command(walrus[field], `walrus.${field}`);
  }
  if (walrus.replicas !== undefined) manifest.replicas = whole(walrus.replicas, 'walrus.replicas', 1, 1000);
  if (walrus.env !== undefined) manifest.env = environment(walrus.env);
  if (walrus.allowScripts !== undefined) manifest.allowScripts = packageNames(walrus.allowScripts);
  if (walrus.buildSecrets !== undefined) manifest.buildSecrets = buildSecretNames(walrus.buildSecrets, manifest.env ?? {});
  const size = Buffer.byteLength(JSON.stringify(manifest));
  if (size > MANIFEST_MAX_BYTES) throw new ManifestError('walrus', `the manifest takes ${size} bytes; at most ${MANIFEST_MAX_BYTES} are carried (shorten env or the commands)`);
  return manifest;
}

/** The build after the install when the manifest names none. */
const DEFAULT_BUILD = 'npm run build --if-present';

/**
 * The build step's script: `prelude` (the reproducible build's settings), the install without install scripts, the
 * allowed packages' install scripts (`npm rebuild`), then the app's build (`set -e`: the first failure ends it), then
 * `epilogue` (what the build reports about itself).
 *
 * With buildSecrets, the install alone gets them (withBuildSecrets), so the install scripts and the app's build never
 * see them. The script is the same wherever it runs: the file's place may be moved by WALRUS_BUILD_SECRETS_FILE (a
 * rebuild on the tenant's machine), so the build key does not depend on where the secrets were written.
 */
export function buildScript(manifest: AppManifest, prelude: readonly string[] = [], epilogue: readonly string[] = []): string {
  const install = manifest.lockfile ? 'npm ci --ignore-scripts' : 'npm install --ignore-scripts';
  const allowed = manifest.allowScripts ?? [];
  const rebuild = allowed.length === 0 ? [] : [`npm rebuild ${allowed.map(shellQuote).join(' ')}`];
  const shown = (step: string) => [`echo ${shellQuote(`$ ${step}`)}`, step];
  const secrets = manifest.buildSecrets ?? [];
  const installing = secrets.length === 0 ? shown(install) : [
    `echo ${shellQuote(`$ ${install} (with the build secrets ${secrets.join(', ')})`)}`,
    ...withBuildSecrets(secrets, install),
  ];
  const steps = [...installing, ...[...rebuild, manifest.build ?? DEFAULT_BUILD].flatMap(shown)];
  return ['set -e', ...prelude, ...steps, ...epilogue, ''].join('\n');
}

/** The variable that moves the build secrets' file from BUILD_SECRETS_FILE (where the build Job's step writes it). */
export const BUILD_SECRETS_FILE_VARIABLE = 'WALRUS_BUILD_SECRETS_FILE';

/**
 * The plan's wrapper for an operator's own spec.build.command (`sh /walrus-plan/with-build-secrets.sh npm ci`): runs
 * its arguments with the build secrets the manifest names and removes the file, whether the command failed or not;
 * with none named, it only runs them. The operator scopes the secrets to the install by wrapping that alone.
 */
export function buildSecretsWrapper(manifest: AppManifest): string {
  const secrets = manifest.buildSecrets ?? [];
  if (secrets.length === 0) return ['exec "$@"', ''].join('\n');
  return ['status=0', ...withBuildSecrets(secrets, 'exec "$@"', ' || status=$?'), 'exit $status', ''].join('\n');
}

/**
 * Lines that run `command` in a subshell that sourced the build secrets' file (exported), so the variables die with
 * it, then remove the file before anything else runs. No file (an app under no lease, whose build has no secrets
 * step) fails the build, naming the secrets.
 */
function withBuildSecrets(secrets: readonly string[], command: string, onFailure = ''): string[] {
  const file = `"\${${BUILD_SECRETS_FILE_VARIABLE}:-${BUILD_SECRETS_FILE}}"`;
  return [
    `[ -r ${file} ] || { echo ${shellQuote(`walrus.buildSecrets names ${secrets.join(', ')}, but this build got no secrets: only an app run under a lease has them (git walrus secrets set <lease> NAME=value)`)} >&2; exit 1; }`,
    `(set -a; . ${file}; set +a; ${command})${onFailure}`,
    `rm -f ${file}`,
  ];
}

/** The test step's script: the app's test command, or nothing to do. */
export function testScript(manifest: AppManifest): string {
  if (manifest.test === undefined) return ['echo "no test command in the manifest (walrus.test): nothing to run"', ''].join('\n');
  return ['set -e', `echo ${shellQuote(`$ ${manifest.test}`)}`, manifest.test, ''].join('\n');
}


/** Reads a manifest back from its JSON form (the manifest step's report): the same checks, so nothing unchecked passes. */
export function manifestFromReport(json: unknown): AppManifest {
  if (!isObject(json) || (json.source !== 'package.json' && json.source !== 'defaults') || typeof json.lockfile !== 'boolean') {
    throw new ManifestError('(report)', 'expected the JSON the manifest step writes');
  }
  const { source, lockfile, ...walrus } = json;
  return source === 'defaults' ? { source, lockfile } : parseManifest(JSON.stringify({ walrus }), lockfile);
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

function object(value: unknown, field: string): Record<string, unknown> {
  if (!isObject(value)) throw new ManifestError(field, 'expected a JSON object');
  return value;
}

function known(value: Record<string, unknown>, field: string, fields: string[]): void {
  const unknown = Object.keys(value).filter((key) => !fields.includes(key));
  if (unknown.length > 0) throw new ManifestError(field, `unknown field ${unknown.map((key) => JSON.stringify(key)).join(', ')} (known: ${fields.join(', ')})`);
}

function whole(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw new ManifestError(field, `expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`);
  return value;
}

function command(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > 1000 || /[\0\n\r]/.test(value)) throw new ManifestError(field, 'expected a one-line shell command of at most 1000 characters');
  return value;
}

/** npm package names (scoped or not), as `npm rebuild` takes them. */
function packageNames(value: unknown): string[] {
  if (!Array.isArray(value) || value.length > 100) throw new ManifestError('walrus.allowScripts', 'expected a list of at most 100 package names');
  for (const name of value) {
    if (typeof name !== 'string' || !/^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(name) || name.length > 214) {
      throw new ManifestError('walrus.allowScripts', `expected npm package names such as "esbuild" or "@scope/name", got ${JSON.stringify(name)}`);
    }
  }
  return value as string[];
}

/**
 * The lease's secrets the install sees: environment variable names (as `git walrus secrets set` takes them), each
 * once, none also in `env` (a value in the repository and a secret under one name would leave it unclear which the
 * install gets), at most as many as a lease holds.
 */
function buildSecretNames(value: unknown, env: Record<string, string>): string[] {
  const field = 'walrus.buildSecrets';
  if (!Array.isArray(value)) throw new ManifestError(field, 'expected a list of secret names such as ["NPM_TOKEN"]');
  if (value.length > MAX_SECRETS) throw new ManifestError(field, `names ${value.length} secrets; a lease holds at most ${MAX_SECRETS}`);
  const seen = new Set<string>();
  for (const [i, name] of value.entries()) {
    // The entry is not repeated: one that is no name may be a pasted token.
    if (typeof name !== 'string' || !SECRET_NAME_RULE.test(name)) throw new ManifestError(field, `entry ${i + 1} is not an environment variable name (a letter or _, then letters, digits, _; e.g. NPM_TOKEN)`);
    if (seen.has(name)) throw new ManifestError(field, `names ${name} twice`);
    if (Object.hasOwn(env, name)) throw new ManifestError(field, `${name} is also in walrus.env, which is in the repository for every reader: keep it in one place (a secret, set with git walrus secrets set)`);
    seen.add(name);
  }
  return value as string[];
}

function environment(value: unknown): Record<string, string> {
  const env = object(value, 'walrus.env');
  for (const [name, text] of Object.entries(env)) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new ManifestError(`walrus.env.${name}`, 'expected an environment variable name (letters, digits, _; not a digit first)');
    if (name === 'PORT') throw new ManifestError('walrus.env.PORT', 'PORT is set from walrus.port; name the port there');
    if (typeof text !== 'string') throw new ManifestError(`walrus.env.${name}`, 'expected a string value');
  }
  return env as Record<string, string>;
}
