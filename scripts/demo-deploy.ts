// `npm run demo:deploy`: the whole GitOps flow as a provider sees it, on this machine. Brings up the test cluster
// (control plane, process kubelet, kube-proxy) and a `git walrus devnet` server on the node's host address, installs
// deploy/ (the in-cluster controller scaled to zero) and runs `git walrus controller` out of cluster; pushes
// examples/hello-npm with `git push walrus`, waits until the Service serves it, pushes v2 (rolling update), then a
// v3 that never becomes ready (automatic rollback), printing each step's time and `kubectl get walrusapps`, and ends
// by printing the app's URL (an Ingress under the offer's domain, served by the test cluster's ingress) and curling it.
// Everything it starts is stopped and removed at the end, also on Ctrl-C.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { CustomObjectsApi, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { startCluster } from '../test/cluster/node/node.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../src/ports/walrus-app.ts';
import { createWorld, REPO_ROOT } from './harness/world.ts';
import { helloRepository, httpGet, kubectl, startControllerProcess, startDevnetServer, TEST_BUILD_COMMAND } from './harness/gitops.ts';

const started = Date.now();
const say = (text: string) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s] ${text}`);

const cluster = await startCluster({ log: () => {} });
const world = createWorld('demo-deploy-');
const overlay = mkdtempSync(join(tmpdir(), 'demo-deploy-overlay-'));
const stops: (() => Promise<unknown> | void)[] = [];
let finished = false;
const cleanUp = async () => {
  for (const stop of stops.reverse()) await stop();
  world.remove();
  rmSync(overlay, { recursive: true, force: true });
  await cluster.stop();
};
process.once('SIGINT', () => void cleanUp().finally(() => process.exit(130)));

try {
  const kubeconfig = cluster.plane.kubeconfigPath;
  const k = (args: string[]) => kubectl(args, { kubeconfig, kubectlPath: cluster.kubectl });
  say(`cluster up: node ${cluster.nodeName}, kubectl get nodes:\n${await k(['get', 'nodes'])}`);
  writeFileSync(join(overlay, 'kustomization.yaml'), `bases:\n  - ${relative(overlay, join(REPO_ROOT, 'deploy'))}\npatchesStrategicMerge:\n  - local.yaml\n`);
  writeFileSync(join(overlay, 'local.yaml'), 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: walrus-gitops-controller\nspec:\n  replicas: 0\n');
  say(`kubectl apply -k deploy/ (through an overlay with no in-cluster replica: the controller runs out of cluster below)\n${await k(['apply', '-k', overlay])}`);
  const devnet = await startDevnetServer(world, cluster.network.hostIp);
  stops.push(() => devnet.stop());
  say(`git walrus devnet --host ${cluster.network.hostIp}: ${devnet.url}`);
  const url = await helloRepository(world, devnet.env);
  say(`git walrus init hello → ${url}`);
  // The offer exposes every app under apps.walrus.test through the cluster's ingress (its class).
  const offer = join(overlay, 'offer.json');
  writeFileSync(offer, JSON.stringify({ ingress: { domain: 'apps.walrus.test', className: cluster.ingress.className } }));
  const controller = startControllerProcess(world, devnet.env, 'demo-controller', ['--kubeconfig', kubeconfig, '--namespace', 'default', '--controller-namespace', 'walrus-gitops', '--poll-ms', '500', '--offer', offer]);
  stops.push(() => controller.kill());
  let shown = 0;
  const showController = () => {
    const text = controller.output();
    for (const line of text.slice(shown).split('\n').filter(Boolean)) say(`  controller | ${line}`);
    shown = text.length;
  };
  const timer = setInterval(showController, 500);
  stops.push(() => clearInterval(timer));

  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfig);
  const objects = kc.makeApiClient(CustomObjectsApi);
  const app = { group: GROUP, version: VERSION, namespace: 'default', plural: PLURAL };
  const manifest = readFileSync(join(REPO_ROOT, 'examples/hello-npm/walrusapp.yaml'), 'utf8');
  say(`examples/hello-npm/walrusapp.yaml, with the repository URL filled in:\n${manifest.replace(/repository: .*/, `repository: ${url}`)}`);
  const ip = async () => (await kc.makeApiClient(CoreV1Api).readNamespacedService({ name: 'hello-npm', namespace: 'default' })).spec!.clusterIP!;
  const waitUntil = async (what: string, check: (app: WalrusApp) => boolean) => {
    const since = Date.now();
    for (;;) {
      const current = (await objects.getNamespacedCustomObject({ ...app, name: 'hello-npm' })) as WalrusApp;
      if (check(current)) break;
      if (Date.now() - since > 600_000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    say(`${what} after ${((Date.now() - since) / 1000).toFixed(1)} s:\n${await k(['get', 'walrusapps', '-n', 'default'])}`);
  };
  const ready = (commit: string) => (current: WalrusApp) => current.status?.lastAppliedRevision === commit && current.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  const push = async (version: string, healthy = true) => {
    const pkg = JSON.parse(readFileSync(world.path('app', 'package.json'), 'utf8'));
    pkg.version = version;
    writeFileSync(world.path('app', 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
    if (!healthy) writeFileSync(world.path('app', 'server.js'), readFileSync(world.path('app', 'server.js'), 'utf8').replace("pathname === '/healthz'", "pathname === '/never-healthy'"));
    await world.ok('app', ['commit', '-qam', `v${version}`]);
    const pushStart = Date.now();
    await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: devnet.env });
    const commit = await world.ok('app', ['rev-parse', 'HEAD']);
    say(`git push walrus main: v${version} = ${commit.slice(0, 12)} (${((Date.now() - pushStart) / 1000).toFixed(1)} s)`);
    return commit;
  };

  const v1 = await push('1.0.0');
  const body = { apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name: 'hello-npm' }, spec: {
    repository: url, ref: 'main', replicas: 2, port: 8080, health: { path: '/healthz', periodSeconds: 2, failureThreshold: 3 },
    rollout: { maxSurge: 1, maxUnavailable: 0, progressDeadlineSeconds: 30 }, build: { command: TEST_BUILD_COMMAND },
  } };
  await objects.createNamespacedCustomObject({ ...app, body });
  say('kubectl apply -f walrusapp.yaml (progressDeadlineSeconds 30 for a short demo)');
  await waitUntil('v1 built and rolled out', ready(v1));
  say(`curl http://<Service hello-npm>/ → ${(await httpGet(await ip(), 80)).body.trim()}`);

  const v2 = await push('2.0.0');
  await waitUntil('v2 rolled out (rolling update, maxUnavailable 0)', ready(v2));
  say(`curl → ${(await httpGet(await ip(), 80)).body.trim()}`);

  const v3 = await push('3.0.0', false);
  await waitUntil('v3 never became ready: rolled back automatically', (current) => current.status?.failedRevision === v3 && current.status.conditions?.some((c) => c.type === 'Remediated' && c.status === 'True') === true);
  say(`curl → ${(await httpGet(await ip(), 80)).body.trim()} (v2 keeps serving)`);
  say(`kubectl get events (the app's):\n${await k(['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.kind=WalrusApp', '--sort-by=.lastTimestamp'])}`);
  showController();
  const exposed = (await objects.getNamespacedCustomObject({ ...app, name: 'hello-npm' })) as WalrusApp;
  const appUrl = exposed.status!.url!;
  say(`the app's URL: ${appUrl} (kubectl get walrusapps shows it; DNS for *.apps.walrus.test would point at the ingress, ${cluster.ingress.address})`);
  say(`curl -H 'Host: ${new URL(appUrl).host}' http://${cluster.ingress.address}/ → ${(await httpGet(cluster.ingress.address, 80, '/', 3000, { Host: new URL(appUrl).host })).body.trim()}`);
  finished = true;
} finally {
  await cleanUp();
  say(finished ? 'demo finished; everything it started is stopped and removed' : 'demo failed; everything it started is stopped and removed');
}
