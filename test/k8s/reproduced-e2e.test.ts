/**
 * A lease that requires reproduction, end to end on the real plane with the process kubelet: the serving provider's
 * controller builds the hello-npm commit in its Job and holds the release (`Reproduced=False/AwaitingAttestations`,
 * nothing rolled out) until a second provider's controller, started as an attester only (`--no-serve --attest`),
 * rebuilds the lease's head in a build Job of its own (the serving build's template and isolation, in a namespace of
 * its own: no service-account token, default-deny network policies, quota and limits, nothing stored), commits, and
 * is killed once it committed; its successor reveals, once the commit window closes by the chain's clock, what the
 * first one built and kept in its ConfigMap, without building again; then the release rolls out and its deploy record
 * says it was reproduced by 1 provider.
 */
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { BatchV1Api, CoreV1Api, NetworkingV1Api, type V1Job } from '@kubernetes/client-node';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { silentLog } from '../../src/core/log.ts';
import { ChainEngine } from '../../src/devnet/chain/engine.ts';
import { leaseAppName, tenantNamespace } from '../../src/gitops/provider/plan.ts';
import { openNetwork } from '../../src/main/context.ts';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../src/ports/walrus-app.ts';
import { attesterNamespace } from '../../src/gitops/attester/job-build.ts';
import { STATE_CONFIG_MAP } from '../../src/gitops/attester/configmap-state.ts';
import { ANNOTATIONS } from '../../src/gitops/templates/names.ts';
import { pinnedDigest } from '../../src/core/image-reference.ts';
import { imageID } from '../cluster/kubelet/images.ts';
import { defaultImageMap } from '../cluster/kubelet/kubelet.ts';
import { helloRepository, TEST_BUILD_COMMAND } from '../../scripts/harness/gitops.ts';
import { devnetOfferFile, readyAt } from './support/gitops.ts';
import { leaseEndToEnd } from './support/lease-e2e.ts';
import { waitFor } from './support/control-plane.ts';

const BUILD_MS = 300_000;
const ROLLOUT_MS = 120_000;
/** Short enough for a test, long enough for the attester to commit before it closes. */
const COMMIT_WINDOW_MS = 20_000;

const { test, step, waitBounded, stageTest } = leaseEndToEnd('reproduced-e2e', 'a lease requiring reproduction is held until another provider attests (process kubelet, devnet)');

