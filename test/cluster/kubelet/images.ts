/**
 * Images are not pulled here: an image name maps to a local runtime: the image's files (host directories presented
 * read-only at paths of their own in the container, as a runtime presents an image's layers), a set of directories
 * put first on the container's PATH, and the image's ENTRYPOINT/CMD and environment. The map is data (JSON-shaped)
 * so a run can extend or replace it; matching and validation are pure.
 */
import { createHash } from 'node:crypto';
import { WalrusGitError } from '../../../src/core/errors.ts';

export interface ImageRuntime {
  /**
   * The image's files: container path → host directory, bound read-only before the pod's volumes, so they are the
   * container's own whatever the host directory's parents allow and wherever it lies (a volume at /tmp hides the
   * host's /tmp, not these).
   */
  files?: Record<string, string>;
  /** Directories (container paths) searched first for the container's command (the image's PATH before the system's). */
  path: string[];
  /** The image's ENTRYPOINT and CMD, used as Kubernetes uses them when `command`/`args` are not given. */
  entrypoint?: string[];
  cmd?: string[];
  /** The image's ENV (the container's own env overrides it). */
  env?: Record<string, string>;
}

/** Image pattern (`*` matches any run of characters; no tag means `:latest`) → runtime. First match wins. */
export type ImageMap = Record<string, ImageRuntime>;

export const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export class ImageMapError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('K8S_IMAGE_MAP', message, data);
  }
}

/** `node` → `node:latest`, `docker.io/library/node:22` → `node:22`; a digest stays as it is. */
export function normalizeImage(image: string): string {
  let name = image.trim().replace(/^docker\.io\/(library\/)?/, '').replace(/^index\.docker\.io\/(library\/)?/, '');
  const lastSegment = name.slice(name.lastIndexOf('/') + 1);
  if (!lastSegment.includes(':') && !lastSegment.includes('@')) name += ':latest';
  return name;
}

/** `*` matches any run of characters, everything else itself. */
function globRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${escaped}$`);
}

function patternRegExp(pattern: string): RegExp {
  return globRegExp(normalizeImage(pattern));
}

/**
 * A runtime's digest, standing in for an image's content digest: a sha256 over what the container sees of it (the
 * pattern, where its files appear, its PATH, entrypoint, command and environment), not over host paths, so the same
 * map gives the same digest on every machine and any change to what a container gets gives another.
 */
export function imageDigest(pattern: string, runtime: ImageRuntime): string {
  const seen = { pattern, files: Object.keys(runtime.files ?? {}).sort(), path: runtime.path, entrypoint: runtime.entrypoint ?? null, cmd: runtime.cmd ?? null, env: runtime.env ?? null };
  return `sha256:${createHash('sha256').update(JSON.stringify(seen)).digest('hex')}`;
}

/** The repository part of a normalized image name (`node:22` → `node`, `node@sha256:…` → `node`). */
function repositoryOf(name: string): string {
  const at = name.indexOf('@');
  if (at >= 0) return name.slice(0, at);
  const colon = name.lastIndexOf(':');
  return colon > name.lastIndexOf('/') ? name.slice(0, colon) : name;
}

/**
 * The entry for `image`: by tag, the first pattern that matches; by digest (`node@sha256:…`), the entry whose
 * pattern names that repository and whose digest it is, as a registry serves a manifest by digest only when its
 * content has that digest. Undefined when nothing matches (the kubelet reports ErrImagePull).
 */
function resolveEntry(map: ImageMap, image: string): { pattern: string; runtime: ImageRuntime } | undefined {
  const name = normalizeImage(image);
  const digest = /@(sha256:[0-9a-f]{64})$/.exec(name)?.[1];
  for (const [pattern, runtime] of Object.entries(map)) {
    const matches = digest === undefined
      ? patternRegExp(pattern).test(name)
      : globRegExp(repositoryOf(normalizeImage(pattern))).test(repositoryOf(name)) && imageDigest(pattern, runtime) === digest;
    if (matches) return { pattern, runtime };
  }
  return undefined;
}

/** The runtime for `image`, or undefined when nothing matches (the kubelet reports ErrImagePull). */
export function resolveImage(map: ImageMap, image: string): ImageRuntime | undefined {
  return resolveEntry(map, image)?.runtime;
}

/**
 * What a kubelet reports as a running container's `imageID`: the image's repository, qualified as the runtime pulled
 * it (`docker.io/library/node`), and the digest of what it runs (`…@sha256:…`), whether the pod named it by tag or by
 * digest. Empty when the image resolves to nothing.
 */
export function imageID(map: ImageMap, image: string): string {
  const entry = resolveEntry(map, image);
  if (!entry) return '';
  const repository = repositoryOf(normalizeImage(image));
  const first = repository.split('/')[0]!;
  const registry = repository.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  const qualified = registry ? repository : repository.includes('/') ? `docker.io/${repository}` : `docker.io/library/${repository}`;
  return `${qualified}@${imageDigest(entry.pattern, entry.runtime)}`;
}

/** Checks a map read from JSON; throws naming the first bad entry. */
export function parseImageMap(json: unknown, source: string): ImageMap {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ImageMapError(`${source}: an image map is a JSON object of image pattern → { files?, path, entrypoint?, cmd?, env? }`, { source });
  }
  const strings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
  const record = (value: unknown, valid: (key: string, item: unknown) => boolean) =>
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.entries(value).every(([key, item]) => valid(key, item));
  const absolute = (path: unknown) => typeof path === 'string' && path.startsWith('/') && path !== '/';
  for (const [pattern, runtime] of Object.entries(json)) {
    const r = runtime as Partial<ImageRuntime> | null;
    const ok = typeof r === 'object' && r !== null && strings(r.path) &&
      (r.files === undefined || record(r.files, (target, host) => absolute(target) && absolute(host))) &&
      (r.entrypoint === undefined || strings(r.entrypoint)) && (r.cmd === undefined || strings(r.cmd)) &&
      (r.env === undefined || record(r.env, (_, value) => typeof value === 'string'));
    if (!ok) {
      throw new ImageMapError(`${source}: entry "${pattern}" must be { files?: {container path: host directory}, path: string[], entrypoint?: string[], ` +
        'cmd?: string[], env?: {string: string} } (paths absolute, never "/")', { source, pattern });
    }
  }
  return json as ImageMap;
}

/** Describes the map for an ErrImagePull message: which patterns exist and where the map comes from. */
export function describeImageMap(map: ImageMap, source: string): string {
  return `image map (${source}) has: ${Object.keys(map).join(', ') || 'no entries'}`;
}
