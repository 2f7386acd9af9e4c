/**
 * deploy/ on the real plane: `kubectl apply -k` installs it (through an overlay that scales the in-cluster controller
 * to zero, so only the controller under test acts), then `git walrus controller` run with the ServiceAccount's own
 * token releases an app (the RBAC is sufficient), and the same run with one permission taken away fails with an
 * error that names it. Then the in-cluster controller itself: ready behind its probes, and, frozen, restarted by the
 * kubelet for a failing liveness probe.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { KubeConfig, V1PolicyRule } from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../src/ports/walrus-app.ts';
import { createWorld, REPO_ROOT, type World } from '../../scripts/harness/world.ts';
import { testCluster, waitFor } from './support/control-plane.ts';
import { kubectl } from './support/gitops.ts';
import { helloRepository, startControllerProcess, startDevnetServer, TEST_BUILD_COMMAND, type ControllerProcess } from '../../scripts/harness/gitops.ts';

const INSTALL_NAMESPACE = 'walrus-gitops';
const ACCOUNT = 'walrus-gitops-controller';

const cluster = testCluster('gitops-deploy');
const deploy = suite('deploy/ with kubectl apply -k, and its RBAC');
let world: World | undefined;
let devnet: Awaited<ReturnType<typeof startDevnetServer>> | undefined;
const controllers: ControllerProcess[] = [];
const overlay = mkdtempSync(join(tmpdir(), 'gitops-overlay-'));

deploy.after(async () => {
  for (const controller of controllers) await controller.kill('SIGKILL');
  await devnet?.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
  world?.remove();
  rmSync(overlay, { recursive: true, force: true });
  await cluster.stop();
});

/** A kubeconfig for the plane that authenticates with `account`'s own service-account token. */
async function accountKubeconfig(kc: KubeConfig, account: string, file: string): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const secretName = await waitFor(`a token for ${account}`, async () => (await core.readNamespacedServiceAccount({ name: account, namespace: INSTALL_NAMESPACE })).secrets?.[0]?.name);
  const secret = await core.readNamespacedSecret({ name: secretName, namespace: INSTALL_NAMESPACE });
  const token = Buffer.from(secret.data!.token!, 'base64').toString('utf8');
  const server = kc.getCurrentCluster()!;
  const path = join(overlay, file);
  writeFileSync(path, JSON.stringify({
    apiVersion: 'v1', kind: 'Config', 'current-context': 'sa',
    clusters: [{ name: 'plane', cluster: { server: server.server, 'certificate-authority-data': secret.data!['ca.crt'] } }],
    users: [{ name: account, user: { token } }],
    contexts: [{ name: 'sa', context: { cluster: 'plane', user: account } }],
  }));
  return path;
}

async function createApp(kc: KubeConfig, namespace: string, name: string, repository: string): Promise<void> {
  await kc.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, body: {
    apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name },
    spec: { repository, replicas: 1, health: { periodSeconds: 1 }, build: { command: TEST_BUILD_COMMAND } },
  } });
}

const readApp = async (kc: KubeConfig, namespace: string, name: string) =>
  (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name })) as WalrusApp;

