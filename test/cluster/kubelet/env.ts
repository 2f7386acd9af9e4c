/**
 * A container's environment and argv exactly as the kubelet computes them (pkg/kubelet/kubelet_pods.go and
 * third_party/forked/golang/expansion): envFrom first, then env in order, each `value` expanded against the
 * variables defined before it; `command`/`args` expanded against the result; image ENTRYPOINT/CMD used per
 * the documented rules. Pure: referenced ConfigMaps and Secrets are fetched by the caller and passed in.
 */
import type { V1Container, V1Pod, V1Service } from '@kubernetes/client-node';
import { WalrusGitError } from '../../../src/core/errors.ts';
import type { ImageRuntime } from './images.ts';

/** What the kubelet reports as `CreateContainerConfigError`: the container is not started, the pod waits. */
export class ContainerConfigError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('K8S_CONTAINER_CONFIG', message, data);
  }
}

/** `$(VAR)` → mapping(VAR); `$$` → `$`; anything else after `$` and an unclosed `$(` stay literal. */
export function expand(input: string, mapping: (name: string) => string): string {
  let out = '';
  let checkpoint = 0;
  for (let cursor = 0; cursor < input.length; cursor++) {
    if (input[cursor] !== '$' || cursor + 1 >= input.length) continue;
    out += input.slice(checkpoint, cursor);
    const rest = input.slice(cursor + 1);
    let advance = 1;
    if (rest[0] === '$') out += '$';
    else if (rest[0] === '(') {
      const close = rest.indexOf(')', 1);
      if (close > 0) {
        out += mapping(rest.slice(1, close));
        advance = close + 1;
      } else out += '$(';
    } else out += '$' + rest[0];
    cursor += advance;
    checkpoint = cursor + 1;
  }
  return out + input.slice(checkpoint);
}

/** A mapping over the given variables, leaving an undefined reference as written (`$(NAME)`). */
export function mappingFor(...contexts: ReadonlyMap<string, string>[]): (name: string) => string {
  return (name) => {
    for (const context of contexts) {
      const value = context.get(name);
      if (value !== undefined) return value;
    }
    return `$(${name})`;
  };
}

/** Keys and values of the ConfigMaps and Secrets (decoded) a pod refers to, by name; absent when not found. */
export interface EnvSources {
  configMaps: ReadonlyMap<string, Record<string, string>>;
  secrets: ReadonlyMap<string, Record<string, string>>;
  /** The Services' variables (`serviceEnv`). */
  services: ReadonlyMap<string, string>;
}

const envName = (name: string) => name.replace(/-/g, '_').toUpperCase();

/**
 * The Docker-link variables the kubelet gives every container for Services (pkg/kubelet/envvars): the
 * `kubernetes` Service of `default` always, the pod's namespace's Services unless `enableServiceLinks` is
 * false; headless Services have none. `services` are those Services, in any order.
 */
