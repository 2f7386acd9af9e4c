/**
 * `npm run k8s:up [-- --nodes N]`: starts a cluster (node network, control plane, and per node a process
 * kubelet and kube-proxy; one node unless told) owned by a runner process that outlives this command,
 * and prints how to use it. `npm run k8s:down [-- RUN]`
 * stops it (by default the last one started here) and removes everything it made; a run whose runner
 * died is removed from its state file.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sweepDeadRuns, teardownRun } from './node/cleanup.ts';
import { startCluster } from './node/node.ts';
import { REGISTRY_DIR, isAlive, readState } from './node/run-state.ts';
import { signal, sleep } from './signals.ts';

// The run `up` started last and the directory of its runner's log, for a `down` without arguments.
const CURRENT = join(REGISTRY_DIR, 'current');
const current = async (): Promise<{ runId?: string; dir?: string }> => JSON.parse(await readFile(CURRENT, 'utf8').catch(() => '{}'));
const log = (line: string) => process.stderr.write(`${line}\n`);

interface Ready {
  runId: string;
  kubeconfig: string;
  binDir: string;
  kubectl: string;
  hostIp: string;
  ingress: string;
  serviceCidr: string;
  nodes: { name: string; podCidr: string; nodeIp: string }[];
  logs: string[];
}

/** `--nodes N` (1..9), 1 without it. */
function nodeCount(args: readonly string[]): number {
  const at = args.indexOf('--nodes');
  if (at < 0) return 1;
  const count = Number(args[at + 1]);
  if (!Number.isInteger(count) || count < 1 || count > 9) throw new Error(`--nodes takes a number of nodes from 1 to 9, not ${JSON.stringify(args[at + 1] ?? '')}`);
  return count;
}

async function up(args: readonly string[]): Promise<void> {
  const nodes = nodeCount(args);
  const dir = await mkdtemp(join(tmpdir(), 'grw-k8s-up-'));
  const readyFile = join(dir, 'ready.json');
  const runnerLog = join(dir, 'runner.log');
  const fd = openSync(runnerLog, 'a');
  const runner = spawn(process.execPath, [fileURLToPath(import.meta.url), 'serve', readyFile, String(nodes)], { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  runner.unref();
  const exited = new Promise<string>((resolve) => runner.on('exit', (code, signal) => resolve(signal ?? `code ${code}`)));
  let printed = 0;
  const follow = () => {
    const text = existsSync(runnerLog) ? readFileSync(runnerLog, 'utf8') : '';
    process.stderr.write(text.slice(printed));
    printed = text.length;
  };
  for (;;) {
    follow();
    if (existsSync(readyFile)) break;
    const how = await Promise.race([exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 200))]);
    if (how !== undefined) {
      follow();
      log(`k8s: the cluster runner exited (${how}) before the cluster was up; its log: ${runnerLog}`);
      process.exitCode = 1;
      return;
    }
  }
  const ready = JSON.parse(await readFile(readyFile, 'utf8')) as Ready;
  await writeFile(CURRENT, JSON.stringify({ runId: ready.runId, dir }) + '\n');
  process.stdout.write([
    `export KUBECONFIG=${ready.kubeconfig}`,
    `export PATH=${ready.binDir}:$PATH`,
    `# kubectl: ${ready.kubectl} (the one built with the plane; the PATH line puts it first)`,
    ...ready.nodes.map((node) => `# node ${node.name}: pods ${node.podCidr}, InternalIP ${node.nodeIp}`),
    `# services ${ready.serviceCidr}; bind test servers pods must reach to ${ready.hostIp}`,
    `# ingress (nginx, class nginx): curl -H 'Host: <an Ingress host>' http://${ready.ingress}/`,
    `# logs: ${[runnerLog, ...ready.logs].join(' ')}`,
    `# stop: npm run k8s:down (this run: npm run k8s:down -- ${ready.runId})`,
  ].join('\n') + '\n');
}

/** The runner: owns the cluster (the kubelet runs in it) until SIGTERM or SIGINT. */
async function serve(readyFile: string, nodes: number): Promise<void> {
  const cluster = await startCluster({ log, nodes });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= cluster.stop().then(() => process.exit(0), (err: Error) => { log(`k8s: stopping failed: ${err.message}`); process.exit(1); });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);
  // Keeps the runner alive: the cluster's own handles are unref'd so that test processes can exit.
  setInterval(() => {}, 1 << 30);
  const ready: Ready = {
    runId: cluster.network.runId, kubeconfig: cluster.plane.kubeconfigPath,
    binDir: join(cluster.kubectl, '..'), kubectl: cluster.kubectl,
    hostIp: cluster.network.hostIp, ingress: cluster.ingress.address, serviceCidr: cluster.network.serviceCidr,
    nodes: cluster.nodes.map((node) => ({ name: node.name, podCidr: node.network.podCidr, nodeIp: node.network.nodeIp })),
    logs: [cluster.logs.plane, cluster.logs.kubeProxy, cluster.ingress.dir, cluster.stateDir],
  };
  await writeFile(readyFile, JSON.stringify(ready));
}

async function down(runArg: string | undefined): Promise<void> {
  const last = await current();
  const runId = runArg ?? last.runId;
  if (runId) {
    const state = readState(runId);
    if (!state) log(`k8s: run ${runId} is already gone`);
    else {
      if (isAlive(state)) {
        signal(state.owner.pid, 'SIGTERM');
        const deadline = Date.now() + 30_000;
        while (readState(runId) && isAlive(state) && Date.now() < deadline) await sleep(100);
        if (isAlive(state)) signal(state.owner.pid, 'SIGKILL');
      }
      // The runner removes its run when it stops; whatever is left (it was killed, or died before) goes here.
      const left = readState(runId);
      if (left) await teardownRun(left, log);
      log(`k8s: run ${runId} stopped and removed`);
    }
    if (last.runId === runId) {
      if (last.dir) await rm(last.dir, { recursive: true, force: true });
      await rm(CURRENT, { force: true });
    }
  } else {
    log('k8s: no run recorded as started here; removing what dead runs left, if anything');
  }
  await sweepDeadRuns(log);
}

const [command, ...args] = process.argv.slice(2);
if (command === 'up') await up(args);
else if (command === 'serve') await serve(args[0], Number(args[1] ?? 1));
else if (command === 'down') await down(args[0]);
else {
  log('usage: node test/cluster/plane.ts up [--nodes N] | down [RUN]');
  process.exitCode = 2;
}