deploy('kubectl apply -k installs everything; the controller with the ServiceAccount token releases an app', async () => {
  const { kc, namespace, cluster: node } = await cluster.get();
  // The overlay a provider would write to change a setting: here, no in-cluster replica.
  writeFileSync(join(overlay, 'kustomization.yaml'), [
    'apiVersion: kustomize.config.k8s.io/v1beta1', 'kind: Kustomization',
    'bases:', `  - ${relative(overlay, join(REPO_ROOT, 'deploy'))}`,
    'patchesStrategicMerge:', '  - no-replicas.yaml', '',
  ].join('\n'));
  writeFileSync(join(overlay, 'no-replicas.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: walrus-gitops-controller\nspec:\n  replicas: 0\n');
  const applied = await kubectl(['apply', '-k', overlay]);
  for (const made of ['namespace/walrus-gitops', 'customresourcedefinition.apiextensions.k8s.io/walrusapps.gitops.walrus-git.dev', 'serviceaccount/walrus-gitops-controller',
    'clusterrole.rbac.authorization.k8s.io/walrus-gitops-controller', 'clusterrolebinding.rbac.authorization.k8s.io/walrus-gitops-controller',
    'role.rbac.authorization.k8s.io/walrus-gitops-controller', 'rolebinding.rbac.authorization.k8s.io/walrus-gitops-controller',
    'configmap/walrus-network', 'deployment.apps/walrus-gitops-controller', 'poddisruptionbudget.policy/walrus-gitops-controller']) assert.match(applied, made);
  const installed = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ name: 'walrus-gitops-controller', namespace: INSTALL_NAMESPACE });
  assert.is(installed.spec?.replicas, 0);
  const container = installed.spec!.template.spec!.containers[0]!;
  assert.equal(container.command, ['git-walrus', 'controller', '--health-address', '0.0.0.0:8080']);
  assert.equal([container.livenessProbe?.httpGet?.path, container.readinessProbe?.httpGet?.path], ['/healthz', '/readyz']);
  assert.is(installed.spec!.template.spec!.topologySpreadConstraints?.[0]?.topologyKey, 'kubernetes.io/hostname');
  await waitFor('walrusapps served', () => kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL }).then(() => true));

  world = createWorld('walrus-gitops-deploy-');
  devnet = await startDevnetServer(world, node.network.hostIp);
  const url = await helloRepository(world, devnet.env);
  await world.ok('app', ['commit', '-qm', 'v1']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: devnet.env });
  const commit = await world.ok('app', ['rev-parse', 'HEAD']);
  await createApp(kc, namespace, 'rbac', url);

  const kubeconfig = await accountKubeconfig(kc, ACCOUNT, 'sa.kubeconfig');
  const controller = startControllerProcess(world, devnet.env, 'sa-controller', ['--kubeconfig', kubeconfig, '--namespace', namespace, '--controller-namespace', INSTALL_NAMESPACE, '--poll-ms', '500']);
  controllers.push(controller);
  await waitFor('the app released by the ServiceAccount\'s controller', async () => {
    const app = await readApp(kc, namespace, 'rbac');
    return app.status?.lastAppliedRevision === commit && app.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
  }, 400_000);
  assert.not.match(controller.output(), /may not/, 'no call was refused');
  const cursor = await kc.makeApiClient(CoreV1Api).readNamespacedConfigMap({ name: 'walrus-gitops-chain-cursor', namespace: INSTALL_NAMESPACE });
  assert.ok(cursor.data?.cursor, 'the chain cursor is kept in the controller\'s namespace');
  await controller.kill();
});

deploy('a missing permission fails with an error naming the verb, the resource and where to grant it', async () => {
  const { kc, namespace } = await cluster.get();
  const rbac = kc.makeApiClient(RbacAuthorizationV1Api);
  const full = await rbac.readClusterRole({ name: ACCOUNT });
  // The same rules, except that build Jobs cannot be created.
  const rules: V1PolicyRule[] = full.rules!.map((rule) => (rule.resources?.includes('jobs') ? { ...rule, verbs: rule.verbs.filter((verb) => verb !== 'create') } : rule));
  const limited = 'walrus-gitops-limited';
  await kc.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace: INSTALL_NAMESPACE, body: { metadata: { name: limited } } });
  await rbac.createClusterRole({ body: { metadata: { name: limited }, rules } });
  const subjects = [{ kind: 'ServiceAccount', name: limited, namespace: INSTALL_NAMESPACE }];
  await rbac.createClusterRoleBinding({ body: { metadata: { name: limited }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: limited }, subjects } });
  await rbac.createNamespacedRoleBinding({ namespace: INSTALL_NAMESPACE, body: { metadata: { name: limited }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: ACCOUNT }, subjects } });
  try {
    await world!.ok('app', ['commit', '-q', '--allow-empty', '-m', 'v2']);
    await world!.ok('app', ['push', '-q', 'walrus', 'main'], { env: devnet!.env });
    const kubeconfig = await accountKubeconfig(kc, limited, 'limited.kubeconfig');
    const controller = startControllerProcess(world!, devnet!.env, 'limited-controller', ['--kubeconfig', kubeconfig, '--namespace', namespace, '--controller-namespace', INSTALL_NAMESPACE, '--poll-ms', '500']);
    controllers.push(controller);
    const refusal = await waitFor('the refusal in the controller\'s output', async () => controller.output().match(/.*may not create jobs.*/)?.[0], 120_000);
    assert.match(refusal, `in namespace ${namespace}`);
    assert.match(refusal, 'deploy/rbac.yaml');
    // Not retried for ever in the log only: the app says it, and stays put until the permission is granted.
    const stalled = (await readApp(kc, namespace, 'rbac')).status?.conditions?.find((condition) => condition.type === 'Stalled');
    assert.is(stalled?.status, 'True');
    assert.is(stalled?.reason, 'AccessDenied');
    assert.match(stalled?.message ?? '', `may not create jobs in namespace ${namespace}`);
    await controller.kill();
  } finally {
    await rbac.deleteClusterRoleBinding({ name: limited }).catch(() => {});
    await rbac.deleteClusterRole({ name: limited }).catch(() => {});
  }
});

