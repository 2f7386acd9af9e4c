/**
 * Starts and stops a real Kubernetes 1.20 control plane on loopback: etcd, kube-apiserver,
 * kube-controller-manager and kube-scheduler, built by build.sh. Everything binds 127.0.0.1 on ports
 * that were free a moment before; certificates, keys, tokens, kubeconfigs, data and logs live in one
 * temporary directory, and only the processes recorded there are ever stopped.
 */
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, rmSync, statSync, statfsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WalrusGitError } from '../../src/core/errors.ts';
import { signal, sleep, terminate } from './signals.ts';

const run = promisify(execFile);
const BUILD_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'build.sh');
type Component = 'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler';
const START_TIMEOUT_MS = 90_000;
const PORT_RETRIES = 3;

export interface ControlPlane {
  /** The temporary directory holding everything: kubeconfig, certificates, etcd data, one log per component. */
  readonly dir: string;
  /** Admin kubeconfig (a bearer token in group system:masters) for tests and tools. */
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:<port> */
  readonly server: string;
  readonly pids: Readonly<Record<Component, number>>;
  /** The apiserver's port (on 127.0.0.1; a node's relay serves the same port on its host address). */
  readonly port: number;
  /** With a node: kube-proxy's kubeconfig (user system:kube-proxy), reaching the apiserver at the node's host address. */
  readonly proxyKubeconfigPath?: string;
}

/** The plane could not be built or started; the message carries the failing component's own last log lines. */
export class ControlPlaneError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super('K8S_CONTROL_PLANE', message, data);
  }
}

