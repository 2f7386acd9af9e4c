/**
 * One run's cluster: the node network, the control plane serving it, and on each node the process
 * kubelet, kube-proxy and the NetworkPolicy enforcer, started in that order and stopped in the reverse
 * one. Everything it starts is recorded in the run's state file, so `k8s:down` or the next run's sweep
 * removes it even after a crash. A node can be killed (the machine loses power) and started again.
 */
import { readFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ControlPlane } from '../control-plane.ts';
import { ensureBinaries, startControlPlane } from '../control-plane.ts';
import type { Kubelet } from '../kubelet/kubelet.ts';
import { startKubelet } from '../kubelet/kubelet.ts';
import type { IngressStandIn } from '../ingress/ingress.ts';
import { startIngress } from '../ingress/ingress.ts';
import type { LoadBalancers } from '../ingress/load-balancer.ts';
import { startLoadBalancers } from '../ingress/load-balancer.ts';
import type { ApiRelay } from './api-relay.ts';
import { startApiRelay } from './api-relay.ts';
import type { KubeProxy } from './kube-proxy.ts';
import { startKubeProxy } from './kube-proxy.ts';
import type { NodeNetwork } from './network.ts';
import type { NetworkPolicyEnforcer } from './netpol/enforcer.ts';
import { startNetworkPolicyEnforcer } from './netpol/enforcer.ts';
import { createNodeNetwork } from './network.ts';
import { nodeNames } from './addressing.ts';
import { sleep } from '../signals.ts';

export interface ClusterNode {
  /** The Node's name (its `kubernetes.io/hostname` label too). */
  readonly name: string;
  readonly network: NodeNetwork;
  /** Whether its kubelet and kube-proxy run (false between kill() and start()). */
  readonly running: boolean;
  /** The pod's log, while the pod runs on this node. */
  podLogPath(namespace: string, name: string): string;
  /**
   * The machine dies: the kubelet stops without a word to the API (no status, no deletion), every process of its
   * pods, kube-proxy and the policy enforcer die, and its link goes down, so nothing sent to it is answered. On the
   * first node that takes the ingress stand-in (on its bridge) off the air too.
   */
  kill(): Promise<void>;
  /** The machine boots again after kill(): link up, then kube-proxy, the enforcer and the kubelet, which takes its Node back. */
  start(): Promise<void>;
}

export interface Cluster {
  /** The first node's network (the Service range, the ingress and load balancers are on it). */
  readonly network: NodeNetwork;
  readonly plane: ControlPlane;
  /** The first node (and kube-proxy's hostname there). */
  readonly nodeName: string;
  /** Every node, the first one first. */
  readonly nodes: readonly ClusterNode[];
  /** The kubectl built with the plane: use it, never another one on PATH. */
  readonly kubectl: string;
  /** The run's temporary files (kubelet state, pod logs, kube-proxy log). */
  readonly stateDir: string;
  /** The first node's kubelet. */
  readonly kubelet: Kubelet;
  /** The ingress controller stand-in (nginx on the bridge): `http://<ingress.address>/` with a `Host:` header. */
  readonly ingress: IngressStandIn;
  readonly logs: { readonly plane: string; readonly kubeProxy: string };
  /** Seconds from the start of startCluster at which each part was ready. */
  readonly timings: Readonly<Record<string, number>>;
  /** Stops the ingress, every node, the relay and the plane, then removes the network and the run. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  log: (line: string) => void;
  /** How many nodes (1 by default); with more, a silent node is marked NotReady after 20 s instead of 40 s. */
  nodes?: number;
}

