import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { buildConfigHash } from '../../src/gitops/api/build-config.ts';
import { BUILD_SECRETS_FILE, PLAN_DIR, resolveSpec } from '../../src/gitops/api/types.ts';
import { API_VERSION, KIND } from '../../src/ports/walrus-app.ts';
import type { WalrusApp, WalrusAppSpec } from '../../src/ports/walrus-app.ts';
import { createTemplates } from '../../src/gitops/templates/create-templates.ts';
import { forwardingShell, RUN_AS } from '../../src/gitops/templates/pods.ts';
import { ANNOTATIONS, buildJobName, dnsLabel, LABELS, PROJECT_IMAGE, PROJECT_VERSION } from '../../src/gitops/templates/names.ts';
import { APP_DIR, appService, runDeployment } from '../../src/gitops/templates/run.ts';
import { appHost, appIngress, appUrl, CLUSTER_ISSUER_ANNOTATION } from '../../src/gitops/templates/ingress.ts';
import { buildJob, TERMINATION_MESSAGE_PATH, WORKSPACE } from '../../src/gitops/templates/build-job.ts';
import { appDisruptionBudget } from '../../src/gitops/templates/placement.ts';
import { parseOffer } from '../../src/gitops/api/offer.ts';
import { REPO_ROOT } from '../../scripts/harness/world.ts';
import { readingBlobs } from '../support/memory-cli.ts';

const COMMIT = 'a'.repeat(40);
const ARTIFACT = { blobId: 'Q'.repeat(43), sha256: 'b'.repeat(64), size: 1234 };
const NETWORK = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: 'http://10.245.0.1:4000' };
const KEY = { secretName: 'provider-key', key: 'key' };

function appOf(spec: Partial<WalrusAppSpec> = {}, name = 'hello'): WalrusApp {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name, namespace: 'shop', uid: '1b4e28ba-2fa1-11d2-883f-0016d3cca427', generation: 3 },
    spec: { repository: 'walrus://0x2a/hello', ...spec },
  };
}

const DNS_1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const containersOf = (pod: V1PodSpec): V1Container[] => [...(pod.initContainers ?? []), ...pod.containers];
const envOf = (container: V1Container) => Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

const job = suite('buildJob');

job('five steps in order: checkout (tool) → manifest (tool) → build, test (untrusted) → pack (tool, termination message)', () => {
  const app = appOf();
  const configHash = buildConfigHash(resolveSpec(app.spec));
  const built = buildJob(app, { commit: COMMIT, configHash }, { env: NETWORK, providerKey: KEY });
  const pod = built.spec!.template.spec!;
  assert.equal(pod.initContainers!.map((c) => c.name), ['checkout', 'manifest', 'build', 'test']);
  assert.equal(pod.containers.map((c) => c.name), ['pack']);
  const [checkout, manifest, build, tests] = pod.initContainers!;
  const pack = pod.containers[0];
  assert.equal(checkout.command, ['git-walrus', 'checkout', 'walrus://0x2a/hello', WORKSPACE, '--commit', COMMIT]);
  assert.is(checkout.image, PROJECT_IMAGE);
  // The manifest step plans the build and the tests; its report is its termination message.
  assert.equal(manifest.command, ['git-walrus', 'manifest', WORKSPACE, '--plan', PLAN_DIR, '--termination-message', TERMINATION_MESSAGE_PATH]);
  assert.is(manifest.terminationMessagePath, TERMINATION_MESSAGE_PATH);
  assert.is(envOf(manifest).GIT_WALRUS_KEY, undefined);
  assert.equal(build.command, ['sh', '-c', `sh ${PLAN_DIR}/build.sh`]);
  assert.equal(tests.command, ['sh', '-c', `sh ${PLAN_DIR}/test.sh`]);
  assert.is(tests.image, 'node:22');
  // The app's steps read the plan, never write it.
  for (const container of [build, tests]) assert.ok(container.volumeMounts!.some((m) => m.mountPath === PLAN_DIR && m.readOnly), container.name);
  assert.ok(manifest.volumeMounts!.some((m) => m.mountPath === PLAN_DIR && !m.readOnly));
  assert.is(build.image, 'node:22');
  assert.is(build.workingDir, WORKSPACE);
  assert.equal(pack.command, ['git-walrus', 'artifact', 'pack', WORKSPACE, '--repository', 'walrus://0x2a/hello', '--build-image', 'node:22', '--termination-message', TERMINATION_MESSAGE_PATH]);
  assert.is(pack.terminationMessagePath, TERMINATION_MESSAGE_PATH);
  assert.is(pack.image, PROJECT_IMAGE);
  // All three share the workspace.
  for (const container of [checkout, build, pack]) assert.ok(container.volumeMounts!.some((m) => m.mountPath === WORKSPACE && m.name === 'workspace'), container.name);
  // The network reaches the tools; the key only checkout (it reads a private repository) and pack, never the build.
  assert.is(envOf(checkout).GIT_WALRUS_DEVNET_URL, NETWORK.GIT_WALRUS_DEVNET_URL);
  assert.is(envOf(pack).GIT_WALRUS_NETWORK, 'devnet');
  assert.equal(envOf(pack).GIT_WALRUS_KEY, { secretKeyRef: { name: 'provider-key', key: 'key' } });
  assert.equal(envOf(checkout).GIT_WALRUS_KEY, { secretKeyRef: { name: 'provider-key', key: 'key' } });
  assert.is(envOf(build).GIT_WALRUS_KEY, undefined);
  assert.ok(JSON.stringify(build).indexOf('provider-key') < 0, 'the build step sees nothing of the key');
});

