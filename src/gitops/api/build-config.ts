import { createHash } from 'node:crypto';
import type { ResolvedSpec } from './types.ts';

/** A variable of the offer's buildEnv. */
type BuildEnvVar = { name: string; value?: string };

/**
 * Names the build settings a commit is built with: a build is reused only for the same (commit, build config), so
 * changing the build command, image, timeout or limits builds again. 10 hex digits, for Job names.
 *
 * The provider's `buildEnv` (its offer) is part of the build's settings too: a new registry mirror or proxy CA may
 * change what `npm ci` installs, or make a build that failed against the old mirror pass, and the running commit
 * should be what the offer now says it is built with (docs/architecture.md, The GitOps controller). Its values may be
 * tokens, so only a digest of them enters the hash (`buildEnvDigest`), never a value. An empty buildEnv adds nothing:
 * the hash is then the one controllers gave before buildEnv counted, and an offer without one rebuilds nothing.
 */
export function buildConfigHash(spec: Pick<ResolvedSpec, 'build'>, buildEnv: readonly BuildEnvVar[] = []): string {
  const { command, image, timeout, resources } = spec.build;
  const settings = buildEnv.length === 0 ? { command, image, timeout, resources } : { command, image, timeout, resources, buildEnv: buildEnvDigest(buildEnv) };
  return createHash('sha256').update(JSON.stringify(canonical(settings))).digest('hex').slice(0, 10);
}

/**
 * sha256 over the sorted (name, value) pairs, each as JSON so that a value holding a newline (a CA bundle) cannot
 * read as two variables: the same for the same variables in any order, another for any other, and no value readable.
 */
export function buildEnvDigest(buildEnv: readonly BuildEnvVar[]): string {
  const pairs = buildEnv.map(({ name, value }) => JSON.stringify([name, value ?? ''])).sort();
  return createHash('sha256').update(pairs.join('\n')).digest('hex');
}

/** The config a build is planned with: its hash, and the one a controller before buildEnv counted gave it. */
export interface PlannedConfig {
  configHash: string;
  /** buildConfigHash of the spec alone. */
  specConfigHash: string;
}

export function plannedConfig(spec: Pick<ResolvedSpec, 'build'>, buildEnv: readonly BuildEnvVar[] = []): PlannedConfig {
  return { configHash: buildConfigHash(spec, buildEnv), specConfigHash: buildConfigHash(spec) };
}

/**
 * Whether an artifact (or build record) was made with the planned settings. One recorded without `buildEnvCounted`
 * comes from a controller whose hash left buildEnv out: it is taken as built with today's buildEnv when its spec
 * settings match, so that upgrading the controller does not rebuild every app of an unchanged offer; the next build
 * records the full hash.
 */
export function builtWith(recorded: { configHash?: string; buildEnvCounted?: boolean } | undefined, planned: PlannedConfig): boolean {
  if (!recorded?.configHash) return false;
  return recorded.configHash === planned.configHash || (recorded.buildEnvCounted !== true && recorded.configHash === planned.specConfigHash);
}

/** Objects with sorted keys, so equal settings hash equally whatever order they were written in. */
export function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  return value;
}