/** A multi-node run's node monitor grace period: two missed heartbeats of 10 s. */
const MULTI_NODE_GRACE_SECONDS = 20;

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { log } = options;
  const count = options.nodes ?? 1;
  const started = Date.now();
  const timings: Record<string, number> = {};
  const lap = (what: string) => { timings[what] = (Date.now() - started) / 1000; };
  const binDir = await ensureBinaries();
  lap('binaries');
  const stateDir = await mkdtemp(join(tmpdir(), 'grw-node-'));
  const network = await createNodeNetwork({ stateDir, log, nodes: count });
  lap('network');
  let plane: ControlPlane | undefined;
  let relay: ApiRelay | undefined;
  const nodes: ReturnType<typeof clusterNode>[] = [];
  let ingress: IngressStandIn | undefined;
  let loadBalancers: LoadBalancers | undefined;
  const stop = async () => {
    await loadBalancers?.stop();
    await ingress?.stop();
    for (const node of [...nodes].reverse()) await node.shutdown();
    await relay?.close();
    // The plane, whatever else was recorded, the namespaces, link, routes, rules and files.
    await network.destroy();
  };
  try {
    plane = await startControlPlane({
      binDir, dieWithParent: true, log,
      node: {
        serviceCidr: network.serviceCidr, apiServiceIp: network.apiServiceIp, advertiseIp: network.hostIp,
        ...(count > 1 ? { nodeMonitorGraceSeconds: MULTI_NODE_GRACE_SECONDS } : {}),
      },
    });
    const planeDir = plane.dir;
    network.record((state) => { state.planeDir = planeDir; });
    lap('plane');
    // The `kubernetes` Service's endpoint is the first node's hostIp on the apiserver's own port.
    relay = await startApiRelay({ host: network.hostIp, port: plane.port }, { host: '127.0.0.1', port: plane.port });
    for (const nodeNetwork of network.nodes) {
      const node = clusterNode({ binDir, plane, network: nodeNetwork, stateDir, log });
      nodes.push(node);
      await node.start();
    }
    lap('nodes');
    const standIn = await startIngress({ network, kubeconfigPath: plane.kubeconfigPath, stateDir, log });
    ingress = standIn;
    network.record((state) => { state.processes.push(standIn.process); });
    loadBalancers = await startLoadBalancers({ kubeconfigPath: plane.kubeconfigPath, pool: network.loadBalancerPool, log });
    lap('ingress');
    log(`k8s: cluster of ${count} node(s) up in ${timings.ingress.toFixed(1)}s (${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(1)}s`).join(', ')})`);
    const first = nodes[0];
    return {
      network, plane, nodeName: first.name, nodes, kubectl: join(binDir, 'kubectl'), stateDir, ingress: standIn,
      get kubelet() { return first.kubelet; },
      logs: { plane: plane.dir, kubeProxy: first.kubeProxyLog }, timings, stop,
    };
  } catch (err) {
    await stop().catch((cleanupErr: Error) => log(`k8s: cleanup after a failed start failed too: ${cleanupErr.message}`));
    throw err;
  }
}

interface NodeParts {
  binDir: string;
  plane: ControlPlane;
  network: NodeNetwork;
  stateDir: string;
  log: (line: string) => void;
}

/** One node of the cluster: its kubelet, kube-proxy and policy enforcer, which it starts, stops and kills together. */
function clusterNode(parts: NodeParts): ClusterNode & { readonly kubelet: Kubelet; readonly kubeProxyLog: string; shutdown(): Promise<void> } {
  const { binDir, plane, network, log } = parts;
  const { nodeName: name } = nodeNames(network.runId, network.ordinal);
  const suffix = network.ordinal === 1 ? '' : `-${network.ordinal}`;
  const kubeletDir = join(parts.stateDir, `kubelet${suffix}`);
  const kubeProxyLog = join(parts.stateDir, `kube-proxy${suffix}.log`);
  let kubelet: Kubelet | undefined;
  let proxy: KubeProxy | undefined;
  let netpol: NetworkPolicyEnforcer | undefined;
  const halt = async (how: 'stop' | 'kill') => {
    const [k, p, n] = [kubelet, proxy, netpol];
    kubelet = proxy = netpol = undefined;
    if (how === 'kill') await k?.kill();
    await n?.stop();
    await p?.stop();
    if (how === 'stop') await k?.stop();
  };
  return {
    name, network, kubeProxyLog,
    get running() { return kubelet !== undefined; },
    get kubelet() {
      if (!kubelet) throw new Error(`node ${name} is not running`);
      return kubelet;
    },
    podLogPath: (namespace, pod) => join(kubeletDir, 'logs', `${namespace}_${pod}.log`),
    async start() {
      if (kubelet) return;
      await network.powerOn();
      kubelet = await startKubelet({ kubeconfigPath: plane.kubeconfigPath, nodeName: name, network, stateDir: kubeletDir, log });
      const kubeProxy = startKubeProxy({ binDir, network, kubeconfigPath: plane.proxyKubeconfigPath!, nodeName: name, logPath: kubeProxyLog });
      proxy = kubeProxy;
      network.record((state) => { state.processes.push(kubeProxy.process); });
      if (network.ordinal === 1) await waitForServiceRoute(network, plane, kubeProxy, kubeProxyLog);
      else await waitForProxyHealth(network, kubeProxy, kubeProxyLog);
      // After kube-proxy's first sync, so its jumps are in FORWARD and ours goes before them.
      const kc = new KubeConfig();
      kc.loadFromFile(plane.kubeconfigPath);
      netpol = await startNetworkPolicyEnforcer({ kc, network, log });
    },
    async kill() {
      await halt('kill');
      await network.powerOff();
      log(`k8s: node ${name} killed`);
    },
    shutdown: () => halt('stop'),
  };
}

/** Waits until kube-proxy on a node answers its health check: it has synced its rules once. */
async function waitForProxyHealth(network: NodeNetwork, proxy: KubeProxy, proxyLog: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    proxy.checkAlive();
    const status = await fetch(`http://${network.nodeIp}:10256/healthz`, { signal: AbortSignal.timeout(1000) }).then((res) => res.status, () => 0);
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`kube-proxy on ${network.nodeNetns} is not healthy after 60s (last status ${status}); see ${proxyLog}`);
    await sleep(200);
  }
}

/**
 * Waits until the host reaches the apiserver through the `kubernetes` Service's ClusterIP: proof that
 * kube-proxy has synced its rules and that the host route, the node's DNAT and the relay all work.
 */
async function waitForServiceRoute(network: NodeNetwork, plane: ControlPlane, proxy: KubeProxy, proxyLog: string): Promise<void> {
  const ca = readFileSync(join(plane.dir, 'pki', 'ca.crt'));
  const deadline = Date.now() + 60_000;
  let last = '';
  for (;;) {
    proxy.checkAlive();
    const reached = await new Promise<boolean>((resolve) => {
      const req = request({ host: network.apiServiceIp, port: 443, path: '/readyz', ca, timeout: 1000 }, (res) => {
        res.resume();
        // Anonymous requests are refused (401): any answer over verified TLS proves the path.
        resolve(true);
      });
      req.on('timeout', () => req.destroy(new Error('timeout'))).on('error', (err) => { last = err.message; resolve(false); }).end();
    });
    if (reached) return;
    if (Date.now() > deadline) throw new Error(`the kubernetes Service ${network.apiServiceIp}:443 is unreachable from the host after 60s (last: ${last}); see ${proxyLog} and \`ip netns exec ${network.nodeNetns} iptables-save\``);
    await sleep(200);
  }
}