job('an attester\'s Job: the same isolated pod, no owner, no key, no lease, a pack step that stores nothing', () => {
  const app = appOf();
  app.metadata.annotations = { 'market.walrus-git.dev/lease': '0x' + 'c'.repeat(64) };
  delete app.metadata.uid;
  const built = buildJob(app, { commit: COMMIT, configHash: 'c'.repeat(10), attest: true }, { env: NETWORK, providerKey: KEY });
  assert.is(built.metadata!.ownerReferences, undefined);
  const pod = built.spec!.template.spec!;
  const served = buildJob(appOf(), { commit: COMMIT, configHash: 'c'.repeat(10) }, { env: NETWORK, providerKey: KEY }).spec!.template.spec!;
  assert.equal(containersOf(pod).map((c) => c.name), containersOf(served).map((c) => c.name));
  assert.is(pod.automountServiceAccountToken, false);
  assert.equal(pod.securityContext, served.securityContext);
  assert.equal(containersOf(pod).map((c) => [c.resources, c.securityContext]), containersOf(served).map((c) => [c.resources, c.securityContext]));
  for (const container of containersOf(pod)) assert.is(envOf(container).GIT_WALRUS_KEY, undefined, container.name);
  assert.equal(pod.initContainers![0]!.command, ['git-walrus', 'checkout', 'walrus://0x2a/hello', WORKSPACE, '--commit', COMMIT]);
  assert.equal(pod.containers[0]!.command, ['git-walrus', 'artifact', 'pack', WORKSPACE, '--no-store', '--build-image', 'node:22', '--termination-message', TERMINATION_MESSAGE_PATH]);
});

job('a lease\'s app: checkout and the run pods\' fetch ask the key servers as the lease\'s provider', () => {
  const app = appOf();
  app.metadata.annotations = { 'market.walrus-git.dev/lease': '0x' + 'c'.repeat(64) };
  const pod = buildJob(app, { commit: COMMIT, configHash: 'c'.repeat(10) }, { env: NETWORK, providerKey: KEY }).spec!.template.spec!;
  assert.equal(pod.initContainers![0]!.command, ['git-walrus', 'checkout', 'walrus://0x2a/hello', WORKSPACE, '--commit', COMMIT, '--lease', '0x' + 'c'.repeat(64)]);
  const run = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }, { env: NETWORK, providerKey: KEY }).spec!.template.spec!;
  assert.equal(run.initContainers![0]!.command, ['git-walrus', 'artifact', 'fetch', '--sha256', ARTIFACT.sha256, '--lease', '0x' + 'c'.repeat(64), '--', ARTIFACT.blobId, APP_DIR]);
  assert.equal(envOf(run.initContainers![0]!).GIT_WALRUS_KEY, { secretKeyRef: { name: 'provider-key', key: 'key' } });
  assert.is(envOf(run.containers[0]!).GIT_WALRUS_KEY, undefined, 'the app never gets the key');
  assert.ok(JSON.stringify(run.containers).indexOf('provider-key') < 0);
});