/** Builds (or finds cached) binaries and returns their directory. Build progress goes to stderr. */
export async function ensureBinaries(): Promise<string> {
  const child = spawn('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk; });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (code !== 0) throw new ControlPlaneError(`${BUILD_SCRIPT} failed (exit ${code}); its output above says why`);
  const binDir = out.trim().split('\n').pop() ?? '';
  if (!existsSync(join(binDir, 'kube-apiserver'))) throw new ControlPlaneError(`build.sh printed no binary directory: ${out}`);
  return binDir;
}

export interface StartOptions {
  binDir: string;
  /**
   * Tie the components' lives to this process (Linux parent-death signal): right for a test run, which
   * must leave nothing behind even when killed. Off for `k8s:up`, whose plane outlives the command.
   */
  dieWithParent: boolean;
  log?: (line: string) => void;
  /** The node network the plane serves: its Service range, and the address the node reaches the apiserver at. */
  node?: PlaneNodeOptions;
}

export interface PlaneNodeOptions {
  serviceCidr: string;
  /** The `kubernetes` Service's ClusterIP (first address of serviceCidr); in the serving certificate. */
  apiServiceIp: string;
  /**
   * The host's address on the node link: advertised as the `kubernetes` Service's endpoint and in the
   * serving certificate. The apiserver still binds 127.0.0.1; the node runner relays this address to it.
   */
  advertiseIp: string;
  /**
   * How long a node may stay silent before the node lifecycle controller marks it NotReady and taints it
   * (`--node-monitor-grace-period`; 40 s when unset). The kubelet beats every 10 s.
   */
  nodeMonitorGraceSeconds?: number;
}

/** Starts a plane and waits until it serves: API ready, service accounts being made, scheduler healthy. */
export async function startControlPlane(options: StartOptions): Promise<ControlPlane> {
  sweepAbandoned();
  for (let attempt = 1; ; attempt++) {
    const dir = await mkdtemp(join(scratchRoot(), 'grw-k8s-'));
    try {
      return await startIn(dir, options);
    } catch (err) {
      await stopControlPlane(dir);
      // Free ports are found before the components bind them, so another process may win the race.
      const portRace = err instanceof ControlPlaneError && /address already in use/.test(err.message);
      if (!portRace || attempt >= PORT_RETRIES) throw err;
      options.log?.(`k8s: a port was taken meanwhile, retrying (${attempt}/${PORT_RETRIES})`);
    }
  }
}

async function startIn(dir: string, options: StartOptions): Promise<ControlPlane> {
  const started = Date.now();
  const [etcdClient, etcdPeer, apiserverPort, managerPort, schedulerPort] = await freePorts(5);
  const server = `https://127.0.0.1:${apiserverPort}`;
  const node = options.node;
  const pki = await makePki(dir, node ? [node.advertiseIp, node.apiServiceIp] : ['10.0.0.1']);
  const tokens = { admin: token(), manager: token(), scheduler: token(), proxy: token() };
  await writeFile(join(dir, 'tokens.csv'), [
    `${tokens.admin},walrus-test-admin,walrus-test-admin,"system:masters"`,
    `${tokens.manager},system:kube-controller-manager,system:kube-controller-manager`,
    `${tokens.scheduler},system:kube-scheduler,system:kube-scheduler`,
    // The default ClusterRoleBinding system:node-proxier grants this user what kube-proxy reads.
    `${tokens.proxy},system:kube-proxy,system:kube-proxy`,
  ].join('\n') + '\n', { mode: 0o600 });
  const kubeconfigPath = join(dir, 'kubeconfig');
  await writeKubeconfig(kubeconfigPath, server, pki.caCert, tokens.admin);
  await writeKubeconfig(join(dir, 'manager.kubeconfig'), server, pki.caCert, tokens.manager);
  await writeKubeconfig(join(dir, 'scheduler.kubeconfig'), server, pki.caCert, tokens.scheduler);
  const proxyKubeconfigPath = node ? join(dir, 'kube-proxy.kubeconfig') : undefined;
  if (node && proxyKubeconfigPath) await writeKubeconfig(proxyKubeconfigPath, `https://${node.advertiseIp}:${apiserverPort}`, pki.caCert, tokens.proxy);

  const children = new Map<Component, ChildProcess>();
  const exits = new Map<Component, string>();
  const launch = (name: Component, command: string, args: string[]) => {
    const child = spawnLogged(dir, name, command, args, options.dieWithParent);
    child.on('exit', (code, signal) => exits.set(name, `exited (${signal ?? `code ${code}`})`));
    child.on('error', (err) => exits.set(name, `could not be started (${err.message})`));
    children.set(name, child);
  };
  // Fails fast with the component's own last words when it dies while we wait for it.
  const wait = async (name: Component, ready: () => Promise<boolean>) => {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const [dead] = exits;
      if (dead) {
        const [component, how] = dead;
        throw new ControlPlaneError(`${component} ${how} while starting; its log ends:\n${logTail(dir, component)}`, { component });
      }
      if (await ready().catch(() => false)) return;
      if (Date.now() > deadline) {
        throw new ControlPlaneError(`${name} not ready after ${START_TIMEOUT_MS / 1000}s; its log ends:\n${logTail(dir, name)}`, { component: name });
      }
      await sleep(200);
    }
  };
  const timings: string[] = [];
  const lap = (what: string) => timings.push(`${what} ${((Date.now() - started) / 1000).toFixed(1)}s`);

  try {
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    launch('etcd', 'etcd', [
      '--name=walrus-test', `--data-dir=${join(dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`, `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`, `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=walrus-test=http://127.0.0.1:${etcdPeer}`, '--log-level=warn',
    ]);
    await wait('etcd', async () => (await get(`${etcdUrl}/health`)).body.includes('"health":"true"'));
    lap('etcd');

    launch('kube-apiserver', join(options.binDir, 'kube-apiserver'), [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1', `--advertise-address=${node?.advertiseIp ?? '127.0.0.1'}`, `--secure-port=${apiserverPort}`, '--insecure-port=0',
      `--tls-cert-file=${pki.serverCert}`, `--tls-private-key-file=${pki.serverKey}`, `--client-ca-file=${pki.caCert}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`, '--authorization-mode=RBAC', '--anonymous-auth=false',
      `--service-account-key-file=${pki.serviceAccountPublic}`, `--service-account-signing-key-file=${pki.serviceAccountKey}`,
      '--service-account-issuer=https://kubernetes.default.svc', '--api-audiences=https://kubernetes.default.svc',
      `--service-cluster-ip-range=${node?.serviceCidr ?? '10.0.0.0/24'}`, '--allow-privileged=true',
      // On by default in 1.20; named so that a tenant namespace's ResourceQuota and LimitRange surely apply.
      '--enable-admission-plugins=ResourceQuota,LimitRanger',
      // The node's Hostname address is its name, which no resolver knows: `pods/log` dials the InternalIP.
      '--kubelet-preferred-address-types=InternalIP,Hostname',
      // Endpoints may not hold a loopback address: without a node the `kubernetes` service gets none.
      ...(node ? [] : ['--endpoint-reconciler-type=none']), '--profiling=false', '--v=1',
    ]);
    await wait('kube-apiserver', async () => (await get(`${server}/readyz`, { ca: pki.caCert, token: tokens.admin })).status === 200);
    lap('apiserver');

    launch('kube-controller-manager', join(options.binDir, 'kube-controller-manager'), [
      `--kubeconfig=${join(dir, 'manager.kubeconfig')}`,
      `--authentication-kubeconfig=${join(dir, 'manager.kubeconfig')}`, `--authorization-kubeconfig=${join(dir, 'manager.kubeconfig')}`,
      '--bind-address=127.0.0.1', `--secure-port=${managerPort}`, '--port=0', `--cert-dir=${join(dir, 'manager-certs')}`,
      '--leader-elect=false', '--use-service-account-credentials=true',
      ...(node?.nodeMonitorGraceSeconds ? [`--node-monitor-grace-period=${node.nodeMonitorGraceSeconds}s`, '--node-monitor-period=2s'] : []),
      `--service-account-private-key-file=${pki.serviceAccountKey}`, `--root-ca-file=${pki.caCert}`,
      `--cluster-signing-cert-file=${pki.caCert}`, `--cluster-signing-key-file=${pki.caKey}`,
      '--profiling=false', '--v=1',
    ]);
    launch('kube-scheduler', join(options.binDir, 'kube-scheduler'), [
      `--kubeconfig=${join(dir, 'scheduler.kubeconfig')}`,
      `--authentication-kubeconfig=${join(dir, 'scheduler.kubeconfig')}`, `--authorization-kubeconfig=${join(dir, 'scheduler.kubeconfig')}`,
      '--bind-address=127.0.0.1', `--secure-port=${schedulerPort}`, '--port=0', `--cert-dir=${join(dir, 'scheduler-certs')}`,
      '--leader-elect=false', '--profiling=false', '--v=1',
    ]);
    // The service-account controller creating `default` proves the controller manager is running its controllers.
    await wait('kube-controller-manager', async () =>
      (await get(`${server}/api/v1/namespaces/default/serviceaccounts/default`, { ca: pki.caCert, token: tokens.admin })).status === 200);
    lap('controller-manager');
    await wait('kube-scheduler', async () => (await get(`https://127.0.0.1:${schedulerPort}/healthz`, { insecure: true })).status === 200);
    lap('scheduler');
  } finally {
    // Written even when starting failed: it is how stopControlPlane finds what to stop.
    await writeFile(join(dir, 'plane.json'), JSON.stringify({ pids: pidsOf(children), server }, null, 2) + '\n');
  }
  options.log?.(`k8s: control plane up in ${((Date.now() - started) / 1000).toFixed(1)}s (ready at: ${timings.join(', ')}) at ${server}, files in ${dir}`);
  return { dir, kubeconfigPath, server, pids: pidsOf(children) as Record<Component, number>, port: apiserverPort, proxyKubeconfigPath };
}