stageTest('held at AwaitingAttestations → an attester-only controller builds in its own Job and attests → rolled out, reproduced by 1', async ({ namespace, node, kc, world, objects, devnet, asTenant, walrus, registerProvider, startProvider, startController, removeAfter, explain }) => {
  await helloRepository(world, asTenant);
  await world.ok('app', ['commit', '-qm', 'hello v1']);
  await world.ok('app', ['push', '-q', 'walrus', 'main'], { env: asTenant });
  const commit = await world.ok('app', ['rev-parse', 'HEAD']);

  // The market's admin shortens the commit window (the devnet's faucet key holds the AdminCap).
  const engine = await ChainEngine.open(world.path('devnet-state', 'chain'));
  const admin = await openNetwork({ env: { ...world.env, ...devnet.env, GIT_WALRUS_KEY: engine.genesis.faucetKey }, log: silentLog, role: 'test' });
  await (await admin.market()).attestations().setWindows(COMMIT_WINDOW_MS, 3_600_000);
  await admin.close();

  const servingId = await registerProvider();
  const attesterKey = Ed25519Keypair.generate();
  const asAttester = { ...devnet.env, GIT_WALRUS_KEY: attesterKey.getSecretKey() };
  const attesterId = await walrus(['provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', 'https://attester.example'], asAttester);
  const specFile = world.path('lease-app.json');
  // Both providers build in the node image by the digest the kubelet reports for it: the build keys name it so.
  const nodeImage = `node@${pinnedDigest(imageID(defaultImageMap(), 'node:22'))}`;
  writeFileSync(specFile, JSON.stringify({ replicas: 1, port: 8080, health: { path: '/healthz', periodSeconds: 1, failureThreshold: 2 }, build: { command: TEST_BUILD_COMMAND, image: nodeImage } }));
  await startProvider('serving', ['--provider', servingId, '--provider-app-spec', specFile, '--provider-offer', devnetOfferFile(world, node.network), '--provider-interval-ms', '1000']);

  const leaseId = await walrus(['lease', 'open', 'walrus', '--provider', servingId, '--deposit', '5', '--require-reproduced', '1'], asTenant);
  const tenant = (await walrus(['lease', 'show', leaseId], asTenant)).match(/^tenant\s+(0x[0-9a-f]{64})$/m)![1]!;
  const app = { namespace: tenantNamespace(tenant), name: leaseAppName(leaseId) };
  removeAfter(app.namespace);
  explain(app);
  const readApp = () => objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, ...app }) as Promise<WalrusApp>;
  const reproduced = (current: WalrusApp) => current.status?.conditions?.find((c) => c.type === 'Reproduced');

  const held = await waitBounded('the release held for attestations', async () => {
    const current = await readApp().catch(() => undefined);
    return current && reproduced(current)?.reason === 'AwaitingAttestations' && current;
  }, BUILD_MS);
  step(`built and held: ${reproduced(held)!.message}`);
  assert.is(reproduced(held)!.status, 'False');
  assert.match(reproduced(held)!.message, `waits for 1 other provider to attest its build (key ${held.status!.artifact!.buildKey})`);
  assert.is(held.status?.lastAppliedRevision, undefined, 'nothing rolled out while held');

  // The attester: another provider's controller that serves nothing, building with the same settings in its own Jobs.
  const attesterSpace = attesterNamespace(attesterId);
  removeAfter(attesterSpace);
  const attesterArgs = [
    '--kubeconfig', node.plane.kubeconfigPath, '--controller-namespace', namespace, '--no-leader-elect', '--provider', attesterId, '--no-serve', '--attest',
    '--provider-app-spec', specFile, '--provider-offer', devnetOfferFile(world, node.network), '--provider-interval-ms', '1000',
  ];
  // An image by tag names no bytes, so no key under it could meet another provider's: the attester does not start.
  const byTag = await world.run('app', ['walrus', 'controller', ...attesterArgs, '--attest-image', 'node:22'], { env: asAttester });
  assert.is.not(byTag.code, 0);
  assert.match(byTag.stderr, /attester mode builds in an image named by digest.*node:22 is a tag/);
  const attester = startController('attester', attesterArgs, asAttester);
  const job = await waitBounded('the attester\'s build Job', async () => {
    const { items } = await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: attesterSpace });
    return items.find((candidate) => candidate.metadata?.annotations?.[ANNOTATIONS.commit] === commit) as V1Job | undefined;
  }, 60_000);
  const pod = job.spec!.template.spec!;
  assert.is(pod.automountServiceAccountToken, false, 'no service-account token in the build pod');
  assert.equal(job.metadata?.ownerReferences ?? [], [], 'the attester deletes its Jobs itself');
  assert.is(pod.initContainers!.find((container) => container.name === 'build')!.image, nodeImage);
  const pack = pod.containers.find((container) => container.name === 'pack')!;
  assert.ok(pack.command!.includes('--no-store'), pack.command!.join(' '));
  assert.not.ok([...pod.initContainers!, ...pod.containers].some((container) => container.env?.some((variable) => variable.name === 'GIT_WALRUS_KEY')), 'no step has the key');
  const policies = (await kc.makeApiClient(NetworkingV1Api).listNamespacedNetworkPolicy({ namespace: attesterSpace })).items.map((policy) => policy.metadata!.name);
  assert.ok(policies.includes('tenant-default-deny') && policies.includes('tenant-build-egress'), policies.join(', '));
  step(`the attester builds in job ${attesterSpace}/${job.metadata!.name}`);
  await waitFor('the attester committed', async () => attester.output().includes(`attester: committed to ${commit.slice(0, 12)}`), BUILD_MS);
  step('the attester committed');
  // Killed between commit and reveal: what it built is in its ConfigMap (in the controller's namespace), so its successor reveals without building.
  const kept = await kc.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace, name: STATE_CONFIG_MAP });
  assert.ok(kept.data?.['attestations.json']?.includes(commit), JSON.stringify(kept.data));
  await attester.kill('SIGKILL');
  const successor = startController('attester-restarted', attesterArgs, asAttester);
  await waitFor('the restarted attester revealed', async () => successor.output().includes(`attester: revealed ${commit.slice(0, 12)}`), COMMIT_WINDOW_MS + 60_000);
  assert.match(successor.output(), /attester: 1 build\(s\) kept from an earlier run, stepped without building again/);
  assert.not.match(successor.output(), /attester: (building|build job)/, 'the restarted attester built nothing');
  step('the restarted attester revealed what its predecessor built');

  const ready = await readyAt(readApp, commit, ROLLOUT_MS);
  assert.is(reproduced(ready)?.status, 'True');
  assert.match(reproduced(ready)!.message, `reproduced by 1 other provider under build key ${ready.status!.artifact!.buildKey}`);
  const records = await waitBounded('the Deployed record', async () => {
    const out = await walrus(['deployments', 'walrus'], asTenant);
    return out.includes(commit) && out;
  }, 30_000);
  assert.match(records, /\n {4}reproduced by 1 provider(\n|$)/);
  assert.not.match(attester.output() + successor.output(), /watching WalrusApps/, 'the attester reconciles no app');
  await waitBounded('the attester\'s Job deleted once read', async () => (await kc.makeApiClient(BatchV1Api).listNamespacedJob({ namespace: attesterSpace })).items.length === 0, 60_000);
});

test.run();