job("a lease's app: build-secrets (tool, key) exports the planned names into memory only it and the build step mount", () => {
  const lease = '0x' + 'c'.repeat(64);
  const app = appOf();
  app.metadata.annotations = { 'market.walrus-git.dev/lease': lease };
  const pod = buildJob(app, { commit: COMMIT, configHash: 'c'.repeat(10) }, { env: NETWORK, providerKey: KEY }).spec!.template.spec!;
  assert.equal(pod.initContainers!.map((c) => c.name), ['checkout', 'manifest', 'build-secrets', 'build', 'test']);
  const step = pod.initContainers!.find((c) => c.name === 'build-secrets')!;
  assert.equal(step.command, ['git-walrus', 'secrets', 'export', '--names-from', `${PLAN_DIR}/build-secrets`, '--to', BUILD_SECRETS_FILE, '--', lease]);
  assert.is(step.image, PROJECT_IMAGE);
  assert.equal(envOf(step).GIT_WALRUS_KEY, { secretKeyRef: { name: 'provider-key', key: 'key' } });
  // The volume is memory (tmpfs: never the node's disk nor the API), bounded.
  const volume = pod.volumes!.find((v) => v.name === 'build-secrets')!;
  assert.equal(volume.emptyDir, { medium: 'Memory', sizeLimit: '8Mi' });
  const mounting = containersOf(pod).filter((c) => (c.volumeMounts ?? []).some((m) => m.name === 'build-secrets')).map((c) => c.name);
  assert.equal(mounting, ['build-secrets', 'build'], 'the test and pack steps (and checkout, manifest) never mount it');
  assert.ok(step.volumeMounts!.some((m) => m.mountPath === PLAN_DIR && m.readOnly), 'it reads the plan, never writes it');
  // No step's spec names a secret value or reads one through env: only the provider key, in the tool steps.
  for (const container of containersOf(pod)) {
    assert.ok((container.env ?? []).every((e) => e.valueFrom === undefined || e.name === 'GIT_WALRUS_KEY'), container.name);
    assert.is(container.envFrom, undefined, container.name);
  }
  const build = pod.initContainers!.find((c) => c.name === 'build')!;
  assert.is(envOf(build).GIT_WALRUS_KEY, undefined, 'the build never gets the key');
  // An operator's own build command gets the same step and file (it wraps its install in the plan's wrapper).
  const own = appOf({ build: { command: `sh ${PLAN_DIR}/with-build-secrets.sh npm ci && npm run build` } });
  own.metadata.annotations = { 'market.walrus-git.dev/lease': lease };
  const ownPod = buildJob(own, { commit: COMMIT, configHash: 'c'.repeat(10) }, { env: NETWORK, providerKey: KEY }).spec!.template.spec!;
  assert.equal(ownPod.initContainers!.map((c) => c.name), ['checkout', 'manifest', 'build-secrets', 'build', 'test']);
  assert.equal(containersOf(ownPod).filter((c) => (c.volumeMounts ?? []).some((m) => m.name === 'build-secrets')).map((c) => c.name), ['build-secrets', 'build']);
  // An app under no lease has no lease secrets: no step, no volume (a manifest naming some fails in the build script).
  const plain = buildJob(appOf(), { commit: COMMIT, configHash: 'c'.repeat(10) }, { env: NETWORK, providerKey: KEY }).spec!.template.spec!;
  assert.not.ok(plain.volumes!.some((v) => v.name === 'build-secrets'));
  assert.not.ok(containersOf(plain).some((c) => c.name === 'build-secrets'));
});

