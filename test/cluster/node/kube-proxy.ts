/**
 * kube-proxy (iptables mode, built with the plane) inside the node namespace: its KUBE-* chains live
 * there only, so they go with the namespace. Packets from the host link and from pods on the bridge
 * pass the node's PREROUTING, where Service ClusterIPs are DNATed to ready endpoints.
 */
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { NodeNetwork } from './network.ts';
import type { ProcessRef } from './run-state.ts';

export interface KubeProxyOptions {
  binDir: string;
  network: NodeNetwork;
  kubeconfigPath: string;
  nodeName: string;
  logPath: string;
}

export interface KubeProxy {
  readonly process: ProcessRef;
  /** Fails with the last log lines when kube-proxy has exited. */
  checkAlive(): void;
  stop(): Promise<void>;
}

export function startKubeProxy(options: KubeProxyOptions): KubeProxy {
  const { network } = options;
  const binary = join(options.binDir, 'kube-proxy');
  const fd = openSync(options.logPath, 'a');
  let child: ChildProcess;
  try {
    child = network.spawnInNode('setpriv', ['--pdeathsig', 'KILL', '--', binary,
      `--kubeconfig=${options.kubeconfigPath}`, '--proxy-mode=iptables',
      `--hostname-override=${options.nodeName}`, `--bind-address=${network.nodeIp}`,
      `--cluster-cidr=${network.podCidr}`,
      // Replies of a pod reached through a Service from a pod on the same bridge would skip the un-DNAT;
      // SNAT to the node makes them return through it.
      '--masquerade-all',
      // conntrack's table size and timeouts are machine-wide settings: left as they are.
      '--conntrack-max-per-core=0', '--conntrack-tcp-timeout-established=0', '--conntrack-tcp-timeout-close-wait=0',
      `--healthz-bind-address=${network.nodeIp}:10256`, `--metrics-bind-address=${network.nodeIp}:10249`,
      '--oom-score-adj=0', '--v=1',
    ], { stdio: ['ignore', fd, fd] });
  } finally {
    closeSync(fd);
  }
  child.unref();
  let exited: string | undefined;
  child.on('exit', (code, signal) => { exited = signal ?? `code ${code}`; });
  child.on('error', (err) => { exited = err.message; });
  const ref: ProcessRef = { name: 'kube-proxy', pid: child.pid ?? -1, match: options.kubeconfigPath };
  return {
    process: ref,
    checkAlive() {
      if (exited === undefined) return;
      const tail = readFileSync(options.logPath, 'utf8').trimEnd().split('\n').slice(-20).join('\n');
      throw new Error(`kube-proxy exited (${exited}); its log ends:\n${tail}`);
    },
    async stop() {
      if (exited !== undefined || child.pid === undefined) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(timer);
    },
  };
}
