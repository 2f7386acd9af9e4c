/**
 * The stage every lease end-to-end test on the real plane starts from: the test cluster with the WalrusApp CRD, a
 * `git walrus devnet` server on the node's host address, a provider key, and the diagnostics that explain a failure.
 * The test registers its provider, starts its controllers and opens its leases through this stage, so
 * the cleanup (what the test installed undone, controllers killed, every tenant namespace they made deleted, the devnet stopped, the world
 * removed, the cluster released) runs whatever step failed.
 */
import { suite, type Test } from 'uvu';
import { CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { GROUP, PLURAL, VERSION, type WalrusApp } from '../../../src/ports/walrus-app.ts';
import { leaseAppName, tenantNamespace } from '../../../src/gitops/provider/plan.ts';
import { createWorld, type World } from '../../../scripts/harness/world.ts';
import { startControllerProcess, startDevnetServer, within, type ControllerProcess } from '../../../scripts/harness/gitops.ts';
import type { Cluster } from '../../cluster/node/node.ts';
import { testCluster, waitFor } from './control-plane.ts';
import { explained, GitopsDiagnostics, type AppRef } from './diagnose.ts';
import { installWalrusAppCrd, walrusIn } from './gitops.ts';

/** Set to print every controller's output after the test. */
const VERBOSE = 'WALRUS_E2E_VERBOSE';

export interface LeaseApp extends AppRef {
  leaseId: string;
  tenant: string;
  read(): Promise<WalrusApp>;
}

export interface LeaseStage {
  /** The namespace the test cluster gave this test (the controllers run there). */
  namespace: string;
  node: Cluster;
  kc: KubeConfig;
  core: CoreV1Api;
  objects: CustomObjectsApi;
  world: World;
  devnet: Awaited<ReturnType<typeof startDevnetServer>>;
  providerKey: Ed25519Keypair;
  /** The devnet's funded default key: the tenant unless a test says otherwise. */
  asTenant: NodeJS.ProcessEnv;
  asProvider: NodeJS.ProcessEnv;
  /** `git walrus <args>` in the world's app repository, its stdout trimmed; a failure throws with its output. */
  walrus(args: string[], env: NodeJS.ProcessEnv): Promise<string>;
  /** Registers the provider (stake 20, price 1 MIST) at `endpoint`, by default the node's host address. */
  registerProvider(endpoint?: string): Promise<string>;
  /**
   * Starts a controller against the test cluster (after the common flags, `args` as given) and waits until it runs in
   * provider mode; it is killed in the cleanup.
   */
  startProvider(identity: string, args: string[], env?: NodeJS.ProcessEnv): Promise<ControllerProcess>;
  /** Starts a controller that is not in provider mode (no wait); it is killed in the cleanup. */
  startController(identity: string, args: string[], env: NodeJS.ProcessEnv): ControllerProcess;
  /** `git walrus lease open <repository> --provider … --deposit 5`, and where its app will live. */
  openLease(repository: string, providerId: string, env?: NodeJS.ProcessEnv): Promise<LeaseApp>;
  /** A namespace the test made itself, deleted in the cleanup. */
  removeAfter(namespace: string): void;
  /** Something the test installed that the cleanup undoes (first, before the namespaces go). */
  undoAfter(action: () => Promise<unknown>): void;
  /** An app the diagnostics should explain beside the leases' own. */
  explain(app: AppRef): void;
}

export interface LeaseEndToEnd {
  test: Test;
  /** Prints a progress line (and the figures the test measures) under the test's name. */
  step(text: string): void;
  /** Waits for a probe, each try bounded to 15 s so a stuck API server fails the wait instead of hanging it. */
  waitBounded<T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs?: number): Promise<T>;
  /** Runs a test case on the stage, explaining a failure with what the cluster and the controllers saw. */
  stageTest(title: string, body: (stage: LeaseStage) => Promise<void>): void;
}