job('the build step is isolated: non-root, no token, no service links, no secrets, limits, deadline, one try', () => {
  const secretEnv = [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }, { name: 'PLAIN', value: 'x' }];
  const app = appOf({ env: secretEnv, envFrom: [{ secretRef: { name: 'all-secrets' } }], build: { timeout: 321 } });
  const built = buildJob(app, { commit: COMMIT, configHash: 'c'.repeat(10) }, { env: NETWORK, providerKey: KEY });
  assert.is(built.spec!.backoffLimit, 0);
  assert.is(built.spec!.activeDeadlineSeconds, 321);
  const pod = built.spec!.template.spec!;
  assert.is(pod.restartPolicy, 'Never');
  assert.is(pod.automountServiceAccountToken, false);
  assert.is(pod.enableServiceLinks, false);
  assert.is(pod.securityContext!.runAsNonRoot, true);
  assert.is(pod.securityContext!.runAsUser, RUN_AS);
  assert.is(pod.securityContext!.seccompProfile!.type, 'RuntimeDefault');
  const build = pod.initContainers!.find((c) => c.name === 'build')!;
  assert.is(build.securityContext!.runAsNonRoot, true);
  assert.ok(build.securityContext!.runAsUser! > 0);
  assert.is(build.securityContext!.allowPrivilegeEscalation, false);
  assert.equal(build.securityContext!.capabilities!.drop, ['ALL']);
  assert.is(build.securityContext!.readOnlyRootFilesystem, true);
  assert.equal(Object.keys(build.resources!.limits!).sort(), ['cpu', 'ephemeral-storage', 'memory']);
  // No secret in any form: no envFrom, no valueFrom, none of the app's env, no key, no secret volume.
  assert.is(build.envFrom, undefined);
  assert.ok((build.env ?? []).every((e) => e.valueFrom === undefined && !e.name.startsWith('GIT_WALRUS')), JSON.stringify(build.env));
  assert.not.ok(JSON.stringify(build).includes('DB_PASSWORD') || JSON.stringify(build).includes('PLAIN'));
  assert.ok(pod.volumes!.every((v) => v.secret === undefined && v.projected === undefined));
  // Its HOME and /tmp are not the tools'.
  const toolMounts = new Set(['checkout', 'pack'].flatMap((name) => containersOf(pod).find((c) => c.name === name)!.volumeMounts!.map((m) => m.name)));
  assert.equal(build.volumeMounts!.map((m) => m.name).filter((name) => toolMounts.has(name)), ['workspace']);
  // Every container runs unprivileged.
  for (const container of containersOf(pod)) assert.is(container.securityContext!.allowPrivilegeEscalation, false, container.name);
  // The workspace is bounded like the build's ephemeral storage.
  assert.is(pod.volumes!.find((v) => v.name === 'workspace')!.emptyDir!.sizeLimit, '2Gi');
});

job('owner reference, labels, annotations; the name is stable, DNS-valid and fits a label for any app name', () => {
  const app = appOf();
  const built = buildJob(app, { commit: COMMIT, configHash: '0123456789' });
  assert.equal(built.metadata!.ownerReferences, [{ apiVersion: API_VERSION, kind: KIND, name: 'hello', uid: app.metadata.uid!, controller: true, blockOwnerDeletion: true }]);
  assert.is(built.metadata!.annotations![ANNOTATIONS.commit], COMMIT);
  assert.is(built.metadata!.annotations![ANNOTATIONS.buildConfig], '0123456789');
  assert.is(built.metadata!.labels![LABELS.component], 'build');
  assert.equal(built.spec!.template.metadata!.labels, built.metadata!.labels);
  assert.is(built.metadata!.name, buildJobName(app, COMMIT, '0123456789'));
  assert.is(built.metadata!.name, `hello-b-${COMMIT.slice(0, 12)}-0123456789`);
  const sha256Commit = 'e'.repeat(64);
  for (const name of ['hello', 'a'.repeat(253), 'my.app.with.dots', '9lives', `${'x'.repeat(60)}.v2`, `${'x'.repeat(60)}.v3`]) {
    const jobName = buildJobName(appOf({}, name), sha256Commit, 'f'.repeat(10));
    assert.ok(jobName.length <= 63, jobName);
    assert.match(jobName, DNS_1035);
    assert.is(buildJobName(appOf({}, name), sha256Commit, 'f'.repeat(10)), jobName, 'stable');
    const retry = buildJobName(appOf({}, name), sha256Commit, 'f'.repeat(10), 3);
    assert.is(retry, `${jobName}-3`, 'a retry is a Job of its own');
    assert.ok(retry.length <= 63, retry);
  }
  const retried = buildJob(app, { commit: COMMIT, configHash: '0123456789', attempt: 2 });
  assert.is(retried.metadata!.name, `hello-b-${COMMIT.slice(0, 12)}-0123456789-2`);
  assert.is(retried.metadata!.annotations![ANNOTATIONS.buildAttempt], '2');
  assert.is(built.metadata!.annotations![ANNOTATIONS.buildAttempt], undefined, 'the first attempt is not annotated');
  assert.is.not(buildJobName(appOf({}, `${'x'.repeat(60)}.v2`), COMMIT, 'f'.repeat(10)), buildJobName(appOf({}, `${'x'.repeat(60)}.v3`), COMMIT, 'f'.repeat(10)));
});

job('a changed build config changes the config hash, hence the Job; a changed run config does not', () => {
  const base = appOf();
  const hashOf = (app: WalrusApp) => buildConfigHash(resolveSpec(app.spec));
  const name = (app: WalrusApp) => buildJobName(app, COMMIT, hashOf(app));
  assert.is.not(name(appOf({ build: { command: 'npm ci' } })), name(base));
  assert.is.not(name(appOf({ build: { image: 'node:22-slim' } })), name(base));
  assert.is.not(name(appOf({ build: { timeout: 60 } })), name(base));
  assert.is.not(name(appOf({ build: { resources: { limits: { cpu: '2' } } } })), name(base));
  assert.is(name(appOf({ run: { command: 'node server.js' }, replicas: 3 })), name(base));
});

