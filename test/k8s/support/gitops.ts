/** Shared by the GitOps tests on the real plane: the WalrusApp CRD installed once per run, and kubectl. */
import { execFile } from 'node:child_process';
import { appendFileSync, copyFileSync } from 'node:fs';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { CRD_NAME } from '../../../src/gitops/api/crd.ts';
import { DEFAULTS, GROUP, PLURAL, VERSION, type WalrusApp } from '../../../src/gitops/api/types.ts';
import { initWorkRepo, REPO_ROOT, startDevnet, type World } from '../../support/e2e.ts';
import { startApiRelay } from '../../cluster/node/api-relay.ts';
import { spawnReaped } from '../../support/reaper.ts';
import { sharedCluster, waitFor } from './control-plane.ts';

let installed: Promise<void> | undefined;

/** Installs the WalrusApp CRD (once per run; the plane is shared) and waits until the new kind is served. */
export function installWalrusAppCrd(kc: KubeConfig): Promise<void> {
  installed ??= (async () => {
    // Through kubectl and the file a provider applies (client-node's typed create would drop the x-kubernetes-* keys).
    await kubectl(['apply', '-f', fileURLToPath(new URL('../../../deploy/crd.yaml', import.meta.url))]);
    const extensions = kc.makeApiClient(ApiextensionsV1Api);
    await waitFor('WalrusApp CRD established', async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: CRD_NAME });
      return crd.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True');
    });
    const objects = kc.makeApiClient(CustomObjectsApi);
    await waitFor('walrusapps served', () => objects.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }).then(() => true));
  })();
  return installed;
}

/** Runs the plane's own kubectl with the admin kubeconfig (or `kubeconfig`); resolves with stdout, rejects with stderr. */
export async function kubectl(args: string[], options: { kubeconfig?: string; cwd?: string; kubectlPath?: string } = {}): Promise<string> {
  const cluster = options.kubeconfig && options.kubectlPath ? undefined : await sharedCluster();
  const kubeconfig = options.kubeconfig ?? cluster!.plane.kubeconfigPath;
  const { stdout } = await promisify(execFile)(options.kubectlPath ?? cluster!.kubectl, ['--kubeconfig', kubeconfig, ...args], { cwd: options.cwd, maxBuffer: 16 << 20 });
  return stdout;
}

/** `git walrus devnet --host <host>` in the world (state in `<root>/devnet-state`): pods reach it on the node's hostIp. */
export async function startDevnetServer(world: World, host: string): Promise<{ url: string; env: NodeJS.ProcessEnv; stop(): Promise<void> }> {
  const server = await startDevnet(world, host ? ['--host', host] : []);
  return { ...server, env: { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url } };
}

export interface DevnetRelay {
  url: string;
  /** The env that reaches the devnet through the relay. */
  env: NodeJS.ProcessEnv;
  /** While true, every new connection from the node (its pods) is reset; the host (tests, controllers) still gets through. */
  cutPods(cut: boolean): void;
  /** How many connections from the node were reset so far. */
  refused(): number;
  close(): Promise<void>;
}

/**
 * A TCP relay on `host` in front of the devnet at `devnetUrl` (which answers with service URLs relative to the one it
 * was reached at, so everything a client does goes through here): the node losing the chain and Walrus, on demand.
 */
export async function startDevnetRelay(devnetUrl: string, host: string): Promise<DevnetRelay> {
  const target = new URL(devnetUrl);
  let cut = false;
  let refused = 0;
  const relay = await startApiRelay({ host, port: 0 }, { host: target.hostname, port: Number(target.port) }, {
    refuse: (address) => {
      // The host's own processes connect from `host` itself; anything else came through the node.
      const fromNode = address !== host && !address.startsWith('127.') && address !== '::1';
      if (cut && fromNode) refused++;
      return cut && fromNode;
    },
  });
  const url = `http://${host}:${relay.port}`;
  return {
    url, env: { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: url },
    cutPods: (value) => { cut = value; },
    refused: () => refused,
    close: () => relay.close(),
  };
}