export function leaseEndToEnd(name: string, title: string): LeaseEndToEnd {
  const cluster = testCluster(name);
  const test = suite(title);
  const providerKey = Ed25519Keypair.generate();
  const controllers: ControllerProcess[] = [];
  const namespaces = new Set<string>();
  const apps: AppRef[] = [];
  const undos: Array<() => Promise<unknown>> = [];
  let diagnostics: GitopsDiagnostics | undefined;
  let kc: KubeConfig | undefined;
  let devnet: LeaseStage['devnet'] | undefined;
  let world: World | undefined;

  test.after(async () => {
    await diagnostics?.stop();
    for (const controller of controllers) {
      await controller.kill('SIGKILL');
      if (process.env[VERBOSE]) process.stderr.write(controller.output());
    }
    for (const undo of undos) await undo().catch((error) => process.stderr.write(`${name}: cleanup: ${error instanceof Error ? error.message : error}\n`));
    const core = kc?.makeApiClient(CoreV1Api);
    for (const namespace of namespaces) await core?.deleteNamespace({ name: namespace }).catch(() => {});
    await devnet?.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
    world?.remove();
    await cluster.stop();
  });

  const waitBounded = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs?: number) => waitFor(what, () => within(15_000, probe()), timeoutMs);

  async function setUp(): Promise<LeaseStage> {
    const { namespace, cluster: node, kc: config } = await cluster.get();
    kc = config;
    diagnostics = new GitopsDiagnostics({ kc: config, cluster: node, apps: () => apps, controllers: () => controllers });
    diagnostics.start();
    await installWalrusAppCrd(config);
    world = createWorld(`walrus-${name}-`);
    devnet = await startDevnetServer(world, node.network.hostIp);
    const asTenant = devnet.env;
    const asProvider = { ...devnet.env, GIT_WALRUS_KEY: providerKey.getSecretKey() };
    const walrus = walrusIn(world);
    const core = config.makeApiClient(CoreV1Api);
    const objects = config.makeApiClient(CustomObjectsApi);
    const startController = (identity: string, args: string[], env: NodeJS.ProcessEnv) => {
      const controller = startControllerProcess(world!, env, identity, args);
      controllers.push(controller);
      return controller;
    };
    return {
      namespace, node, kc: config, core, objects, world, devnet, providerKey, asTenant, asProvider, walrus, startController,
      registerProvider: (endpoint = `http://${node.network.hostIp}`) => walrus(['provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', endpoint], asProvider),
      async startProvider(identity, args, env = asProvider) {
        const controller = startController(identity, ['--kubeconfig', node.plane.kubeconfigPath, '--controller-namespace', namespace, '--poll-ms', '500', ...args], env);
        await waitFor(`the controller ${identity} in provider mode`, async () => controller.output().includes('provider mode for'), 60_000);
        return controller;
      },
      async openLease(repository, providerId, env = asTenant) {
        const leaseId = await walrus(['lease', 'open', repository, '--provider', providerId, '--deposit', '5'], env);
        const tenant = (await walrus(['lease', 'show', leaseId], env)).match(/^tenant\s+(0x[0-9a-f]{64})$/m)![1]!;
        const app = { leaseId, tenant, namespace: tenantNamespace(tenant), name: leaseAppName(leaseId) };
        namespaces.add(app.namespace);
        apps.push(app);
        return { ...app, read: () => objects.getNamespacedCustomObject({ group: GROUP, version: VERSION, plural: PLURAL, namespace: app.namespace, name: app.name }) as Promise<WalrusApp> };
      },
      removeAfter: (ns) => namespaces.add(ns),
      undoAfter: (action) => undos.push(action),
      explain: (app) => apps.push(app),
    };
  }

  return {
    test,
    step: (text) => process.stderr.write(`${name}: ${text}\n`),
    waitBounded,
    stageTest: (caseTitle, body) => test(caseTitle, () => explained(() => diagnostics, async () => body(await setUp()))),
  };
}
