/**
 * `node test/support/k8s-checkout-run.ts`: the Kubernetes suites' build path, run from the checkout this file is in,
 * on a cluster of its own: a devnet server on the node's hostIp, a repository pushed to it, and a build Job's checkout
 * step (the project's image, as a non-root user, an emptyDir at /tmp) cloning it at the commit, followed by a step that
 * checks the tree. Prints `checkout ok <commit>` and exits 0, or prints what the pod said and exits 1. The
 * clone-anywhere suite runs it from a fresh clone under a 0700 directory in /tmp. (Not under test/k8s: a file pattern
 * given to uvu there, such as 'job', would run it as a test file.)
 */
import { readFile } from 'node:fs/promises';
import { BatchV1Api, CoreV1Api } from '@kubernetes/client-node';
import { API_VERSION, KIND } from '../../src/ports/walrus-app.ts';
import { buildJob, CHECKOUT_STEP, WORKSPACE } from '../../src/gitops/templates/build-job.ts';
import { createWorld } from '../../scripts/harness/world.ts';
import { runAfterExit } from '../../scripts/harness/reaper.ts';
import { testCluster, waitFor } from '../k8s/support/control-plane.ts';
import { helloRepository, startDevnetServer } from '../../scripts/harness/gitops.ts';

const cluster = testCluster('clone-checkout');
const world = createWorld('walrus-clone-checkout-');
runAfterExit(['rm', '-rf', world.root]); // also when this process is stopped by a signal
let devnet: Awaited<ReturnType<typeof startDevnetServer>> | undefined;
let code = 1;
try {
  const { kc, namespace, cluster: node } = await cluster.get();
  devnet = await startDevnetServer(world, node.network.hostIp);
  const url = await helloRepository(world, devnet.env);
  await world.ok('app', ['commit', '-qm', 'v1']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: devnet.env });
  const commit = await world.ok('app', ['rev-parse', 'HEAD']);

  const app = { apiVersion: API_VERSION, kind: KIND, metadata: { name: 'hello', namespace, uid: 'none' }, spec: { repository: url } } as const;
  const job = buildJob(app, { commit, configHash: 'clone' }, { env: devnet.env as Record<string, string> });
  // No owner (the app object does not exist: the garbage collector would delete the Job), and only the checkout,
  // then a look at what it wrote: the app's own build and the pack step are not this check's business.
  delete job.metadata!.ownerReferences;
  const pod = job.spec!.template.spec!;
  const checkout = pod.initContainers!.find((container) => container.name === CHECKOUT_STEP)!;
  pod.initContainers = [checkout];
  pod.containers = [{ ...checkout, name: 'look', command: ['sh', '-c', `test -f ${WORKSPACE}/server.js && echo tree-ok`], env: [] }];
  const name = job.metadata!.name!;
  await kc.makeApiClient(BatchV1Api).createNamespacedJob({ namespace, body: job });
  const core = kc.makeApiClient(CoreV1Api);
  const done = await waitFor(`Job ${name} finished`, async () => {
    const { status } = await kc.makeApiClient(BatchV1Api).readNamespacedJob({ name, namespace });
    return (status?.succeeded || status?.failed) ? status : undefined;
  }, 240_000);
  const pods = (await core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` })).items;
  const log = pods[0] ? await readFile(node.kubelet.podLogPath(namespace, pods[0].metadata!.name!), 'utf8').catch(() => '') : '';
  if (done.succeeded && log.includes('look tree-ok')) {
    process.stdout.write(`checkout ok ${commit}\n`);
    code = 0;
  } else {
    const states = pods.flatMap((p) => [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].map((c) => ({ name: c.name, state: c.state })));
    process.stdout.write(`checkout failed: ${JSON.stringify(states)}\n${log}\n`);
  }
} catch (error) {
  process.stdout.write(`checkout failed: ${error instanceof Error ? error.stack : String(error)}\n`);
} finally {
  await devnet?.stop();
  world.remove();
  await cluster.stop();
}
process.exit(code);
