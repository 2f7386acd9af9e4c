/**
 * The Node object and its heartbeat: registration with capacity and addresses, the Ready condition and
 * node status every 10 s, and the node's Lease in kube-node-lease renewed every 10 s (40 s duration), as
 * the 1.20 kubelet does. Without them the node lifecycle controller taints the node and evicts its pods.
 */
import { statfsSync } from 'node:fs';
import { cpus, hostname, release, totalmem } from 'node:os';
import { CoordinationV1Api, CoreV1Api, PatchStrategy, V1MicroTime, setHeaderOptions } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { sleep } from '../signals.ts';

const LEASE_NAMESPACE = 'kube-node-lease';
const LEASE_SECONDS = 40;
export const HEARTBEAT_MS = 10_000;
export const MAX_PODS = 110;
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export interface NodeStatusOptions {
  nodeName: string;
  nodeIp: string;
  /** Where the apiserver reaches the kubelet (`pods/log`), on nodeIp. */
  kubeletPort: number;
  stateDir: string;
  log: (line: string) => void;
}

export class NodeStatus {
  readonly #core: CoreV1Api;
  readonly #leases: CoordinationV1Api;
  readonly #startedAt = new Date();
  #timer?: NodeJS.Timeout;
  #stopped = false;
  private readonly options: NodeStatusOptions;

  constructor(kc: KubeConfig, options: NodeStatusOptions) {
    this.options = options;
    this.#core = kc.makeApiClient(CoreV1Api);
    this.#leases = kc.makeApiClient(CoordinationV1Api);
  }

  /** Registers the node (taking over one left by a dead kubelet of the same name) and starts the heartbeat. */
  async register(): Promise<void> {
    const { nodeName } = this.options;
    const labels = { 'kubernetes.io/hostname': nodeName, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' };
    const node = await this.#core.createNode({ body: { metadata: { name: nodeName, labels } } })
      .catch(async (err) => {
        if (err?.code !== 409) throw err;
        return this.#core.readNode({ name: nodeName });
      });
    const lease = {
      metadata: { name: nodeName, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata!.uid! }] },
      // Lease times are MicroTime (six fractional digits, which V1MicroTime writes; a Date's three are rejected).
      spec: { holderIdentity: nodeName, leaseDurationSeconds: LEASE_SECONDS, renewTime: new V1MicroTime() },
    };
    await this.#leases.createNamespacedLease({ namespace: LEASE_NAMESPACE, body: lease }).catch((err) => {
      if (err?.code !== 409) throw err;
    });
    await this.beat();
    this.#timer = setInterval(() => {
      this.beat().catch((err) => { if (!this.#stopped) this.options.log(`kubelet ${nodeName}: heartbeat: ${err?.body ?? err}`); });
    }, HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** One heartbeat: node status (conditions, capacity, addresses) and the Lease's renewTime. */
  async beat(): Promise<void> {
    const { nodeName, nodeIp } = this.options;
    const now = new Date().toISOString();
    const since = this.#startedAt.toISOString();
    const condition = (type: string, status: string, reason: string, message: string) =>
      ({ type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: since });
    const disk = statfsSync(this.options.stateDir);
    const resources = {
      cpu: String(cpus().length),
      memory: `${Math.floor(totalmem() / 1024)}Ki`,
      pods: String(MAX_PODS),
      'ephemeral-storage': `${Math.floor((disk.blocks * disk.bsize) / 1024)}Ki`,
    };
    await this.#core.patchNodeStatus({
      name: nodeName,
      body: {
        status: {
          capacity: resources,
          allocatable: resources,
          conditions: [
            condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
            condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
            condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
            condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
          ],
          addresses: [{ type: 'InternalIP', address: nodeIp }, { type: 'Hostname', address: nodeName }],
          daemonEndpoints: { kubeletEndpoint: { Port: this.options.kubeletPort } },
          nodeInfo: {
            machineID: nodeName, systemUUID: nodeName, bootID: since, kernelVersion: release(), osImage: `process kubelet on ${hostname()}`,
            containerRuntimeVersion: 'process://1', kubeletVersion: 'v1.20.2', kubeProxyVersion: 'v1.20.2',
            operatingSystem: 'linux', architecture: 'amd64',
          },
        },
      },
    }, mergePatch);
    await this.#leases.patchNamespacedLease({
      name: nodeName, namespace: LEASE_NAMESPACE,
      body: { spec: { renewTime: new V1MicroTime(), holderIdentity: nodeName, leaseDurationSeconds: LEASE_SECONDS } },
    }, mergePatch);
  }

  /** Waits until the node lifecycle controller has lifted the not-ready taint (new nodes carry it). */
  async untilSchedulable(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const node = await this.#core.readNode({ name: this.options.nodeName });
      const taints = (node.spec?.taints ?? []).filter((t) => t.key.startsWith('node.kubernetes.io/'));
      if (taints.length === 0) return;
      if (Date.now() > deadline) throw new Error(`node ${this.options.nodeName} still tainted after ${timeoutMs / 1000}s: ${JSON.stringify(taints)}`);
      await sleep(200);
    }
  }

  /** Stops the heartbeat and deletes the Node (its Lease goes with it, by owner reference). */
  async stop(): Promise<void> {
    this.halt();
    await this.#core.deleteNode({ name: this.options.nodeName }).catch(() => {});
  }

  /** Stops the heartbeat and leaves the Node as it is: what a dead machine does. */
  halt(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }
}
