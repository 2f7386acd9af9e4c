/**
 * The test cluster's ingress controller stand-in: Debian's nginx in its own network namespace on the node's bridge
 * (address RunSubnets.ingressIp, which no pod gets), configured from the cluster's Ingresses by a small watcher:
 * informers on Ingresses, Services and Endpoints; on any change the configuration is rendered again
 * (nginx-config.ts) and, when it differs, written and nginx reloaded (SIGHUP: old workers finish their requests).
 * A reload counts as done once every worker of the old configuration has exited: until then an old worker can still
 * accept a connection and answer it as the old configuration said (a 503 for a backend that has since become ready),
 * so `settled()` waits for that, and tests wait for it before they count failed requests.
 * Tests call `http://<address>/` with a `Host:` header. nginx dies with its namespace when the run is removed.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, NetworkingV1Api, makeInformer } from '@kubernetes/client-node';
import type { Informer, KubernetesObject, ObjectCache, V1Endpoints, V1Ingress, V1Service } from '@kubernetes/client-node';
import type { NodeNetwork } from '../node/network.ts';
import type { ProcessRef } from '../node/run-state.ts';
import { INGRESS_CLASS, nginxConfig } from './nginx-config.ts';

export interface IngressStandIn {
  /** Where it listens (port 80): what a provider's DNS would point `*.<domain>` at. */
  readonly address: string;
  /** The IngressClass name it serves (and Ingresses that name none). */
  readonly className: string;
  readonly process: ProcessRef;
  /** nginx's error and access logs, and its configuration. */
  readonly dir: string;
  /** Resolves once every change seen so far is rendered and nginx runs only workers of that configuration. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export interface IngressOptions {
  network: Pick<NodeNetwork, 'attachIngress' | 'spawnInIngress'>;
  kubeconfigPath: string;
  stateDir: string;
  log: (line: string) => void;
}

const NGINX = '/usr/sbin/nginx';
/** Events come in bursts (a rollout changes Endpoints several times): render once they settle this long. */
const SETTLE_MS = 100;
/**
 * How long to wait for a reload's old workers to exit: one still finishing a long request (a followed log) outlives
 * it, having closed its listening socket; the reload is then reported and the next change goes on.
 */
const RELOAD_WAIT_MS = 10_000;

type Cached<T extends KubernetesObject> = Informer<T> & ObjectCache<T>;