/**
 * Stops the processes a plane recorded in `dir` (and only those: each must still be running with `dir`
 * on its command line), gracefully then by force, and removes the directory.
 */
export async function stopControlPlane(dir: string): Promise<void> {
  await terminate(ownPids(dir), { pid: (pid) => pid, isRunning, graceMs: 10_000, pollMs: 100 });
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
}

/** The synchronous last resort for a process that is exiting: no waiting, nothing left running. */
export function killControlPlaneSync(dir: string): void {
  for (const pid of ownPids(dir)) signal(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}

const pidsOf = (children: Map<Component, ChildProcess>): Partial<Record<Component, number>> =>
  Object.fromEntries([...children].flatMap(([name, child]) => (child.pid === undefined ? [] : [[name, child.pid]])));

/**
 * A run killed outright leaves its directory behind (its processes die with it), and on tmpfs that is memory.
 * Removes such directories once nothing of theirs runs; a young one may be a parallel run still starting.
 */
function sweepAbandoned(): void {
  const root = scratchRoot();
  for (const name of readdirSync(root)) {
    const dir = join(root, name);
    if (!name.startsWith('grw-k8s-')) continue;
    try {
      if (Date.now() - statSync(dir).mtimeMs > 10 * 60_000 && ownPids(dir).length === 0) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by its owner.
    }
  }
}

function ownPids(dir: string): number[] {
  let recorded: Record<string, number>;
  try {
    recorded = JSON.parse(readFileSync(join(dir, 'plane.json'), 'utf8')).pids;
  } catch {
    return [];
  }
  // A recorded PID counts only while it still names our process: PIDs get reused.
  return Object.values(recorded).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
    } catch {
      return false;
    }
  });
}

