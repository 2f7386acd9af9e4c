import { createHash } from 'node:crypto';
import type { ResolvedSpec } from './types.ts';

/**
 * Names the build settings a commit is built with: a build is reused only for the same (commit, build config), so
 * changing the build command, image, timeout or limits builds again. 10 hex digits, for Job names.
 */
export function buildConfigHash(spec: Pick<ResolvedSpec, 'build'>): string {
  const { command, image, timeout, resources } = spec.build;
  return createHash('sha256').update(JSON.stringify(canonical({ command, image, timeout, resources }))).digest('hex').slice(0, 10);
}

/** Objects with sorted keys, so equal settings hash equally whatever order they were written in. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  return value;
}