const run = suite('runDeployment / appService');

run('fetch (tool, sha256-checked) → app with PORT, env, probe, resources; commit and artifact on the pod template', () => {
  const app = appOf({
    port: 3000,
    replicas: 2,
    env: [{ name: 'GREETING', value: 'hi' }, { name: 'PORT', value: '9999' }],
    envFrom: [{ configMapRef: { name: 'settings' } }],
    resources: { limits: { memory: '256Mi' } },
    health: { path: '/ready', periodSeconds: 2, failureThreshold: 4 },
    rollout: { maxSurge: 2, maxUnavailable: 0, progressDeadlineSeconds: 90 },
  });
  const deployment = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }, { env: NETWORK, providerKey: KEY });
  const spec = deployment.spec!;
  assert.is(spec.replicas, 2);
  assert.is(spec.progressDeadlineSeconds, 90);
  assert.equal(spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: 2, maxUnavailable: 0 } });
  const pod = spec.template.spec!;
  const [fetch] = pod.initContainers!;
  assert.equal(fetch.command, ['git-walrus', 'artifact', 'fetch', '--sha256', ARTIFACT.sha256, '--', ARTIFACT.blobId, APP_DIR]);
  assert.is(fetch.image, PROJECT_IMAGE);
  assert.is(envOf(fetch).GIT_WALRUS_DEVNET_URL, NETWORK.GIT_WALRUS_DEVNET_URL);
  assert.equal(envOf(fetch).GIT_WALRUS_KEY, { secretKeyRef: { name: 'provider-key', key: 'key' } }, 'fetch decrypts a private artifact');
  assert.is(envOf(pod.containers[0]!).GIT_WALRUS_KEY, undefined, 'the app never gets the provider key');
  const container = pod.containers[0];
  assert.equal(container.command, forwardingShell('npm start'));
  assert.is(container.workingDir, APP_DIR);
  assert.is(envOf(container).PORT, '3000', 'PORT is the spec port, whatever env says');
  assert.is(container.env!.filter((e) => e.name === 'PORT').length, 1);
  assert.is(envOf(container).GREETING, 'hi');
  assert.equal(container.envFrom, [{ configMapRef: { name: 'settings' } }]);
  assert.equal(container.ports, [{ name: 'http', containerPort: 3000, protocol: 'TCP' }]);
  assert.equal(container.readinessProbe!.httpGet, { path: '/ready', port: 'http' });
  assert.is(container.readinessProbe!.periodSeconds, 2);
  assert.is(container.readinessProbe!.failureThreshold, 4);
  assert.equal(container.resources, { limits: { memory: '256Mi' } });
  assert.ok(container.volumeMounts!.some((m) => m.mountPath === APP_DIR) && fetch.volumeMounts!.some((m) => m.mountPath === APP_DIR));
  assert.is(pod.automountServiceAccountToken, false);
  assert.is(pod.securityContext!.runAsNonRoot, true);
  for (const target of [deployment.metadata!, spec.template.metadata!]) {
    assert.is(target.annotations![ANNOTATIONS.commit], COMMIT);
    assert.is(target.annotations![ANNOTATIONS.artifactBlobId], ARTIFACT.blobId);
    assert.is(target.annotations![ANNOTATIONS.artifactSha256], ARTIFACT.sha256);
  }
  assert.is(deployment.metadata!.ownerReferences![0].controller, true);
  assert.is(deployment.metadata!.ownerReferences![0].uid, app.metadata.uid);
  // The selector matches the pods and stays the same across releases; the template changes with the release.
  const next = runDeployment(app, { commit: 'c'.repeat(40), artifact: { ...ARTIFACT, sha256: 'd'.repeat(64) } });
  assert.equal(next.spec!.selector, spec.selector);
  for (const [key, value] of Object.entries(spec.selector.matchLabels!)) assert.is(spec.template.metadata!.labels![key], value);
  assert.is.not(JSON.stringify(next.spec!.template), JSON.stringify(runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }).spec!.template));
  assert.equal(runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }, { env: NETWORK }), runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }, { env: NETWORK }), 'pure');
});

