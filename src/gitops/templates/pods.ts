import type { V1Container, V1EnvVar, V1PodSecurityContext, V1ResourceRequirements, V1SecurityContext, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import type { WalrusApp } from '../../ports/walrus-app.ts';
import { PROVIDER_ANNOTATIONS } from '../api/labels.ts';
import { PROJECT_IMAGE } from './names.ts';

/**
 * What build and run pods share: the unprivileged user, the container hardening, and how the project's own tool
 * containers (checkout, artifact pack|fetch) are configured.
 */

/** How the tool containers reach the network: the controller's own configuration, passed as environment. */
export interface ToolConfig {
  /** GIT_WALRUS_NETWORK, GIT_WALRUS_DEVNET_URL and the like, as the controller was configured. */
  env?: Record<string, string>;
  /**
   * A Secret key holding the provider's `suiprivkey1…` key (GIT_WALRUS_KEY): given only to the steps that read or
   * store the repository's data (checkout, pack, and the run pods' fetch), never to the build or the app.
   */
  providerKey?: { secretName: string; key: string };
  /** The project's image; default PROJECT_IMAGE. */
  image?: string;
}

/** The uid/gid every container runs as: not root, and the same everywhere so each step can write what the last wrote. */
export const RUN_AS = 1000;
/** Where the tools keep their state (GIT_WALRUS_HOME, HOME): an emptyDir, the root filesystem being read-only. */
const TOOL_HOME = '/walrus-home';

export const podSecurityContext: V1PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: RUN_AS,
  runAsGroup: RUN_AS,
  fsGroup: RUN_AS,
  seccompProfile: { type: 'RuntimeDefault' },
};

export const containerSecurityContext: V1SecurityContext = {
  runAsNonRoot: true,
  runAsUser: RUN_AS,
  runAsGroup: RUN_AS,
  allowPrivilegeEscalation: false,
  privileged: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
};

/** The tools read chain and Walrus and hash blobs (encoders of ~200 MB at 1000 shards): bounded, never starved. */
const TOOL_RESOURCES: V1ResourceRequirements = {
  requests: { cpu: '100m', memory: '256Mi' },
  limits: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '256Mi' },
};

export const TOOL_HOME_VOLUME: V1Volume = { name: 'walrus-home', emptyDir: {} };
export const TMP_VOLUME: V1Volume = { name: 'tmp', emptyDir: {} };

/**
 * `--lease <id>` for the app the controller made for a lease: its tool steps then ask the key servers as that
 * lease's provider (a private repository's provider is no reader of it).
 */
export function leaseArgs(app: WalrusApp): string[] {
  const lease = app.metadata.annotations?.[PROVIDER_ANNOTATIONS.lease];
  return lease ? ['--lease', lease] : [];
}

/** A container running `git-walrus <args>` from the project's image. */
export function toolContainer(name: string, args: string[], config: ToolConfig, mounts: V1VolumeMount[], options: { withKey?: boolean } = {}): V1Container {
  const env: V1EnvVar[] = Object.entries(config.env ?? {})
    .filter(([key]) => key !== 'GIT_WALRUS_KEY' && key !== 'HOME' && key !== 'GIT_WALRUS_HOME')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => ({ name: key, value }));
  env.push({ name: 'HOME', value: TOOL_HOME }, { name: 'GIT_WALRUS_HOME', value: TOOL_HOME });
  if (options.withKey && config.providerKey) {
    env.push({ name: 'GIT_WALRUS_KEY', valueFrom: { secretKeyRef: { name: config.providerKey.secretName, key: config.providerKey.key } } });
  }
  return {
    name,
    image: config.image ?? PROJECT_IMAGE,
    imagePullPolicy: 'IfNotPresent',
    command: ['git-walrus', ...args],
    env,
    volumeMounts: [...mounts, { name: TOOL_HOME_VOLUME.name, mountPath: TOOL_HOME }, { name: TMP_VOLUME.name, mountPath: '/tmp' }],
    resources: TOOL_RESOURCES,
    securityContext: containerSecurityContext,
    terminationMessagePolicy: 'FallbackToLogsOnError',
  };
}

/**
 * `sh -c <command>` that passes SIGTERM (and SIGINT) on to the command. The shell is the container's PID 1, and a
 * PID 1 without a handler never receives SIGTERM from the kubelet: the app would get no chance to drain and would be
 * SIGKILLed when the grace period ends. Here the shell traps the signal, signals the command (run as its child),
 * waits for it to finish, and exits with its status. (A compound command runs in a subshell, which gets the signal;
 * its last program gets it too only when the subshell execs it, as dash and bash do.)
 */
export function forwardingShell(command: string): string[] {
  return ['sh', '-c', [
    `trap 'kill -TERM "$child" 2>/dev/null' TERM INT`,
    `${command} &`,
    'child=$!',
    // A trapped signal interrupts `wait` (status 128+n): wait again while the command runs. A status not collected
    // yet (the command ended right after an interrupted wait) is still there for one more `wait`; 127 means none.
    'status=127',
    'while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done',
    'wait "$child" 2>/dev/null; last=$?',
    '[ "$last" -eq 127 ] || status=$last',
    'exit "$status"',
  ].join('\n')];
}