export interface ControllerProcess {
  identity: string;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with the exit code once the process is gone. */
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `git walrus controller` as a provider runs it out of cluster, with `identity` as its leader-election name. */
export function startControllerProcess(world: World, env: NodeJS.ProcessEnv, identity: string, args: string[]): ControllerProcess {
  // bin/git-walrus execs node: the child is the controller itself, so a kill reaches it (through `git walrus` it
  // would reach git only, leaving the controller running). It never outlives the test process (support/reaper.ts).
  const child = spawnReaped(`${REPO_ROOT}/bin/git-walrus`, ['controller', ...args], { cwd: world.root, env: { ...world.env, ...env, POD_NAME: identity }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // GITOPS_TEST_LOGS=<dir> keeps each controller's output in <dir>/<identity>.log, as it happens.
  const file = process.env.GITOPS_TEST_LOGS ? `${process.env.GITOPS_TEST_LOGS}/${identity}.log` : undefined;
  const collect = (d: string) => { output += d; if (file) appendFileSync(file, d); };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return {
    identity,
    output: () => output,
    exited,
    kill: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Waits until the app is Ready at `commit`, and returns it. Fails at once, with the status's words, when the commit is
 * the app's failedRevision: it will not deploy (a build that failed, also after its retries, or a rolled-back rollout).
 */
export async function readyAt(readApp: () => Promise<WalrusApp>, commit: string, timeoutMs: number): Promise<WalrusApp> {
  const condition = (app: WalrusApp, type: string) => app.status?.conditions?.find((c) => c.type === type);
  const { app, failed } = await waitFor<{ app: WalrusApp; failed: boolean }>(`Ready at ${commit.slice(0, 12)}`, async () => {
    const current = await within(15_000, readApp());
    if (!current) return undefined;
    if (current.status?.failedRevision === commit) return { app: current, failed: true };
    return condition(current, 'Ready')?.status === 'True' && current.status?.lastAppliedRevision === commit && { app: current, failed: false };
  }, timeoutMs);
  if (failed) {
    throw new Error(`${commit.slice(0, 12)} failed and will not deploy: Ready=${condition(app, 'Ready')?.reason}: ${condition(app, 'Ready')?.message}; Built: ${condition(app, 'Built')?.message}`);
  }
  return app;
}

/** `probe` with a time limit: a wait that polls never hangs on one request (the API client has no timeout of its own). */
export function within<T>(ms: number, probe: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([probe, new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), ms); })]).finally(() => clearTimeout(timer));
}

/** GET http://<host>:<port><path>: status and body, or the error's message as status 0. */
export function httpGet(host: string, port: number, path = '/', timeoutMs = 3000): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request({ host, port, path, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out'))).on('error', (error) => resolve({ status: 0, body: error.message })).end();
  });
}

/** A work repository `app` holding examples/hello-npm, on the devnet as repository `name`; returns its walrus:// URL. */
export async function helloRepository(world: World, env: NodeJS.ProcessEnv, name = 'hello'): Promise<string> {
  await initWorkRepo(world, 'app');
  for (const file of ['package.json', 'package-lock.json', 'server.js']) copyFileSync(`${REPO_ROOT}/examples/hello-npm/${file}`, world.path('app', file));
  await world.ok('app', ['add', '-A']);
  return (await world.ok('app', ['walrus', 'init', name], { env })).split('\n').at(-1)!;
}

/**
 * The build command of the test apps: this machine reaches the npm registry through a TLS-intercepting proxy whose CA
 * only the system bundle holds (test/k8s/README.md), so the build trusts that bundle, as a provider behind such a
 * proxy would configure it.
 */
export const TEST_BUILD_COMMAND = `export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt && ${DEFAULTS.build.command}`;
