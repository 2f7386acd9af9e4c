import type { V1Deployment, V1EnvVar, V1Service, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { resolveSpec } from '../api/types.ts';
import type { Artifact, WalrusApp } from '../../ports/walrus-app.ts';
import { ANNOTATIONS, appResourceName, labelsOf, ownerReference, selectorLabels } from './names.ts';
import { containerSecurityContext, forwardingShell, leaseArgs, podSecurityContext, TMP_VOLUME, TOOL_HOME_VOLUME, toolContainer } from './pods.ts';
import type { ToolConfig } from './pods.ts';
import { DEFAULT_NODE_LOSS_TOLERATION_SECONDS, runPlacement } from './placement.ts';

/** Where the artifact is unpacked and the app runs. */
export const APP_DIR = '/app';
/**
 * Where the app's pods hold the lease's secrets: an emptyDir in memory (tmpfs), so the values never touch the node's
 * disk nor the Kubernetes API; the `secrets` init container writes the file, the app's shell sources it.
 */
export const SECRETS_DIR = '/run/walrus-secrets';
const SECRETS_FILE = `${SECRETS_DIR}/env`;

/** The container port's name, which the readiness probe and the Service target. */
export const PORT_NAME = 'http';
/** The Service's port: the app is reached on port 80 of its Service, whatever it listens on. */
export const SERVICE_PORT = 80;

/**
 * The app's Deployment for one release (docs/architecture.md, The GitOps controller): an init container fetches the
 * artifact by blob id (decrypting a private repository's with the provider's key, which only it holds) and unpacks it
 * only if its sha256 matches; the app container runs spec.run.command there (in a shell that passes SIGTERM on, so the
 * app can drain) with PORT, the spec's env/envFrom/resources and a readiness probe on health.path. The pod template
 * names the commit and artifact, so a new release changes the template and the Deployment rolls out
 * (maxSurge/maxUnavailable, progressDeadlineSeconds), and re-applying the same release changes nothing. Its pods are
 * placed to survive a node's loss (placement.ts).
 */
export function runDeployment(app: WalrusApp, release: { commit: string; artifact: Artifact; secrets?: { blobId: string; version: number } }, config: ToolConfig = {}, tolerationSeconds = DEFAULT_NODE_LOSS_TOLERATION_SECONDS): V1Deployment {
  const spec = resolveSpec(app.spec);
  const labels = labelsOf(app, 'run');
  const lease = leaseArgs(app);
  // A lease's secrets: the pods name the version (a new one changes the template, so the app rolls out with it;
  // running pods keep theirs), the values reach the app through memory only the pod sees.
  const secrets = release.secrets !== undefined && lease.length > 0 ? release.secrets : undefined;
  const annotations = {
    [ANNOTATIONS.commit]: release.commit,
    [ANNOTATIONS.artifactBlobId]: release.artifact.blobId,
    [ANNOTATIONS.artifactSha256]: release.artifact.sha256,
    ...(secrets ? { [ANNOTATIONS.secretsVersion]: String(secrets.version), [ANNOTATIONS.secretsBlobId]: secrets.blobId } : {}),
  };
  const secretsVolume: V1Volume = { name: 'walrus-secrets', emptyDir: { medium: 'Memory', sizeLimit: '8Mi' } };
  const atSecrets: V1VolumeMount = { name: secretsVolume.name, mountPath: SECRETS_DIR };
  const appVolume: V1Volume = { name: 'app', emptyDir: {} };
  const atApp: V1VolumeMount = { name: appVolume.name, mountPath: APP_DIR };
  // PORT is the controller's: the probe and the Service depend on it, so a PORT in spec.env does not override it.
  const env: V1EnvVar[] = [...spec.env.filter((variable) => variable.name !== 'PORT'), { name: 'PORT', value: String(spec.port) }, { name: 'HOME', value: '/tmp' }];
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: appResourceName(app), namespace: app.metadata.namespace, labels, annotations, ownerReferences: [ownerReference(app)] },
    spec: {
      replicas: spec.replicas,
      selector: { matchLabels: selectorLabels(app, 'run') },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: spec.rollout.maxSurge, maxUnavailable: spec.rollout.maxUnavailable } },
      progressDeadlineSeconds: spec.rollout.progressDeadlineSeconds,
      revisionHistoryLimit: 10,
      template: {
        metadata: { labels, annotations },
        spec: {
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurityContext,
          ...runPlacement(app, spec.replicas, tolerationSeconds),
          initContainers: [
            toolContainer('fetch', fetchArgs(release.artifact, lease), config, [atApp], { withKey: true }),
            ...(secrets ? [toolContainer('secrets', secretsArgs(lease[1]!, secrets), config, [atSecrets], { withKey: true })] : []),
          ],
          containers: [
            {
              name: 'app',
              image: spec.run.image,
              imagePullPolicy: 'IfNotPresent',
              // Sourced after Kubernetes set spec.env, so a secret wins over an env entry of the same name.
              command: forwardingShell(secrets ? `set -a; . ${SECRETS_FILE}; set +a; ${spec.run.command}` : spec.run.command),
              workingDir: APP_DIR,
              env: env as V1EnvVar[],
              envFrom: spec.envFrom as never,
              ports: [{ name: PORT_NAME, containerPort: spec.port, protocol: 'TCP' }],
              readinessProbe: {
                httpGet: { path: spec.health.path, port: PORT_NAME },
                periodSeconds: spec.health.periodSeconds,
                failureThreshold: spec.health.failureThreshold,
                successThreshold: 1,
                timeoutSeconds: 2,
              },
              resources: spec.resources,
              volumeMounts: [atApp, { name: TMP_VOLUME.name, mountPath: '/tmp' }, ...(secrets ? [{ ...atSecrets, readOnly: true }] : [])],
              securityContext: containerSecurityContext,
              terminationMessagePolicy: 'FallbackToLogsOnError',
            },
          ],
          volumes: [appVolume, TOOL_HOME_VOLUME, TMP_VOLUME, ...(secrets ? [secretsVolume] : [])],
        },
      },
    },
  };
}

