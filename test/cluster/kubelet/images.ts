/**
 * Images are not pulled here: an image name maps to a local runtime, a set of directories put first on the
 * container's PATH plus the image's ENTRYPOINT/CMD and environment. The map is data (JSON-shaped) so a run can
 * extend or replace it; matching and validation are pure.
 */
import { WalrusGitError } from '../../../src/core/errors.ts';

export interface ImageRuntime {
  /** Directories searched first for the container's command (the image's PATH before the system's). */
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
    throw new ImageMapError(`${source}: an image map is a JSON object of image pattern → { path, entrypoint?, cmd?, env? }`, { source });
  }
  const strings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
  for (const [pattern, runtime] of Object.entries(json)) {
    const r = runtime as Partial<ImageRuntime> | null;
    const ok = typeof r === 'object' && r !== null && strings(r.path) &&
      (r.entrypoint === undefined || strings(r.entrypoint)) && (r.cmd === undefined || strings(r.cmd)) &&
      (r.env === undefined || (typeof r.env === 'object' && r.env !== null && Object.values(r.env).every((v) => typeof v === 'string')));
    if (!ok) throw new ImageMapError(`${source}: entry "${pattern}" must be { path: string[], entrypoint?: string[], cmd?: string[], env?: {string: string} }`, { source, pattern });
  }
  return json as ImageMap;
}

/** Describes the map for an ErrImagePull message: which patterns exist and where the map comes from. */
export function describeImageMap(map: ImageMap, source: string): string {
  return `image map (${source}) has: ${Object.keys(map).join(', ') || 'no entries'}`;
}