function isRunning(pid: number): boolean {
  try {
    // A zombie (state Z) has exited; it only waits for its parent to reap it.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function spawnLogged(dir: string, name: Component, command: string, args: string[], dieWithParent: boolean): ChildProcess {
  const fd = openSync(logPath(dir, name), 'a');
  try {
    const [file, argv] = dieWithParent ? ['setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]] : [command, args];
    const child = spawn(file, argv, { stdio: ['ignore', fd, fd], detached: !dieWithParent });
    // The components must not keep a test run alive; their exit is arranged explicitly.
    child.unref();
    return child;
  } finally {
    closeSync(fd);
  }
}

const logPath = (dir: string, name: Component) => join(dir, `${name}.log`);

function logTail(dir: string, name: Component, lines = 25): string {
  try {
    return readFileSync(logPath(dir, name), 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve(s));
  })));
  const ports = servers.map((s) => (s.address() as AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/**
 * etcd fsyncs every write; on tmpfs that costs nothing, and a test store needs no durability. Its WAL
 * preallocates 64 MiB files, so a small /dev/shm (as in some containers) is passed over.
 */
function scratchRoot(): string {
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize >= 1024 ** 3) return '/dev/shm';
  } catch {
    // No /dev/shm here.
  }
  return tmpdir();
}

const token = () => randomBytes(24).toString('hex');

interface Pki {
  caCert: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  serviceAccountKey: string;
  serviceAccountPublic: string;
}

/**
 * A throwaway CA, the apiserver's serving certificate (valid for loopback and `extraIps`) and the
 * service-account signing key pair (EC P-256).
 */
async function makePki(dir: string, extraIps: readonly string[]): Promise<Pki> {
  const pki = join(dir, 'pki');
  await mkdir(pki, { mode: 0o700 });
  const at = (name: string) => join(pki, name);
  await writeFile(at('openssl.cnf'), [
    '[req]', 'distinguished_name = dn', 'prompt = no', '[dn]', 'CN = git-remote-walrus test CA',
    '[ca_ext]', 'basicConstraints = critical, CA:TRUE', 'keyUsage = critical, keyCertSign, cRLSign, digitalSignature',
    'subjectKeyIdentifier = hash',
    '[server_ext]', 'basicConstraints = critical, CA:FALSE', 'keyUsage = critical, digitalSignature, keyEncipherment',
    'extendedKeyUsage = serverAuth',
    `subjectAltName = IP:127.0.0.1, DNS:localhost, ${extraIps.map((ip) => `IP:${ip}, `).join('')}DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc`,
  ].join('\n') + '\n');
  const openssl = (...args: string[]) => run('openssl', args, { cwd: pki });
  await Promise.all(['ca.key', 'server.key', 'sa.key'].map((key) => openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key)));
  await openssl('req', '-x509', '-new', '-key', 'ca.key', '-config', 'openssl.cnf', '-extensions', 'ca_ext', '-days', '7', '-out', 'ca.crt');
  await openssl('req', '-new', '-key', 'server.key', '-config', 'openssl.cnf', '-subj', '/CN=kube-apiserver', '-out', 'server.csr');
  await openssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-set_serial', '2', '-days', '7',
    '-extfile', 'openssl.cnf', '-extensions', 'server_ext', '-out', 'server.crt');
  await openssl('ec', '-in', 'sa.key', '-pubout', '-out', 'sa.pub');
  return {
    caCert: at('ca.crt'), caKey: at('ca.key'), serverCert: at('server.crt'), serverKey: at('server.key'),
    serviceAccountKey: at('sa.key'), serviceAccountPublic: at('sa.pub'),
  };
}

async function writeKubeconfig(path: string, server: string, caCert: string, bearer: string): Promise<void> {
  await writeFile(path, `apiVersion: v1
kind: Config
clusters:
- name: walrus-test
  cluster:
    server: ${server}
    certificate-authority: ${caCert}
users:
- name: walrus-test
  user:
    token: ${bearer}
contexts:
- name: walrus-test
  context:
    cluster: walrus-test
    user: walrus-test
current-context: walrus-test
`, { mode: 0o600 });
}

interface GetOptions {
  ca?: string;
  token?: string;
  /** Only for probing a component's self-signed health endpoint, never for the API. */
  insecure?: boolean;
}

async function get(url: string, options: GetOptions = {}): Promise<{ status: number; body: string }> {
  if (url.startsWith('http:')) {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return { status: response.status, body: await response.text() };
  }
  const ca = options.ca ? await readFile(options.ca) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      ca, rejectUnauthorized: !options.insecure, timeout: 2000,
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
    }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout'))).on('error', reject).end();
  });
}