run('the fetch step names the release\'s artifact as git walrus parses it, a blob id that begins with - too', async () => {
  // One blob id in 64 begins with '-'; this one has an `h` too: read as options, it printed the help and exited 0.
  for (const blobId of [ARTIFACT.blobId, '-mssw5xSiu4NhBLlB6Z3Fp4tFZq7S7mrc1Nio653kzA']) {
    const app = appOf();
    app.metadata.annotations = { 'market.walrus-git.dev/lease': '0x' + 'c'.repeat(64) };
    const [fetch] = runDeployment(app, { commit: COMMIT, artifact: { ...ARTIFACT, blobId } }).spec!.template.spec!.initContainers!;
    assert.is(fetch!.command![0], 'git-walrus');
    const parsed = await readingBlobs(fetch!.command!.slice(1));
    assert.equal(parsed.read, [blobId], `${blobId}: ${parsed.stderr}`);
  }
});

run("a lease's secrets: the pods name the version and blob, a secrets step (the provider's key) writes them to memory only the pod sees, the app's shell sources them over its env", () => {
  const app = appOf({ env: [{ name: 'API_TOKEN', value: 'from-env' }], run: { command: 'node server.js' } } as never);
  app.metadata.annotations = { 'market.walrus-git.dev/lease': '0x' + 'c'.repeat(64) };
  const secrets = { blobId: '-' + 'Z'.repeat(42), version: 3 };
  const deployment = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT, secrets }, { env: NETWORK, providerKey: KEY });
  const pod = deployment.spec!.template.spec!;
  assert.is(deployment.spec!.template.metadata!.annotations![ANNOTATIONS.secretsVersion], '3');
  assert.is(deployment.spec!.template.metadata!.annotations![ANNOTATIONS.secretsBlobId], secrets.blobId);
  const step = pod.initContainers![1]!;
  assert.equal(step.command, ['git-walrus', 'secrets', 'export', '--to', '/run/walrus-secrets/env', '--at-version', '3', `--blob=${secrets.blobId}`, '--', '0x' + 'c'.repeat(64)]);
  assert.equal(envOf(step).GIT_WALRUS_KEY, { secretKeyRef: { name: 'provider-key', key: 'key' } });
  assert.equal(pod.volumes!.find((v) => v.name === 'walrus-secrets')!.emptyDir, { medium: 'Memory', sizeLimit: '8Mi' });
  const appContainer = pod.containers[0]!;
  assert.equal(appContainer.volumeMounts!.find((m) => m.name === 'walrus-secrets'), { name: 'walrus-secrets', mountPath: '/run/walrus-secrets', readOnly: true });
  assert.equal(appContainer.command, forwardingShell('set -a; . /run/walrus-secrets/env; set +a; node server.js'));
  // Another version changes the pod template (a rollout); no secrets, or no lease: nothing of it.
  const next = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT, secrets: { ...secrets, version: 4 } }, { env: NETWORK, providerKey: KEY });
  assert.is.not(JSON.stringify(next.spec!.template), JSON.stringify(deployment.spec!.template));
  const plain = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }, { env: NETWORK, providerKey: KEY });
  assert.is(plain.spec!.template.spec!.initContainers!.length, 1);
  assert.not.ok(JSON.stringify(plain).includes('walrus-secrets'));
  const unleased = runDeployment(appOf(), { commit: COMMIT, artifact: ARTIFACT, secrets }, { env: NETWORK, providerKey: KEY });
  assert.not.ok(JSON.stringify(unleased).includes('walrus-secrets'));
});

run('the Service selects the run pods (not build pods) on port 80 → http; names are DNS-1035 for long or dotted app names', () => {
  const app = appOf();
  const service = appService(app);
  const deployment = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT });
  assert.equal(service.spec!.selector, deployment.spec!.selector!.matchLabels);
  assert.is(service.spec!.selector![LABELS.component], 'run');
  assert.equal(service.spec!.ports, [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }]);
  assert.is(service.metadata!.name, 'hello');
  assert.is(service.metadata!.ownerReferences![0].kind, KIND);
  for (const name of ['a'.repeat(253), 'my.app', '9lives', 'UPPER']) {
    const named = appService(appOf({}, name));
    assert.ok(named.metadata!.name!.length <= 63, named.metadata!.name);
    assert.match(named.metadata!.name!, DNS_1035);
    assert.is(runDeployment(appOf({}, name), { commit: COMMIT, artifact: ARTIFACT }).metadata!.name, named.metadata!.name);
    for (const value of Object.values(named.spec!.selector!)) assert.ok(value.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value), value);
  }
  assert.is(dnsLabel('hello'), 'hello', 'valid names are kept');
});

