/**
 * What the GitOps tests on the test cluster, its benchmark and `npm run demo:deploy` share: kubectl, a devnet server
 * pods can reach, `git walrus controller` as a process, plain HTTP, and the hello-npm app on the devnet.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, copyFileSync } from 'node:fs';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { DEFAULTS } from '../../src/gitops/api/types.ts';
import { initWorkRepo, REPO_ROOT, startDevnet, type World } from './world.ts';
import { spawnReaped } from './reaper.ts';

/** Runs `kubectlPath` with `kubeconfig`; resolves with stdout, rejects with stderr. */
export async function kubectl(args: string[], options: { kubeconfig: string; kubectlPath: string; cwd?: string }): Promise<string> {
  const { stdout } = await promisify(execFile)(options.kubectlPath, ['--kubeconfig', options.kubeconfig, ...args], { cwd: options.cwd, maxBuffer: 16 << 20 });
  return stdout;
}

/** `git walrus devnet --host <host>` in the world (state in `<root>/devnet-state`): pods reach it on the node's hostIp. */
export async function startDevnetServer(world: World, host: string): Promise<{ url: string; env: NodeJS.ProcessEnv; stop(): Promise<void> }> {
  const server = await startDevnet(world, host ? ['--host', host] : []);
  return { ...server, env: { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url } };
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
  return startServiceProcess(world, env, identity, ['controller', ...args]);
}

function startServiceProcess(world: World, env: NodeJS.ProcessEnv, identity: string, args: string[]): ControllerProcess {
  // bin/git-walrus execs node: the child is the command itself, so a kill reaches it (through `git walrus` it
  // would reach git only, leaving it running). It never outlives the process that started it (reaper.ts).
  const child = spawnReaped(`${REPO_ROOT}/bin/git-walrus`, args, { cwd: world.root, env: { ...world.env, ...env, POD_NAME: identity }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // GITOPS_TEST_LOGS=<dir> keeps each process's output in <dir>/<identity>.log, as it happens.
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

/** `probe` with a time limit: a wait that polls never hangs on one request (the API client has no timeout of its own). */
export function within<T>(ms: number, probe: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([probe, new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), ms); })]).finally(() => clearTimeout(timer));
}

/** GET http://<host>:<port><path> (with `headers`, e.g. the Host an ingress routes by): status and body, or the error's message as status 0. */
export function httpGet(host: string, port: number, path = '/', timeoutMs = 3000, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request({ host, port, path, agent: false, timeout: timeoutMs, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out'))).on('error', (error) => resolve({ status: 0, body: error.message })).end();
  });
}

/** A work repository `app` holding examples/hello-npm, on the devnet as repository `name` (private if asked); returns its walrus:// URL. */
export async function helloRepository(world: World, env: NodeJS.ProcessEnv, name = 'hello', options: { private?: boolean } = {}): Promise<string> {
  await initWorkRepo(world, 'app');
  for (const file of ['package.json', 'package-lock.json', 'server.js']) copyFileSync(`${REPO_ROOT}/examples/hello-npm/${file}`, world.path('app', file));
  await world.ok('app', ['add', '-A']);
  return (await world.ok('app', ['walrus', 'init', name, ...(options.private ? ['--private'] : [])], { env })).split('\n').at(-1)!;
}

/**
 * The build command of the test apps: this machine reaches the npm registry through a TLS-intercepting proxy whose CA
 * only the system bundle holds (test/k8s/README.md), so the build trusts that bundle, as a provider behind such a
 * proxy would configure it.
 */
export const TEST_BUILD_COMMAND = `export NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt && ${DEFAULTS.build.command}`;
