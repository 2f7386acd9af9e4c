/**
 * A pod's volumes as host directories under its state dir, bind-mounted into each container by the runtime.
 * emptyDir: a directory (mode 0777, as the kubelet makes it) whose size is polled against its sizeLimit;
 * secret, configMap, downwardAPI and projected (service-account token, configMap, secret, downwardAPI):
 * files written from the objects with `items`, `defaultMode` and per-item `mode`; hostPath: the path itself.
 * Which files a source yields is computed purely (`projectFiles`); writing and fetching are apart.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import type { V1Container, V1KeyToPath, V1Pod, V1Service, V1Volume } from '@kubernetes/client-node';
import { WalrusGitError } from '../../../src/core/errors.ts';
import { podFieldValue } from './env.ts';
import type { PodFacts } from './env.ts';
import type { Mount } from './runtime.ts';

const run = promisify(execFile);

/** A volume cannot be set up yet (a missing object, an unsupported type): the pod waits in ContainerCreating. */
export class VolumeError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('K8S_VOLUME', message, data);
  }
}

export interface VolumeFile {
  path: string;
  content: Buffer;
  mode: number;
}

/** What volumes and env read from the API (the kubelet's own client). */
export interface VolumeSources {
  /** The Services a container's variables may name: the pod's namespace's and `default/kubernetes`. */
  services(namespace: string): Promise<V1Service[]>;
  configMap(namespace: string, name: string): Promise<Record<string, Buffer> | undefined>;
  secret(namespace: string, name: string): Promise<Record<string, Buffer> | undefined>;
  serviceAccountToken(namespace: string, serviceAccount: string, audience: string | undefined, expirationSeconds: number): Promise<string>;
}

const DEFAULT_MODE = 0o644;

/** The files of one source: every key, or just `items` (each to its `path`, with its `mode`). */
export function projectFiles(data: Record<string, Buffer>, items: V1KeyToPath[] | undefined, defaultMode: number | undefined,
  what: string, optional: boolean | undefined): VolumeFile[] {
  const mode = defaultMode ?? DEFAULT_MODE;
  if (!items?.length) return Object.entries(data).map(([key, content]) => ({ path: key, content, mode }));
  return items.flatMap((item) => {
    const content = data[item.key];
    if (content === undefined) {
      if (optional) return [];
      throw new VolumeError(`${what}: key "${item.key}" not found`, { key: item.key });
    }
    return [{ path: item.path, content, mode: item.mode ?? mode }];
  });
}

/** A relative path that stays inside its volume. */
function safeRelative(path: string, what: string): string {
  const clean = normalize(path);
  if (clean.startsWith('/') || clean === '..' || clean.startsWith('../')) throw new VolumeError(`${what}: path "${path}" leaves the volume`, { path });
  return clean;
}

async function writeFiles(dir: string, files: VolumeFile[], what: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const file of files) {
    const target = join(dir, safeRelative(file.path, what));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content);
    await chmod(target, file.mode);
  }
}