run('createTemplates binds the network config; the image constant follows package.json', () => {
  const templates = createTemplates({ env: NETWORK });
  const app = appOf();
  assert.equal(templates.buildJob(app, { commit: COMMIT, configHash: '0123456789' }), buildJob(app, { commit: COMMIT, configHash: '0123456789' }, { env: NETWORK }));
  assert.is(templates.buildJobName(app, COMMIT, '0123456789'), buildJobName(app, COMMIT, '0123456789'));
  assert.is(PROJECT_VERSION, JSON.parse(readFileSync(`${REPO_ROOT}/package.json`, 'utf8')).version);
  assert.is(PROJECT_IMAGE, `git-remote-walrus:${PROJECT_VERSION}`);
});

run('the run shell passes SIGTERM on to the command and exits with its status (real sh)', async () => {
  const node = process.execPath;
  const app = (exit: number) => `${node} -e 'process.on("SIGTERM", () => { console.log("got TERM"); setTimeout(() => process.exit(${exit}), 200) }); setInterval(() => {}, 1000); console.log("up")'`;
  const runShell = (command: string, terminate: boolean) => new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const [shell, ...args] = forwardingShell(command);
    const child = spawn(shell, args, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    let sent = false;
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      out += text;
      if (terminate && !sent && out.includes('up')) { sent = true; child.kill('SIGTERM'); }
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out }));
  });
  assert.equal(await runShell(app(3), true), { code: 3, out: 'up\ngot TERM\n' }, 'a simple command');
  assert.equal(await runShell(`cd / && PORT=1 ${app(4)}`, true), { code: 4, out: 'up\ngot TERM\n' }, 'a compound command');
  assert.equal((await runShell('exit 7', false)).code, 7);
  assert.equal((await runShell('true', false)).code, 0);
  assert.equal((await runShell('no-such-command-anywhere', false)).code, 127);
});

job("the provider's build env reaches the build and test steps, never overriding the steps' own", () => {
  const buildEnv = [{ name: 'npm_config_registry', value: 'http://mirror:4873' }, { name: 'HOME', value: '/nope' }];
  const pod = createTemplates({ env: NETWORK }, { buildEnv }).buildJob(appOf(), { commit: COMMIT, configHash: 'c'.repeat(10) }).spec!.template.spec!;
  for (const name of ['build', 'test']) {
    const env = envOf(pod.initContainers!.find((c) => c.name === name)!);
    assert.is(env.npm_config_registry, 'http://mirror:4873', name);
    assert.is(env.HOME, '/build-home', name);
  }
  assert.is(envOf(pod.initContainers!.find((c) => c.name === 'checkout')!).npm_config_registry, undefined);
});

const placement = suite('placement: spread over nodes, disruption budget, node-loss tolerations');

placement('two replicas or more: a preferred spread on the hostname over the run pods, and a budget of one unavailable', () => {
  const app = appOf({ replicas: 3 });
  const deployment = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }, {}, 45);
  const pod = deployment.spec!.template.spec!;
  assert.equal(pod.topologySpreadConstraints, [{
    maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: deployment.spec!.selector.matchLabels },
  }], 'counts exactly the pods the Deployment selects (every release of the app)');
  assert.equal(pod.tolerations, [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 45 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 45 },
  ]);
  const budget = appDisruptionBudget(app, 3)!;
  assert.is(budget.apiVersion, 'policy/v1beta1', 'what Kubernetes 1.20 serves');
  assert.is(budget.metadata!.name, deployment.metadata!.name);
  assert.is(budget.metadata!.namespace, app.metadata.namespace);
  assert.equal(budget.spec, { maxUnavailable: 1, selector: { matchLabels: deployment.spec!.selector.matchLabels } });
  assert.is(budget.metadata!.ownerReferences![0]!.uid, app.metadata.uid, 'goes with the app');
});

placement('one replica: no spread and no budget (it would block every drain); tolerations still shortened', () => {
  const app = appOf({ replicas: 1 });
  const pod = runDeployment(app, { commit: COMMIT, artifact: ARTIFACT }).spec!.template.spec!;
  assert.is(pod.topologySpreadConstraints, undefined);
  assert.equal(pod.tolerations!.map((t) => t.tolerationSeconds), [300, 300], 'the functions alone: Kubernetes\' default');
  assert.is(appDisruptionBudget(app, 1), null);
});

