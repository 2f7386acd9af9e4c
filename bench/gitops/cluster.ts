// The GitOps figures that need the test cluster (process kubelet): examples/hello-npm pushed to a `git walrus devnet`
// server on the node's host address, the controller in this process (its own clock, so the figures are not blurred
// by the API's one-second timestamps), and an informer on Jobs and Pods recording when each was seen.
import { copyFileSync } from 'node:fs';
import { CoreV1Api, CustomObjectsApi, KubeConfig, BatchV1Api, makeInformer } from '@kubernetes/client-node';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { startCluster } from '../../test/cluster/node/node.ts';
import { DEFAULTS } from '../../src/gitops/api/types.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../src/ports/walrus-app.ts';
import { Controller } from '../../src/gitops/controller.ts';
import { createTemplates } from '../../src/gitops/templates/create-templates.ts';
import { KubernetesCluster } from '../../src/k8s/cluster.ts';
import { openNetwork } from '../../src/main/context.ts';
import { silentLog } from '../../src/core/log.ts';
import { createWorld, initWorkRepo, REPO_ROOT } from '../../scripts/harness/world.ts';
import { kubectl, startDevnetServer } from '../../scripts/harness/gitops.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export async function clusterFigures(): Promise<void> {
  const cluster = await startCluster({ log: () => {} });
  const world = createWorld('bench-gitops-');
  const kc = new KubeConfig();
  kc.loadFromFile(cluster.plane.kubeconfigPath);
  let controller: Controller | undefined;
  let devnet: Awaited<ReturnType<typeof startDevnetServer>> | undefined;
  const stops: (() => Promise<void>)[] = [];
  try {
    const namespace = 'bench-gitops';
    await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: namespace } } });
    await kubectl(['apply', '-f', `${REPO_ROOT}/deploy/crd.yaml`], { kubeconfig: cluster.plane.kubeconfigPath, kubectlPath: cluster.kubectl });
    await new Promise((resolve) => setTimeout(resolve, 3000)); // the new kind served
    devnet = await startDevnetServer(world, cluster.network.hostIp);
    await initWorkRepo(world, 'app');
    for (const file of ['package.json', 'package-lock.json', 'server.js']) copyFileSync(`${REPO_ROOT}/examples/hello-npm/${file}`, world.path('app', file));
    await world.ok('app', ['add', '-A']);
    await world.ok('app', ['commit', '-qm', 'v1']);
    const url = (await world.ok('app', ['walrus', 'init', 'hello'], { env: devnet.env })).split('\n').at(-1)!;

    const seen = new Map<string, number>();
    const mark = (what: string) => { if (!seen.has(what)) seen.set(what, performance.now() + performance.timeOrigin); };
    const jobs = makeInformer<V1Job>(kc, `/apis/batch/v1/namespaces/${namespace}/jobs`, () => kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace }));
    jobs.on('add', (job) => mark(`job ${job.metadata?.annotations?.['gitops.walrus-git.dev/commit']}`));
    jobs.on('update', (job) => { if ((job.status?.succeeded ?? 0) > 0) mark(`built ${job.metadata?.annotations?.['gitops.walrus-git.dev/commit']}`); });
    const pods = makeInformer<V1Pod>(kc, `/api/v1/namespaces/${namespace}/pods`, () => kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace }));
    const podEvent = (pod: V1Pod) => {
      const commit = pod.metadata?.annotations?.['gitops.walrus-git.dev/commit'];
      if (!pod.metadata?.ownerReferences?.some((owner) => owner.kind === 'ReplicaSet')) return;
      mark(`pod ${commit}`);
      if (pod.status?.containerStatuses?.some((container) => container.state?.running)) mark(`running ${commit}`);
    };
    pods.on('add', podEvent);
    pods.on('update', podEvent);
    await jobs.start();
    await pods.start();
    stops.push(() => jobs.stop(), () => pods.stop());

    const network = await openNetwork({ env: { ...world.env, ...devnet.env }, log: silentLog, role: 'bench' });
    stops.push(() => network.close());
    controller = new Controller({
      cluster: new KubernetesCluster(kc, { log: () => {} }), ledger: network.ledger, templates: createTemplates({ env: { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: devnet.url } }),
      network: network.name, packageId: network.packageId, namespace, controllerNamespace: namespace, identity: 'bench',
      leaderElection: false, pollMs: 250, log: () => {},
    });
    const running = controller.run();
    stops.push(async () => { await controller!.stop(); await running; });
    const objects = kc.makeApiClient(CustomObjectsApi);
    await objects.createNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, body: {
      apiVersion: `${GROUP}/${VERSION}`, kind: 'WalrusApp', metadata: { name: 'hello' },
      spec: {
        repository: url, replicas: 2, health: { path: '/healthz', periodSeconds: 1, failureThreshold: 2 },
        build: { command: `export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt && ${DEFAULTS.build.command}` },
      },
    } });
    const readApp = async () => (await objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name: 'hello' })) as WalrusApp;

    for (const version of ['1', '2']) {
      if (version !== '1') {
        await world.ok('app', ['commit', '-q', '--allow-empty', '-m', `v${version}`]);
      }
      await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: devnet.env });
      const commit = await world.ok('app', ['rev-parse', 'HEAD']);
      const pushes = await network.ledger.listPushes(await network.ledger.resolve({ id: url.slice('walrus://'.length) }));
      const pushedAt = pushes.at(-1)!.timestampMs;
      const deadline = Date.now() + 600_000;
      let ready = 0;
      while (Date.now() < deadline) {
        const app = await readApp();
        if (app.status?.lastAppliedRevision === commit && app.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) { ready = Date.now(); break; }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      if (!ready) throw new Error(`v${version} was not released within 10 minutes`);
      const at = (what: string) => seen.get(`${what} ${commit}`);
      const job = at('job')!;
      const built = at('built')!;
      console.log(`gitops v${version}: push transaction → build Job created ${seconds(job - pushedAt)} (goal ≤ 2 s)`);
      console.log(`gitops v${version}: build of hello-npm (Job created → succeeded, npm ci from the registry) ${seconds(built - job)}`);
      console.log(`gitops v${version}: build end → new ReplicaSet's first pod created ${seconds(at('pod')! - built)} (goal ≤ 2 s), its app container running ${seconds(at('running')! - built)}`);
      console.log(`gitops v${version}: rollout (first new pod → Ready with every replica available) ${seconds(ready - at('pod')!)}, push → Ready ${seconds(ready - pushedAt)}`);
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await devnet?.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
    world.remove();
    await cluster.stop();
  }
}