export async function startIngress(options: IngressOptions): Promise<IngressStandIn> {
  const { ip } = await options.network.attachIngress();
  const dir = join(options.stateDir, 'ingress');
  for (const kind of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, 'tmp', kind), { recursive: true });
  const confPath = join(dir, 'nginx.conf');
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const networking = kc.makeApiClient(NetworkingV1Api);
  const informers = {
    ingresses: makeInformer<V1Ingress>(kc, '/apis/networking.k8s.io/v1/ingresses', () => networking.listIngressForAllNamespaces()),
    services: makeInformer<V1Service>(kc, '/api/v1/services', () => core.listServiceForAllNamespaces()),
    endpoints: makeInformer<V1Endpoints>(kc, '/api/v1/endpoints', () => core.listEndpointsForAllNamespaces()),
  } satisfies Record<string, Cached<KubernetesObject>>;
  const render = () => nginxConfig({ ingresses: informers.ingresses.list(), services: informers.services.list(), endpoints: informers.endpoints.list() }, { listen: ip, dir });

  let stopped = false;
  let current = '';
  writeFileSync(confPath, (current = render()));
  const logFd = openSync(join(dir, 'nginx.log'), 'a');
  let nginx: ChildProcess;
  try {
    nginx = options.network.spawnInIngress('setpriv', ['--pdeathsig', 'KILL', '--', NGINX, '-p', dir, '-e', join(dir, 'error.log'), '-c', confPath, '-g', 'daemon off;'], { stdio: ['ignore', logFd, logFd] });
  } finally {
    closeSync(logFd);
  }
  nginx.unref();
  let exited: string | undefined;
  nginx.on('exit', (code, signal) => { exited = signal ?? `code ${code}`; });
  const checkAlive = () => {
    if (exited === undefined) return;
    const tail = readFileSync(join(dir, 'error.log'), 'utf8').trimEnd().split('\n').slice(-10).join('\n');
    throw new Error(`the ingress stand-in (nginx) exited (${exited}); its error log ends:\n${tail}`);
  };

  // Reloads run one at a time, in the order of the changes.
  let timer: NodeJS.Timeout | undefined;
  let pending: Promise<void> = Promise.resolve();
  const reload = () => {
    pending = pending.then(async () => {
      if (stopped) return;
      checkAlive();
      const next = render();
      if (next === current) return;
      writeFileSync(confPath, (current = next));
      const before = nginx.pid === undefined ? [] : workersOf(nginx.pid);
      nginx.kill('SIGHUP');
      await waitReloaded(nginx.pid, before, checkAlive, options.log);
    });
    pending.catch((error: Error) => options.log(`ingress: ${error.message}`));
  };
  const changed = () => {
    clearTimeout(timer);
    timer = setTimeout(() => { timer = undefined; reload(); }, SETTLE_MS);
  };
  for (const [name, informer] of Object.entries(informers) as [string, Cached<KubernetesObject>][]) {
    for (const event of ['add', 'update', 'delete'] as const) informer.on(event, changed);
    informer.on('error', (error: Error) => {
      if (stopped) return;
      options.log(`ingress: the ${name} watch stopped (${error?.message ?? error}); restarting`);
      setTimeout(() => { if (!stopped) informer.start().catch(() => undefined); }, 1000).unref();
    });
  }
  try {
    await Promise.all(Object.values(informers).map((informer) => informer.start()));
    reload();
    await pending;
    await waitListening(dir, checkAlive);
  } catch (error) {
    stopped = true;
    nginx.kill('SIGKILL');
    await Promise.all(Object.values(informers).map((informer) => informer.stop().catch(() => undefined)));
    throw error;
  }
  options.log(`k8s: ingress stand-in (nginx, class ${INGRESS_CLASS}) on ${ip}:80`);
  return {
    address: ip,
    className: INGRESS_CLASS,
    process: { name: 'ingress-nginx', pid: nginx.pid ?? -1, match: confPath },
    dir,
    async settled() {
      for (;;) {
        const awaited = pending;
        await awaited.catch(() => undefined);
        if (timer === undefined && pending === awaited) return;
        if (timer !== undefined) await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      }
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.all(Object.values(informers).map((informer) => informer.stop().catch(() => undefined)));
      if (exited !== undefined || nginx.pid === undefined) return;
      const gone = new Promise((resolve) => nginx.once('exit', resolve));
      nginx.kill('SIGQUIT');
      const kill = setTimeout(() => nginx.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(kill);
    },
  };
}

/** The pids of the master's workers, from each process's parent in /proc. */
function workersOf(master: number): number[] {
  const workers: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent is the 4th field, after a command name in parentheses that may itself hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === master) workers.push(Number(entry));
    } catch {
      // exited while listed
    }
  }
  return workers;
}

/** A reload is done when none of the workers from before the SIGHUP is left and new ones run. */
async function waitReloaded(master: number | undefined, before: number[], checkAlive: () => void, log: (line: string) => void): Promise<void> {
  if (master === undefined) return;
  const deadline = Date.now() + RELOAD_WAIT_MS;
  for (;;) {
    checkAlive();
    const now = workersOf(master);
    if (now.length > 0 && !now.some((pid) => before.includes(pid))) return;
    if (Date.now() > deadline) {
      log(`ingress: nginx's old workers still run ${RELOAD_WAIT_MS / 1000} s after a reload (a long request); going on`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** nginx writes its pid file once it listens. */
async function waitListening(dir: string, checkAlive: () => void): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    checkAlive();
    try {
      if (readFileSync(join(dir, 'nginx.pid'), 'utf8').trim()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`the ingress stand-in (nginx) did not start within 10 s; see ${join(dir, 'error.log')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