placement('createTemplates takes the offer\'s tolerations and the app\'s replicas for its budget', () => {
  const templates = createTemplates({}, { nodeLossTolerationSeconds: 20 });
  const pod = templates.runDeployment(appOf({ replicas: 2 }), { commit: COMMIT, artifact: ARTIFACT }).spec!.template.spec!;
  assert.equal(pod.tolerations!.map((t) => t.tolerationSeconds), [20, 20]);
  assert.ok(templates.appDisruptionBudget(appOf({ replicas: 2 })));
  assert.is(templates.appDisruptionBudget(appOf({ replicas: 1 })), null);
  assert.is(parseOffer({}).nodeLossTolerationSeconds, 30, 'the offer\'s default');
  assert.is(parseOffer({ nodeLossTolerationSeconds: 10 }).nodeLossTolerationSeconds, 10);
  assert.throws(() => parseOffer({ nodeLossTolerationSeconds: 0 }), /nodeLossTolerationSeconds: expected a whole number of at least 1/);
});

placement.run();

const ingress = suite('appIngress');
const INGRESS = { domain: 'apps.example.com', scheme: 'http' as const, from: [], loadBalancer: false };

ingress('one host per app under the domain: stable, distinct across namespaces, a DNS label; every path to the Service', () => {
  const app = appOf();
  const host = appHost(app, INGRESS.domain);
  assert.match(host, /^hello-[0-9a-f]{12}\.apps\.example\.com$/);
  assert.is(appHost(appOf({ ref: 'v2' }), INGRESS.domain), host, 'the same app, the same host');
  const other = { ...app, metadata: { ...app.metadata, namespace: 'other' } };
  assert.is.not(appHost(other, INGRESS.domain), host);
  const long = appOf({}, 'A.Very_Long.Name'.repeat(8));
  assert.match(appHost(long, INGRESS.domain).split('.')[0]!, DNS_1035);
  assert.ok(appHost(long, INGRESS.domain).split('.')[0]!.length <= 63);
  const object = appIngress(app, INGRESS);
  assert.is(object.apiVersion, 'networking.k8s.io/v1');
  assert.is(object.metadata!.ownerReferences![0]!.kind, KIND);
  assert.equal(object.spec!.rules, [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'hello', port: { number: 80 } } } }] } }]);
  assert.is(object.spec!.tls, undefined);
  assert.is(object.spec!.ingressClassName, undefined);
  assert.is(appUrl(app, INGRESS), `http://${host}/`);
});

ingress('class, a wildcard TLS secret, or a cert-manager issuer (a secret of the app then)', () => {
  const app = appOf();
  const host = appHost(app, INGRESS.domain);
  const tls = appIngress(app, { ...INGRESS, className: 'nginx', tlsSecretName: 'wildcard', scheme: 'https' });
  assert.is(tls.spec!.ingressClassName, 'nginx');
  assert.equal(tls.spec!.tls, [{ hosts: [host], secretName: 'wildcard' }]);
  const issued = appIngress(app, { ...INGRESS, clusterIssuer: 'letsencrypt', scheme: 'https' });
  assert.is(issued.metadata!.annotations![CLUSTER_ISSUER_ANNOTATION], 'letsencrypt');
  assert.equal(issued.spec!.tls, [{ hosts: [host], secretName: 'hello-tls' }]);
  assert.is(appUrl(app, { ...INGRESS, scheme: 'https' }), `https://${host}/`);
  // No ingress in the offer: no Ingress, no URL.
  assert.is(createTemplates({}).appIngress(app), null);
  assert.is(createTemplates({}, { ingress: INGRESS }).appIngress(app)!.url, `http://${host}/`);
  // A LoadBalancer Service too, when the offer asks for it.
  assert.is(createTemplates({}, { ingress: INGRESS }).appService(app).spec!.type, 'ClusterIP');
  assert.is(createTemplates({}, { ingress: { ...INGRESS, loadBalancer: true } }).appService(app).spec!.type, 'LoadBalancer');
  // The app's allowance admits the ingress controller; with a LoadBalancer also clients outside the cluster's ranges.
  const controller = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } };
  const peers = (loadBalancer: boolean) => createTemplates({}, { ingress: { ...INGRESS, from: [controller], loadBalancer }, egress: { except: ['10.0.0.0/8'] } })
    .appNetworkPolicy!(app).spec!.ingress![0]!._from;
  assert.equal(peers(false), [controller]);
  assert.equal(peers(true), [controller, { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }]);
});

job.run();
run.run();
ingress.run();