/**
 * `artifact fetch` of the release's artifact into APP_DIR. The operands come after `--`, which ends the options whatever
 * the operands look like: a blob id is URL-safe base64, so one in 64 begins with '-', and read as a group of short
 * options (one with an `h` in it prints the help and exits 0) it would leave APP_DIR empty.
 */
function fetchArgs(artifact: Pick<Artifact, 'blobId' | 'sha256'>, lease: string[]): string[] {
  return ['artifact', 'fetch', '--sha256', artifact.sha256, ...lease, '--', artifact.blobId, APP_DIR];
}

/** `secrets export` of the version the pod template names, into the in-memory volume (operands after `--`, as for fetch). */
function secretsArgs(lease: string, secrets: { blobId: string; version: number }): string[] {
  return ['secrets', 'export', '--to', SECRETS_FILE, '--at-version', String(secrets.version), `--blob=${secrets.blobId}`, '--', lease];
}

/**
 * The app's Service: port 80 to the pods' `http` port; ClusterIP, or LoadBalancer when the provider's offer exposes
 * apps that way too (an address from the cluster's load balancer, e.g. MetalLB).
 */
export function appService(app: WalrusApp, options: { loadBalancer?: boolean } = {}): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: appResourceName(app), namespace: app.metadata.namespace, labels: labelsOf(app, 'run'), ownerReferences: [ownerReference(app)] },
    spec: {
      type: options.loadBalancer ? 'LoadBalancer' : 'ClusterIP',
      selector: selectorLabels(app, 'run'),
      ports: [{ name: PORT_NAME, port: SERVICE_PORT, targetPort: PORT_NAME, protocol: 'TCP' }],
    },
  };
}