async function sourceFiles(pod: V1Pod, facts: PodFacts, sources: VolumeSources, volume: V1Volume): Promise<VolumeFile[]> {
  const namespace = pod.metadata!.namespace!;
  const object = async (kind: 'ConfigMap' | 'Secret', name: string, optional: boolean | undefined) => {
    const data = await (kind === 'ConfigMap' ? sources.configMap(namespace, name) : sources.secret(namespace, name));
    if (data === undefined && !optional) throw new VolumeError(`volume "${volume.name}": ${kind.toLowerCase()} "${name}" not found`, { namespace, name });
    return data ?? {};
  };
  const downward = (items: { path: string; fieldRef?: { fieldPath: string }; mode?: number }[], defaultMode: number | undefined) =>
    items.map((item) => {
      if (!item.fieldRef) throw new VolumeError(`volume "${volume.name}": only fieldRef items are supported in downwardAPI`, {});
      return { path: item.path, content: Buffer.from(podFieldValue(pod, facts, item.fieldRef.fieldPath)), mode: item.mode ?? defaultMode ?? DEFAULT_MODE };
    });
  if (volume.secret) {
    const s = volume.secret;
    return projectFiles(await object('Secret', s.secretName ?? '', s.optional), s.items, s.defaultMode, `volume "${volume.name}"`, s.optional);
  }
  if (volume.configMap) {
    const c = volume.configMap;
    return projectFiles(await object('ConfigMap', c.name ?? '', c.optional), c.items, c.defaultMode, `volume "${volume.name}"`, c.optional);
  }
  if (volume.downwardAPI) return downward(volume.downwardAPI.items ?? [], volume.downwardAPI.defaultMode);
  if (volume.projected) {
    const defaultMode = volume.projected.defaultMode;
    const files: VolumeFile[] = [];
    for (const source of volume.projected.sources ?? []) {
      if (source.serviceAccountToken) {
        const t = source.serviceAccountToken;
        const token = await sources.serviceAccountToken(namespace, pod.spec?.serviceAccountName ?? 'default', t.audience, t.expirationSeconds ?? 3600);
        files.push({ path: t.path, content: Buffer.from(token), mode: defaultMode ?? DEFAULT_MODE });
      } else if (source.secret) {
        const s = source.secret;
        files.push(...projectFiles(await object('Secret', s.name ?? '', s.optional), s.items, defaultMode, `volume "${volume.name}"`, s.optional));
      } else if (source.configMap) {
        const c = source.configMap;
        files.push(...projectFiles(await object('ConfigMap', c.name ?? '', c.optional), c.items, defaultMode, `volume "${volume.name}"`, c.optional));
      } else if (source.downwardAPI) files.push(...downward(source.downwardAPI.items ?? [], defaultMode));
    }
    return files;
  }
  throw new VolumeError(`volume "${volume.name}": this kubelet supports emptyDir, secret, configMap, downwardAPI, projected and hostPath volumes`, { volume: volume.name });
}

/** Creates every volume of the pod under `dir`; returns volume name → host path. */
export async function prepareVolumes(pod: V1Pod, dir: string, facts: PodFacts, sources: VolumeSources): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  for (const volume of pod.spec?.volumes ?? []) {
    if (volume.hostPath) {
      paths.set(volume.name, volume.hostPath.path);
      continue;
    }
    const path = join(dir, volume.name);
    if (volume.emptyDir) {
      await mkdir(path, { recursive: true });
      await chmod(path, 0o777);
    } else {
      // Rewritten from scratch each time: a pod's files are its objects' content when it (re)starts.
      const files = await sourceFiles(pod, facts, sources, volume);
      await rm(path, { recursive: true, force: true });
      await writeFiles(path, files, `volume "${volume.name}"`);
      await chmod(path, 0o755);
    }
    paths.set(volume.name, path);
  }
  return paths;
}

/** The container's bind mounts for its volumeMounts (subPath included). */
export async function containerMounts(container: V1Container, volumes: ReadonlyMap<string, string>): Promise<Mount[]> {
  const mounts: Mount[] = [];
  for (const m of container.volumeMounts ?? []) {
    const base = volumes.get(m.name);
    if (base === undefined) throw new VolumeError(`container ${container.name}: volumeMount "${m.name}" names no volume of the pod`, { volume: m.name });
    let source = base;
    if (m.subPath) {
      source = join(base, safeRelative(m.subPath, `volumeMount "${m.name}"`));
      await mkdir(source, { recursive: true });
    }
    mounts.push({ source, target: m.mountPath, readOnly: m.readOnly ?? false });
  }
  return mounts;
}

const UNITS: Record<string, number> = {
  '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** A resource quantity (`64Mi`, `1G`, `1e6`, `500`) in bytes. */
export function quantityBytes(quantity: string): number {
  const match = /^([0-9.]+(?:[eE][-+]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E|m)?$/.exec(quantity.trim());
  if (!match) throw new VolumeError(`not a quantity: "${quantity}"`, { quantity });
  const unit = match[2] ?? '';
  return unit === 'm' ? Number(match[1]) / 1000 : Number(match[1]) * UNITS[unit];
}

/** The first emptyDir over its sizeLimit, with the kubelet's eviction message; undefined when all fit. */
export async function emptyDirOverLimit(pod: V1Pod, volumes: ReadonlyMap<string, string>): Promise<string | undefined> {
  for (const volume of pod.spec?.volumes ?? []) {
    const limit = volume.emptyDir?.sizeLimit;
    const path = volumes.get(volume.name);
    if (!limit || !path) continue;
    const { stdout } = await run('du', ['-s', '-B1', path]).catch(() => ({ stdout: '0' }));
    if (Number(stdout.split(/\s/)[0]) > quantityBytes(String(limit))) {
      return `Usage of EmptyDir volume "${volume.name}" exceeds the limit "${limit}". `;
    }
  }
  return undefined;
}
