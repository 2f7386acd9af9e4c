import type { V1Container, V1EnvVar, V1Job, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { buildEnvDigest } from '../api/build-config.ts';
import { BUILD_SECRETS_DIR, BUILD_SECRETS_FILE, BUILD_SECRETS_LIST, PLAN_DIR, resolveSpec } from '../api/types.ts';
import type { EnvVar, WalrusApp } from '../../ports/walrus-app.ts';
import { ANNOTATIONS, buildJobName, labelsOf, ownerReference } from './names.ts';
import { containerSecurityContext, leaseArgs, podSecurityContext, TMP_VOLUME, TOOL_HOME_VOLUME, toolContainer } from './pods.ts';
import type { ToolConfig } from './pods.ts';

/** Where the tree is checked out, built and packed from (an emptyDir shared by the three steps). */
export const WORKSPACE = '/workspace';
/** Where the pack step writes `{blobId, sha256, size}`; the kubelet reports it as the container's termination message. */
export const TERMINATION_MESSAGE_PATH = '/dev/termination-log';
/** The build pod's containers, in order: what the controller tells apart when a build fails (reconcile/build-failure.ts). */
export const CHECKOUT_STEP = 'checkout';
/** Reads the app's manifest at the commit, writes the build and test steps' scripts, reports it (manifest/manifest.ts). */
export const MANIFEST_STEP = 'manifest';
/** A leased app's: the lease's secrets the manifest names in walrus.buildSecrets, into memory only the build step mounts. */
export const BUILD_SECRETS_STEP = 'build-secrets';
export const BUILD_STEP = 'build';
/** The app's test command (or nothing), after the build and before the pack. */
export const TEST_STEP = 'test';
export const PACK_STEP = 'pack';
/** The build container's HOME (npm's cache and logs): its own emptyDir, never shared with the tools. */
const BUILD_HOME = '/build-home';

/**
 * The build Job of (app, commit, build config) (docs/architecture.md, The GitOps controller). Five steps in order:
 * `checkout` (init container, the project's tool: a clone with every pack verified against the chain, at the commit),
 * `manifest` (the tool: the app's manifest read and checked, the build and test scripts written to PLAN_DIR, the
 * manifest reported as its termination message), `build` (init container, the untrusted install and build, in
 * spec.build.image: the planned script unless the operator wrote spec.build.command), `test` (the app's test command,
 * same image), `pack` (the main container, the tool again: the tree as a deterministic tarball on Walrus,
 * `{blobId, sha256, size}` as its termination message).
 * Init containers run one at a time and each must succeed, so pack never sees a half-built or untested tree. The
 * provider's `buildEnv` (a registry mirror, a proxy's CA bundle) reaches the build and test steps.
 *
 * A leased app's Job has one more step after the manifest, `build-secrets` (the tool, with the key): `secrets export`
 * of the lease's current secrets that the plan lists (the manifest's walrus.buildSecrets; none: it does nothing) into
 * an emptyDir in memory that only it and the build step mount. The Job is made before the manifest is read, so the
 * step is there whether or not the manifest names any. The build script sources the file for the install alone and
 * removes it before anything else runs (manifest/manifest.ts buildScript); the test and pack steps never mount it, and
 * no value is in any spec. An operator's own spec.build.command gets the same file: it scopes the secrets to its
 * install by wrapping that in the plan's BUILD_SECRETS_WRAPPER, which removes the file after it (a command that never
 * does leaves it in the pod's memory until the pod ends; the steps after the build never mount it).
 *
 * The checkout step reads a private repository with the provider's key (as a reader, or as the provider of the app's
 * lease), and the pack step seals a private repository's artifact. The build step gets nothing it could abuse: no
 * service-account token (for the whole pod), no service links, no env or envFrom from the app spec (they may hold
 * secrets), no provider key (only checkout and pack have it, in their own containers), a non-root user
 * without capabilities on a read-only root, and cpu/memory/ephemeral-storage limits. The Job runs once
 * (`backoffLimit: 0`, `restartPolicy: Never`) within `activeDeadlineSeconds` = spec.build.timeout; the controller
 * decides itself whether a failure deserves another attempt (a new Job, `attempt` > 1: reconcile/build-failure.ts).
 *
 * An attester's Job (`attest`, gitops/attester/job-build.ts) is the same pod, isolated the same way, with three
 * differences: the app is the attester's own stand-in, never stored, so the Job has no owner (the attester deletes it
 * once read); no tool step gets the provider's key and no lease is named (it rebuilds public repositories as anyone
 * can); and the pack step stores nothing (`--no-store`): it reports the digests and the build key only.
 */
export function buildJob(app: WalrusApp, build: BuildJobFor, config: ToolConfig = {}, buildEnv: readonly EnvVar[] = []): V1Job {
  const spec = resolveSpec(app.spec);
  const labels = labelsOf(app, 'build');
  const attempt = build.attempt ?? 1;
  const annotations = {
    [ANNOTATIONS.commit]: build.commit, [ANNOTATIONS.buildConfig]: build.configHash, [ANNOTATIONS.repository]: spec.repository,
    ...(attempt > 1 ? { [ANNOTATIONS.buildAttempt]: String(attempt) } : {}),
  };
  const ephemeral = spec.build.resources.limits?.['ephemeral-storage'];
  const workspace: V1Volume = { name: 'workspace', emptyDir: ephemeral ? { sizeLimit: ephemeral } : {} };
  // The build's HOME and /tmp are its own: nothing it leaves there reaches the pack step.
  const buildHome: V1Volume = { name: 'build-home', emptyDir: {} };
  const buildTmp: V1Volume = { name: 'build-tmp', emptyDir: {} };
  const plan: V1Volume = { name: 'plan', emptyDir: {} };
  const atWorkspace: V1VolumeMount = { name: workspace.name, mountPath: WORKSPACE };
  const attest = build.attest === true;
  const lease = attest ? [] : leaseArgs(app);
  const withKey = { withKey: !attest };
  const withSecrets = lease.length > 0;
  const buildSecrets: V1Volume = { name: 'build-secrets', emptyDir: { medium: 'Memory', sizeLimit: '8Mi' } };
  const atBuildSecrets: V1VolumeMount = { name: buildSecrets.name, mountPath: BUILD_SECRETS_DIR };
  const own = ['HOME', 'CI', 'npm_config_update_notifier', 'npm_config_fund'];
  const appStep = (name: string, command: string, mounts: V1VolumeMount[] = []): V1Container => ({
    name,
    image: spec.build.image,
    imagePullPolicy: 'IfNotPresent',
    command: ['sh', '-c', command],
    workingDir: WORKSPACE,
    env: [
      { name: 'HOME', value: BUILD_HOME },
      { name: 'CI', value: 'true' },
      { name: 'npm_config_update_notifier', value: 'false' },
      { name: 'npm_config_fund', value: 'false' },
      ...buildEnv.filter((variable) => !own.includes(variable.name)) as V1EnvVar[],
    ],
    volumeMounts: [
      atWorkspace, { name: buildHome.name, mountPath: BUILD_HOME }, { name: buildTmp.name, mountPath: '/tmp' },
      { name: plan.name, mountPath: PLAN_DIR, readOnly: true }, ...mounts,
    ],
    resources: spec.build.resources,
    securityContext: containerSecurityContext,
    terminationMessagePolicy: 'FallbackToLogsOnError',
  });
  const manifest = toolContainer(MANIFEST_STEP, ['manifest', WORKSPACE, '--plan', PLAN_DIR, '--termination-message', TERMINATION_MESSAGE_PATH], config, [atWorkspace, { name: plan.name, mountPath: PLAN_DIR }]);
  manifest.terminationMessagePath = TERMINATION_MESSAGE_PATH;
  const buildKeyArgs = ['--build-image', spec.build.image, ...(buildEnv.length === 0 ? [] : ['--build-env-digest', buildEnvDigest(buildEnv)])];
  const store = attest ? ['--no-store'] : ['--repository', spec.repository];
  const pack = toolContainer(PACK_STEP, ['artifact', 'pack', WORKSPACE, ...store, ...buildKeyArgs, '--termination-message', TERMINATION_MESSAGE_PATH], config, [atWorkspace], withKey);
  pack.terminationMessagePath = TERMINATION_MESSAGE_PATH;
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: buildJobName(app, build.commit, build.configHash, attempt),
      namespace: app.metadata.namespace,
      labels,
      annotations,
      ...(attest ? {} : { ownerReferences: [ownerReference(app)] }),
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: spec.build.timeout,
      completions: 1,
      parallelism: 1,
      template: {
        metadata: { labels, annotations },
        spec: {
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          securityContext: podSecurityContext,
          initContainers: [
            toolContainer(CHECKOUT_STEP, ['checkout', spec.repository, WORKSPACE, '--commit', build.commit, ...lease], config, [atWorkspace], withKey),
            manifest,
            ...(withSecrets ? [toolContainer(BUILD_SECRETS_STEP, buildSecretsArgs(lease[1]!), config, [{ name: plan.name, mountPath: PLAN_DIR, readOnly: true }, atBuildSecrets], { withKey: true })] : []),
            // Writable: the script removes the file once the install has run.
            appStep(BUILD_STEP, spec.build.command, withSecrets ? [atBuildSecrets] : []),
            appStep(TEST_STEP, `sh ${PLAN_DIR}/test.sh`),
          ],
          containers: [pack],
          volumes: [workspace, plan, buildHome, buildTmp, TOOL_HOME_VOLUME, TMP_VOLUME, ...(withSecrets ? [buildSecrets] : [])],
        },
      },
    },
  };
}

export interface BuildJobFor {
  commit: string;
  configHash: string;
  attempt?: number;
  /** An attester's build: nothing stored, no key, no owner. */
  attest?: boolean;
}

/** `secrets export` of the lease's current secrets the plan lists (operands after `--`, as the run pods' fetch does). */
function buildSecretsArgs(lease: string): string[] {
  return ['secrets', 'export', '--names-from', `${PLAN_DIR}/${BUILD_SECRETS_LIST}`, '--to', BUILD_SECRETS_FILE, '--', lease];
}