deploy('the in-cluster controller: its probes pass; frozen, it fails liveness and the kubelet restarts it', async () => {
  const { kc } = await cluster.get();
  const core = kc.makeApiClient(CoreV1Api);
  const patch = (kind: string, name: string, body: unknown) => kubectl(['-n', INSTALL_NAMESPACE, 'patch', kind, name, '--type', 'strategic', '--patch', JSON.stringify(body)]);
  // The pods reach the devnet server on the node's host address; probes tighter than deploy/'s, so the test is short.
  await patch('configmap', 'walrus-network', { data: devnet!.env });
  await patch('deployment', ACCOUNT, { spec: { replicas: 1, template: { spec: {
    terminationGracePeriodSeconds: 5,
    containers: [{ name: 'controller', livenessProbe: { periodSeconds: 2, timeoutSeconds: 1, failureThreshold: 2 } }],
  } } } });
  const selector = 'app.kubernetes.io/component=controller';
  const controllerPod = async () => (await core.listNamespacedPod({ namespace: INSTALL_NAMESPACE, labelSelector: selector })).items.find((pod) => !pod.metadata?.deletionTimestamp);
  try {
    const pod = await waitFor('the controller pod ready (/readyz: a standby, or the leader synced with the chain)', async () => {
      const found = await controllerPod();
      return found?.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True') ? found : undefined;
    }, 240_000);
    const name = pod.metadata!.name!;
    const before = pod.status!.containerStatuses![0]!.restartCount;
    // Freeze every process of the container: /healthz stops answering, as a hung process's would.
    const frozen = processesOfPod(name);
    assert.ok(frozen.length > 0, `the controller's processes (POD_NAME=${name}) found`);
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    const restarted = await waitFor('the kubelet restarting the frozen controller', async () => {
      const status = (await core.readNamespacedPod({ name, namespace: INSTALL_NAMESPACE })).status?.containerStatuses?.[0];
      return status && status.restartCount > before ? status : undefined;
    }, 120_000);
    assert.is(restarted.lastState?.terminated?.exitCode, 137, 'killed: a stopped process ignores SIGTERM until the grace period ends');
    const events = await core.listNamespacedEvent({ namespace: INSTALL_NAMESPACE, fieldSelector: `involvedObject.name=${name}` });
    assert.ok(events.items.some((event) => event.reason === 'Unhealthy' && /Liveness probe failed/.test(event.message ?? '')), events.items.map((event) => `${event.reason}: ${event.message}`).join('\n'));
    await waitFor('the restarted controller ready again', async () =>
      (await core.readNamespacedPod({ name, namespace: INSTALL_NAMESPACE })).status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True'), 240_000);
  } finally {
    await patch('deployment', ACCOUNT, { spec: { replicas: 0 } });
  }
});

/** The host PIDs of a pod's container processes (the process kubelet runs them on this machine), by their POD_NAME. */
function processesOfPod(podName: string): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((entry) => {
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      return environ.includes(`POD_NAME=${podName}`) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

deploy.run();
