/**
 * What a container is started with, as the kubelet derives it from the pod: the image's runtime, the argv and
 * variables (env.ts) from the ConfigMaps, Secrets and Services they refer to, and the user it runs as.
 */
import { readFileSync } from 'node:fs';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { containerArgv, containerEnv, serviceEnv } from './env.ts';
import type { EnvSources, PodFacts } from './env.ts';
import { resolveImage } from './images.ts';
import type { ImageMap, ImageRuntime } from './images.ts';
import type { VolumeSources } from './volumes.ts';

export interface ContainerConfig {
  image: ImageRuntime;
  argv: string[];
  env: Map<string, string>;
}

export interface Identity {
  uid?: number;
  gid?: number;
  home: string;
}

/** Throws ContainerConfigError (env.ts) when a referenced ConfigMap or Secret key is missing. */
export async function containerConfig(pod: V1Pod, spec: V1Container, images: ImageMap, sources: VolumeSources, facts: PodFacts): Promise<ContainerConfig> {
  const image = resolveImage(images, spec.image ?? '')!;
  const env = containerEnv(pod, spec, await envSources(pod, spec, sources), facts);
  return { image, env, argv: containerArgv(spec, image, env) };
}

/** The ConfigMaps and Secrets the container's env refers to (absent ones are left out), and the Services' variables. */
async function envSources(pod: V1Pod, spec: V1Container, sources: VolumeSources): Promise<EnvSources> {
  const configMaps = new Map<string, Record<string, string>>();
  const secrets = new Map<string, Record<string, string>>();
  const namespace = pod.metadata!.namespace!;
  const names = (kind: 'configMap' | 'secret') => new Set([
    ...(spec.envFrom ?? []).map((f) => (kind === 'configMap' ? f.configMapRef?.name : f.secretRef?.name)),
    ...(spec.env ?? []).map((e) => (kind === 'configMap' ? e.valueFrom?.configMapKeyRef?.name : e.valueFrom?.secretKeyRef?.name)),
  ].filter((n): n is string => !!n));
  const text = (data: Record<string, Buffer>) => Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.toString('utf8')]));
  for (const name of names('configMap')) {
    const data = await sources.configMap(namespace, name);
    if (data) configMaps.set(name, text(data));
  }
  for (const name of names('secret')) {
    const data = await sources.secret(namespace, name);
    if (data) secrets.set(name, text(data));
  }
  return { configMaps, secrets, services: serviceEnv(pod, await sources.services(namespace)) };
}

/**
 * runAsUser/runAsGroup of the container, else of the pod; without runAsGroup the gid is the user's passwd group, or 0,
 * as a runtime does it; HOME from passwd too.
 */
export function containerIdentity(pod: V1Pod, spec: V1Container): Identity {
  const security = { ...pod.spec?.securityContext, ...spec.securityContext };
  const uid = security.runAsUser;
  const account = uid === undefined ? undefined : passwdEntry(uid);
  const gid = security.runAsGroup ?? (uid === undefined ? undefined : account?.gid ?? 0);
  const home = account?.home ?? (uid === undefined || uid === 0 ? '/root' : '/');
  return { uid, gid, home };
}

/** The user's group and home from the host's /etc/passwd (the image's, here), as a runtime resolves a numeric runAsUser. */
function passwdEntry(uid: number): { gid: number; home: string } | undefined {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const fields = line.split(':');
      if (Number(fields[2]) === uid && fields[2] !== '') return { gid: Number(fields[3]), home: fields[5] || '/' };
    }
  } catch {
    // No passwd: gid 0 and home /.
  }
  return undefined;
}
