/**
 * One run's cluster: the node network, the control plane serving it, the process kubelet and
 * kube-proxy, started in that order and stopped in the reverse one. Everything it starts is recorded
 * in the run's state file, so `k8s:down` or the next run's sweep removes it even after a crash.
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
import type { ApiRelay } from './api-relay.ts';
import { startApiRelay } from './api-relay.ts';
import type { KubeProxy } from './kube-proxy.ts';
import { startKubeProxy } from './kube-proxy.ts';
import type { NodeNetwork } from './network.ts';
import type { NetworkPolicyEnforcer } from './netpol/enforcer.ts';
import { startNetworkPolicyEnforcer } from './netpol/enforcer.ts';
import { createNodeNetwork } from './network.ts';
import { sleep } from '../signals.ts';

export interface Cluster {
  readonly network: NodeNetwork;
  readonly plane: ControlPlane;
  /** The Node the kubelet registers (and kube-proxy's hostname). */
  readonly nodeName: string;
  /** The kubectl built with the plane: use it, never another one on PATH. */
  readonly kubectl: string;
  /** The run's temporary files (kubelet state, pod logs, kube-proxy log). */
  readonly stateDir: string;
  readonly kubelet: Kubelet;
  readonly logs: { readonly plane: string; readonly kubeProxy: string };
  /** Seconds from the start of startCluster at which each part was ready. */
  readonly timings: Readonly<Record<string, number>>;
  /** Stops kube-proxy, the kubelet, the relay and the plane, then removes the network and the run. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  log: (line: string) => void;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { log } = options;
  const started = Date.now();
  const timings: Record<string, number> = {};
  const lap = (what: string) => { timings[what] = (Date.now() - started) / 1000; };
  const binDir = await ensureBinaries();
  lap('binaries');
  const stateDir = await mkdtemp(join(tmpdir(), 'grw-node-'));
  const network = await createNodeNetwork({ stateDir, log });
  lap('network');
  let plane: ControlPlane | undefined;
  let relay: ApiRelay | undefined;
  let kubelet: Kubelet | undefined;
  let proxy: KubeProxy | undefined;
  let netpol: NetworkPolicyEnforcer | undefined;
  const stop = async () => {
    await netpol?.stop();
    await proxy?.stop();
    await kubelet?.stop();
    await relay?.close();
    // The plane, whatever else was recorded, the namespaces, link, routes, rules and files.
    await network.destroy();
  };
  try {
    plane = await startControlPlane({
      binDir, dieWithParent: true, log,
      node: { serviceCidr: network.serviceCidr, apiServiceIp: network.apiServiceIp, advertiseIp: network.hostIp },
    });
    const planeDir = plane.dir;
    network.record((state) => { state.planeDir = planeDir; });
    lap('plane');
    // The `kubernetes` Service's endpoint is hostIp on the apiserver's own port.
    relay = await startApiRelay({ host: network.hostIp, port: plane.port }, { host: '127.0.0.1', port: plane.port });
    const nodeName = `node-${network.runId}`;
    const started = await startKubelet({ kubeconfigPath: plane.kubeconfigPath, nodeName, network, stateDir: join(stateDir, 'kubelet'), log });
    kubelet = started;
    lap('kubelet');
    const kubeProxyLog = join(stateDir, 'kube-proxy.log');
    const kubeProxy = startKubeProxy({ binDir, network, kubeconfigPath: plane.proxyKubeconfigPath!, nodeName, logPath: kubeProxyLog });
    proxy = kubeProxy;
    network.record((state) => { state.processes.push(kubeProxy.process); });
    await waitForServiceRoute(network, plane, kubeProxy, kubeProxyLog);
    lap('kube-proxy');
    // After kube-proxy's first sync, so its jumps are in FORWARD and ours goes before them.
    const kc = new KubeConfig();
    kc.loadFromFile(plane.kubeconfigPath);
    netpol = await startNetworkPolicyEnforcer({ kc, network, log });
    lap('netpol');
    log(`k8s: cluster up in ${timings.netpol.toFixed(1)}s (${Object.entries(timings).map(([k, v]) => `${k} ${v.toFixed(1)}s`).join(', ')})`);
    return {
      network, plane, nodeName, kubectl: join(binDir, 'kubectl'), stateDir, kubelet: started,
      logs: { plane: plane.dir, kubeProxy: kubeProxyLog }, timings, stop,
    };
  } catch (err) {
    await stop().catch((cleanupErr: Error) => log(`k8s: cleanup after a failed start failed too: ${cleanupErr.message}`));
    throw err;
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
