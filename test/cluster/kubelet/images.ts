/**
 * Images are not pulled here: an image name maps to a local runtime: the image's files (host directories presented
 * read-only at paths of their own in the container, as a runtime presents an image's layers), a set of directories
 * put first on the container's PATH, and the image's ENTRYPOINT/CMD and environment. The map is data (JSON-shaped)
 * so a run can extend or replace it; matching and validation are pure.
 */
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

function patternRegExp(pattern: string): RegExp {
  const escaped = normalizeImage(pattern).split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${escaped}$`);
}

/** The runtime for `image`, or undefined when no pattern matches (the kubelet reports ErrImagePull). */
export function resolveImage(map: ImageMap, image: string): ImageRuntime | undefined {
  const name = normalizeImage(image);
  for (const [pattern, runtime] of Object.entries(map)) {
    if (patternRegExp(pattern).test(name)) return runtime;
  }
  return undefined;
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