export function serviceEnv(pod: V1Pod, services: V1Service[]): Map<string, string> {
  const namespace = pod.metadata?.namespace;
  const links = pod.spec?.enableServiceLinks ?? true;
  const chosen = new Map<string, V1Service>();
  for (const service of services) {
    const ip = service.spec?.clusterIP;
    if (!ip || ip === 'None') continue;
    const name = service.metadata!.name!;
    if (service.metadata?.namespace === 'default' && name === 'kubernetes') {
      if (!chosen.has(name)) chosen.set(name, service);
    } else if (service.metadata?.namespace === namespace && links) chosen.set(name, service);
  }
  const env = new Map<string, string>();
  for (const [name, service] of [...chosen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const prefix = envName(name);
    const ip = service.spec!.clusterIP!;
    const ports = service.spec?.ports ?? [];
    env.set(`${prefix}_SERVICE_HOST`, ip);
    ports.forEach((port, i) => {
      if (i === 0) env.set(`${prefix}_SERVICE_PORT`, String(port.port));
      if (port.name) env.set(`${prefix}_SERVICE_PORT_${envName(port.name)}`, String(port.port));
    });
    ports.forEach((port, i) => {
      const protocol = port.protocol ?? 'TCP';
      const url = `${protocol.toLowerCase()}://${ip.includes(':') ? `[${ip}]` : ip}:${port.port}`;
      const portPrefix = `${prefix}_PORT_${port.port}_${protocol.toUpperCase()}`;
      if (i === 0) env.set(`${prefix}_PORT`, url);
      env.set(portPrefix, url);
      env.set(`${portPrefix}_PROTO`, protocol.toLowerCase());
      env.set(`${portPrefix}_PORT`, String(port.port));
      env.set(`${portPrefix}_ADDR`, ip);
    });
  }
  return env;
}

export interface PodFacts {
  podIP?: string;
  hostIP?: string;
}

const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** The `fieldRef` values the 1.20 kubelet resolves for env. */
export function podFieldValue(pod: V1Pod, facts: PodFacts, fieldPath: string): string {
  const meta = pod.metadata ?? {};
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (keyed) return (keyed[1] === 'labels' ? meta.labels : meta.annotations)?.[keyed[2]] ?? '';
  switch (fieldPath) {
    case 'metadata.name': return meta.name ?? '';
    case 'metadata.namespace': return meta.namespace ?? '';
    case 'metadata.uid': return meta.uid ?? '';
    case 'spec.nodeName': return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    case 'status.hostIP': return facts.hostIP ?? '';
    case 'status.podIP':
    case 'status.podIPs': return facts.podIP ?? '';
  }
  throw new ContainerConfigError(`unsupported fieldRef fieldPath "${fieldPath}"`, { fieldPath });
}

/**
 * The container's Kubernetes-defined variables, in order (later entries win): envFrom, then env, then the
 * Services' variables not defined by those (values are expanded against both). Throws
 * ContainerConfigError for a missing non-optional ConfigMap, Secret or key, as the kubelet does.
 */
export function containerEnv(pod: V1Pod, container: V1Container, sources: EnvSources, facts: PodFacts): Map<string, string> {
  const env = new Map<string, string>();
  const namespace = pod.metadata?.namespace ?? '';
  const lookup = (kind: 'ConfigMap' | 'Secret', name: string, optional: boolean | undefined) => {
    const data = (kind === 'ConfigMap' ? sources.configMaps : sources.secrets).get(name);
    if (data === undefined && !optional) throw new ContainerConfigError(`${kind.toLowerCase()} "${name}" not found`, { namespace, name });
    return data;
  };
  for (const from of container.envFrom ?? []) {
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref) continue;
    const data = lookup(from.configMapRef ? 'ConfigMap' : 'Secret', ref.name ?? '', ref.optional);
    for (const [key, value] of Object.entries(data ?? {})) {
      const name = (from.prefix ?? '') + key;
      // The kubelet skips keys that are not valid variable names (and records an event).
      if (ENV_NAME.test(name)) env.set(name, value);
    }
  }
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (!from) {
      env.set(variable.name, variable.value ? expand(variable.value, mappingFor(env, sources.services)) : '');
      continue;
    }
    if (from.fieldRef) env.set(variable.name, podFieldValue(pod, facts, from.fieldRef.fieldPath));
    else if (from.configMapKeyRef || from.secretKeyRef) {
      const kind = from.configMapKeyRef ? 'ConfigMap' : 'Secret';
      const ref = (from.configMapKeyRef ?? from.secretKeyRef)!;
      const data = lookup(kind, ref.name ?? '', ref.optional);
      if (data === undefined) continue;
      const value = data[ref.key];
      if (value === undefined) {
        if (ref.optional) continue;
        throw new ContainerConfigError(`couldn't find key ${ref.key} in ${kind} ${namespace}/${ref.name}`, { namespace, name: ref.name, key: ref.key });
      }
      env.set(variable.name, value);
    } else throw new ContainerConfigError(`env ${variable.name}: resourceFieldRef is not supported by this kubelet`, { name: variable.name });
  }
  // Service variables come last, and only where the container did not define the name itself.
  for (const [name, value] of sources.services) if (!env.has(name)) env.set(name, value);
  return env;
}

/**
 * The argv to run: `command` replaces the image's ENTRYPOINT and drops its CMD; `args` alone replace CMD.
 * Both are expanded against the container's variables. Throws when nothing is left to run.
 */
export function containerArgv(container: V1Container, image: ImageRuntime, env: ReadonlyMap<string, string>): string[] {
  const mapping = mappingFor(env);
  const command = container.command?.length ? container.command.map((c) => expand(c, mapping)) : image.entrypoint ?? [];
  const args = container.args?.length ? container.args.map((a) => expand(a, mapping))
    : container.command?.length ? [] : image.cmd ?? [];
  const argv = [...command, ...args];
  if (argv.length === 0) throw new ContainerConfigError(`container ${container.name}: no command specified and the image has none`, { container: container.name });
  return argv;
}

/**
 * The process environment: the image's ENV (PATH with the image's directories first), HOSTNAME, then the
 * container's variables on top.
 */
export function processEnv(image: ImageRuntime, hostname: string, home: string, env: ReadonlyMap<string, string>, systemPath: string): Record<string, string> {
  return {
    PATH: [...image.path, systemPath].join(':'),
    HOSTNAME: hostname,
    HOME: home,
    ...image.env,
    ...Object.fromEntries(env),
  };
}
