/**
 * The process kubelet: registers the node, keeps its Lease and status fresh, runs every pod the
 * scheduler binds to it as processes in the pod's own network namespace (see pod-worker.ts, runtime.ts), and
 * serves their logs on the node's address at the kubelet port for the apiserver's `pods/log` (log-server.ts).
 * `stop()` kills every process it started, removes every pod's namespace and files, and deletes the Node.
 */
import { readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import type { V1Pod } from '@kubernetes/client-node';
import type { NodeNetwork } from '../node/network.ts';
import { EventRecorder } from './events.ts';
import { describeImageMap, parseImageMap } from './images.ts';
import type { ImageMap } from './images.ts';
import { NodeStatus } from './node-status.ts';
import { PodSync } from './pod-sync.ts';
import { PodWorker } from './pod-worker.ts';
import type { VolumeSources } from './volumes.ts';
import { startLogServer } from './log-server.ts';
import { podLogsDir } from './container-logs.ts';
import { listenInNode, selfSignedCertificate } from './node-socket.ts';


export interface KubeletOptions {
  kubeconfigPath: string;
  nodeName: string;
  network: Pick<NodeNetwork, 'nodeIp' | 'attachPod' | 'detachPod' | 'spawnInNode'>;
  /** Per-pod dirs (volumes, container roots) and per-pod log files. */
  stateDir: string;
  /** Replaces the default image map; without it the default applies, overlaid by the JSON file in $GRW_K8S_IMAGE_MAP. */
  images?: ImageMap;
  log: (line: string) => void;
}

export interface Kubelet {
  stop(): Promise<void>;
  /**
   * The node dies: no more heartbeats, pod watches or API writes of any kind (the Node, its Lease and its pods stay
   * as they were last written), and every container is killed at once. The node lifecycle controller then finds the
   * node silent, as when a machine loses power.
   */
  kill(): Promise<void>;
  /** The pod's log: each line its containers write, prefixed with the container's name. */
  podLogPath(namespace: string, name: string): string;
}

/** The kubelet's port on its node's address (the node's namespace is the run's own, so the usual port is free). */
export const KUBELET_PORT = 10250;

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/**
 * Where both default images have the checkout, read-only: bin/ runs the checkout's node_modules Node and src/ (or
 * dist/), so the image is the whole tree, at a path no pod mounts a volume over.
 */
export const IMAGE_ROOT = '/opt/git-remote-walrus';
export const IMAGE_MAP_ENV = 'GRW_K8S_IMAGE_MAP';

/** `node:*` runs on the project's Node 22 (npm/npx shims included); the project's own image runs its bin/. */
export function defaultImageMap(projectRoot = PROJECT_ROOT): ImageMap {
  const files = { [IMAGE_ROOT]: projectRoot };
  const node = posix.join(IMAGE_ROOT, 'test/cluster/kubelet/images/node');
  return {
    'node:*': { files, path: [node], cmd: ['node'] },
    'git-remote-walrus:*': { files, path: [posix.join(IMAGE_ROOT, 'bin'), node] },
  };
}

function imageMap(options: KubeletOptions): { map: ImageMap; source: string } {
  if (options.images) return { map: options.images, source: 'the kubelet options' };
  const file = process.env[IMAGE_MAP_ENV];
  if (!file) return { map: defaultImageMap(), source: `the default; set ${IMAGE_MAP_ENV} to a JSON file to add images` };
  const extra = parseImageMap(JSON.parse(readFileSync(file, 'utf8')), file);
  // The file's patterns are tried first, so it can also override a default one.
  return { map: { ...extra, ...defaultImageMap() }, source: `${file} over the default` };
}

export async function startKubelet(options: KubeletOptions): Promise<Kubelet> {
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfigPath);
  const core = kc.makeApiClient(CoreV1Api);
  const { map: images, source } = imageMap(options);
  const describeImages = describeImageMap(images, source);
  const podsDir = join(options.stateDir, 'pods');
  const logsDir = join(options.stateDir, 'logs');
  // Where a runtime keeps container logs (/var/log/pods on a node).
  const containerLogsRoot = join(options.stateDir, 'container-logs');
  await mkdir(podsDir, { recursive: true });
  await mkdir(logsDir, { recursive: true });
  const podLogPath = (namespace: string, name: string) => join(logsDir, `${namespace}_${name}.log`);

  const decode = (data: Record<string, string> | undefined, base64: boolean) =>
    Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, base64 ? 'base64' : 'utf8')]));
  const absent = (err: { code?: number }) => {
    if (err?.code === 404) return undefined;
    throw err;
  };
  const sources: VolumeSources = {
    async services(namespace) {
      const [own, master] = await Promise.all([
        core.listNamespacedService({ namespace }),
        core.readNamespacedService({ name: 'kubernetes', namespace: 'default' }).then((s) => [s], (err) => absent(err) ?? []),
      ]);
      return [...master, ...own.items];
    },
    configMap: (namespace, name) => core.readNamespacedConfigMap({ name, namespace })
      .then((c) => ({ ...decode(c.data, false), ...decode(c.binaryData, true) }), absent),
    secret: (namespace, name) => core.readNamespacedSecret({ name, namespace }).then((s) => decode(s.data, true), absent),
    async serviceAccountToken(namespace, serviceAccount, audience, expirationSeconds) {
      const request = await core.createNamespacedServiceAccountToken({
        name: serviceAccount, namespace,
        body: { spec: { audiences: audience ? [audience] : [], expirationSeconds } },
      });
      return request.status?.token ?? '';
    },
  };

  const events = new EventRecorder(core, options.nodeName, options.log);
  const workers = new Map<string, PodWorker>();
  const finished = new Set<string>();
  const handlers = {
    upsert(pod: V1Pod) {
      const uid = pod.metadata!.uid!;
      const worker = workers.get(uid);
      if (worker) return worker.update(pod);
      if (finished.has(uid)) return;
      const created = new PodWorker(pod, {
        core, nodeIp: options.network.nodeIp,
        attachPod: (id) => options.network.attachPod(id), detachPod: (id) => options.network.detachPod(id),
        images, describeImages, sources, events,
        podDir: join(podsDir, uid), logPath: podLogPath(pod.metadata!.namespace!, pod.metadata!.name!), log: options.log,
        containerLogsDir: podLogsDir(containerLogsRoot, pod.metadata!.namespace!, pod.metadata!.name!, uid),
      });
      workers.set(uid, created);
      created.update(pod);
    },
    remove(uid: string) {
      const worker = workers.get(uid);
      if (!worker) return;
      workers.delete(uid);
      finished.add(uid);
      void worker.terminate('gone');
    },
    known: () => workers.keys(),
  };

  const certificate = await selfSignedCertificate(options.nodeName, options.network.nodeIp, options.stateDir);
  const socket = await listenInNode(options.network.spawnInNode, options.network.nodeIp, KUBELET_PORT);
  // The pod manager's view: of the pods with that name, the one bound last.
  const lookup = (namespace: string, name: string) => [...workers.values()].filter((w) => w.named(namespace, name)).at(-1)?.logged;
  const logServer = startLogServer(socket, certificate, lookup, options.log);
  const nodeStatus = new NodeStatus(kc, {
    nodeName: options.nodeName, nodeIp: options.network.nodeIp, kubeletPort: KUBELET_PORT, stateDir: options.stateDir, log: options.log,
  });
  const sync = new PodSync(kc, core, options.nodeName, handlers, options.log);
  try {
    await nodeStatus.register();
    await sync.start();
    await nodeStatus.untilSchedulable();
  } catch (err) {
    await sync.stop();
    await nodeStatus.stop();
    logServer.close();
    throw err;
  }
  const killWorkers = async () => {
    const all = [...workers.values()];
    workers.clear();
    await Promise.all(all.map((w) => w.terminate('kubelet')));
  };
  options.log(`kubelet: node ${options.nodeName} ready (InternalIP ${options.network.nodeIp}, state in ${options.stateDir})`);

  return {
    podLogPath,
    async stop() {
      await sync.stop();
      await killWorkers();
      await nodeStatus.stop();
      logServer.closeAllConnections();
      await new Promise((resolve) => logServer.close(resolve));
      await rm(containerLogsRoot, { recursive: true, force: true });
      await rm(podsDir, { recursive: true, force: true, maxRetries: 3 });
      await rm(logsDir, { recursive: true, force: true });
    },
    async kill() {
      events.silence();
      nodeStatus.halt();
      // A dead machine's sockets go with it: the node's next kubelet binds the same address.
      logServer.closeAllConnections();
      logServer.close();
      await sync.stop();
      await killWorkers();
    },
  };
}
