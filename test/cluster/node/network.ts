/**
 * A run's node network. Everything lives in the run's own node namespaces (bridge, pods' veths,
 * kube-proxy's rules), so concurrent runs never share a bridge or a chain, and deleting the namespaces
 * removes them all at once. The host keeps only a veth to each node, routes and tagged rules:
 *
 *   host: <grw-run> hostIp/30 ── routes podCidr, serviceCidr via nodeIp; MASQUERADE podCidr to the world
 *   node netns grw-<run>-node: uplink nodeIp/30 (default via hostIp), bridge cbr0 (podCidr .1)
 *   pod netns grw-<run>-<uid8>: eth0 (pod IP, default via cbr0) ── v<uid8> on cbr0
 *
 * A run of several nodes gives node n (from 2) a subnet index of its own (its pod range, its /30 link
 * `grw-<run>-<n>` to the host, its namespace `grw-<run>-node<n>`); the host routes each node's pod range
 * to it, so pods of different nodes reach each other with their own addresses through the host, as
 * machines on one network do. The Service range, the ingress and the load balancer addresses are the
 * first node's.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import type { RunSubnets } from './addressing.ts';
import { chooseSubnets, hostRules, ingressNetnsName, INGRESS_BRIDGE_PORT, nextPodIp, nodeNames, podBridgePort, podNetnsName, runNames, subnetsFor } from './addressing.ts';
import { killProcessesIn, sweepDeadRuns, removeNetns, teardownRun } from './cleanup.ts';
import { NodeNetworkError, ipBatch, sh } from './exec.ts';
import type { RunState } from './run-state.ts';
import { enableIpForward, indexesOf, listStates, ownerOfThisProcess, readState, withRegistryLock, writeState } from './run-state.ts';

export interface NodeNetwork {
  readonly runId: string;
  /** 1 for the run's first node, 2.. for the others. */
  readonly ordinal: number;
  /** Every node of the run, the first one first (this one among them). */
  readonly nodes: readonly NodeNetwork[];
  readonly podCidr: string;
  readonly serviceCidr: string;
  /** Host end of the link: pods reach the host (and test servers) here. */
  readonly hostIp: string;
  /** Node-namespace end of the link: the Node's InternalIP. */
  readonly nodeIp: string;
  /** The bridge's address (podCidr .1): the pods' default gateway. */
  readonly bridgeIp: string;
  /** The node's network namespace (`grw-<run>-node`, `grw-<run>-node<n>`). */
  readonly nodeNetns: string;
  /** The `kubernetes` Service's ClusterIP (first address of serviceCidr). */
  readonly apiServiceIp: string;
  /** The ingress stand-in's address on the bridge (reserved: no pod gets it). */
  readonly ingressIp: string;
  /** Addresses the test cluster gives LoadBalancer Services (reserved: no pod gets them). */
  readonly loadBalancerPool: readonly string[];
  /**
   * Creates (idempotently) the ingress stand-in's namespace `grw-<run>-ingress` with ingressIp on the bridge, like a
   * pod's: its traffic to pods comes from ingressIp, never from the node.
   */
  attachIngress(): Promise<{ ip: string; netns: string }>;
  /** Spawns a process inside the ingress namespace. */
  spawnInIngress(command: string, args: string[], options: SpawnOptions): ChildProcess;
  /** Creates (idempotently) the pod's network namespace with its veth on the bridge; returns its IP. */
  attachPod(podUid: string): Promise<{ ip: string; netnsPath: string }>;
  /** Removes the pod's namespace and veth (killing anything still running in it); idempotent. */
  detachPod(podUid: string): Promise<void>;
  /** Spawns a process inside the node namespace (kube-proxy). */
  spawnInNode(command: string, args: string[], options: SpawnOptions): ChildProcess;
  /**
   * The machine goes off: every process in its pods' namespaces and its own is killed, the pods' namespaces
   * are removed, and its link goes down, so what is sent to it gets no answer (the sender's neighbour
   * lookup fails after a few seconds) as with a machine that lost power.
   */
  powerOff(): Promise<void>;
  /** The machine is back: its link up, its default route again. Its pods are the kubelet's to start. */
  powerOn(): Promise<void>;
  /** Records more of the run (plane directory, processes) in its state file, so a sweep or k8s:down finds them. */
  record(update: (state: RunState) => void): void;
  /** Removes the whole run: processes recorded, namespaces, link, routes, rules, files, state file. Idempotent. */
  destroy(): Promise<void>;
}

export interface NodeNetworkOptions {
  /** The run's directory for temporary files; removed with the run. */
  stateDir: string;
  /** How many nodes (1 by default). */
  nodes?: number;
  log: (line: string) => void;
}

export async function createNodeNetwork(options: NodeNetworkOptions): Promise<NodeNetwork> {
  await preflight();
  await sweepDeadRuns(options.log);
  const started = Date.now();
  const count = options.nodes ?? 1;
  const state = await withRegistryLock(async () => {
    const held = listStates();
    const routes = await hostRoutes();
    const taken = new Set(held.flatMap(indexesOf));
    const nodes: RunSubnets[] = [];
    for (let n = 0; n < count; n++) {
      const subnets = chooseSubnets(routes, taken);
      taken.add(subnets.index);
      nodes.push(subnets);
    }
    let runId: string;
    do runId = randomBytes(3).toString('hex'); while (held.some((s) => s.runId === runId));
    const names = runNames(runId);
    const [first, ...others] = nodes;
    const made: RunState = {
      runId, owner: ownerOfThisProcess(), createdAt: new Date().toISOString(), index: first.index,
      stateDir: options.stateDir, hostLink: names.hostLink, nodeNetns: names.nodeNetns,
      extraNodes: others.map((subnets, i) => {
        const { hostLink, nodeNetns } = nodeNames(runId, i + 2);
        return { index: subnets.index, hostLink, nodeNetns };
      }),
      routes: [first.podCidr, first.serviceCidr, ...others.map((subnets) => subnets.podCidr)],
      rules: hostRules(runId, nodes), processes: [],
    };
    // Written before anything it names exists: a crash from here on leaves leftovers the sweep finds.
    writeState(made);
    enableIpForward();
    return made;
  });
  mkdirSync(options.stateDir, { recursive: true });
  try {
    await build(state);
  } catch (err) {
    await teardownRun(state, options.log);
    throw err;
  }
  const network = runNetwork(state, options.log);
  const nodes = network.nodes.map((node) => `${node.nodeNetns} pods ${node.podCidr}, host ${node.hostIp}, node ${node.nodeIp}`).join('; ');
  options.log(`k8s: node network ${state.runId} up in ${((Date.now() - started) / 1000).toFixed(1)}s: services ${network.serviceCidr}; ${nodes}`);
  return network;
}

/** Each node of the run: its ordinal, subnets and names (the first node's are the run's own). */
function nodesOf(state: RunState): { ordinal: number; subnets: RunSubnets; hostLink: string; nodeNetns: string }[] {
  return [
    { ordinal: 1, subnets: subnetsFor(state.index), hostLink: state.hostLink, nodeNetns: state.nodeNetns },
    ...(state.extraNodes ?? []).map((node, i) => ({ ordinal: i + 2, subnets: subnetsFor(node.index), hostLink: node.hostLink, nodeNetns: node.nodeNetns })),
  ];
}

function runNetwork(state: RunState, log: (line: string) => void): NodeNetwork {
  const { runId } = state;
  const first = subnetsFor(state.index);
  let destroyed: Promise<void> | undefined;
  const nodes: NodeNetwork[] = [];

  // What every node shares: the run, its Service range and the ingress and load balancers on the first node's bridge.
  const shared = {
    runId, nodes,
    serviceCidr: first.serviceCidr, apiServiceIp: first.apiServiceIp, ingressIp: first.ingressIp, loadBalancerPool: first.loadBalancerPool,
    async attachIngress() {
      if (destroyed) throw new NodeNetworkError(`node network ${runId} is being destroyed; the ingress cannot be attached`);
      const netns = ingressNetnsName(runId);
      if (existsSync(`/run/netns/${netns}`)) await removeNetns(netns);
      await sh('ip', ['netns', 'add', netns]);
      await ipBatch([`link add ${INGRESS_BRIDGE_PORT} type veth peer name eth0 netns ${netns}`, `link set ${INGRESS_BRIDGE_PORT} master cbr0 up`], state.nodeNetns);
      await ipBatch(['link set lo up', `addr add ${first.ingressIp}/24 dev eth0`, 'link set eth0 up', `route add default via ${first.bridgeIp}`], netns);
      return { ip: first.ingressIp, netns };
    },
    spawnInIngress(command: string, args: string[], options: SpawnOptions) {
      return spawn('ip', ['netns', 'exec', ingressNetnsName(runId), command, ...args], options);
    },
    record(update: (state: RunState) => void) {
      update(state);
      writeState(state);
    },
    destroy() {
      destroyed ??= (async () => {
        // The state file may have gained records from elsewhere; the newest one counts.
        await teardownRun(readState(runId) ?? state, log);
        log(`k8s: node network ${runId} removed`);
      })();
      return destroyed;
    },
  };

  for (const { ordinal, subnets, nodeNetns } of nodesOf(state)) {
    const pods = new Map<string, Promise<{ ip: string; netnsPath: string }>>();
    const ips = new Map<string, string>();
    /** The address given last: the next pod gets the next free one after it (addressing.ts, nextPodIp). */
    let lastIp: string | undefined;

    const attach = async (podUid: string): Promise<{ ip: string; netnsPath: string }> => {
      if (destroyed) throw new NodeNetworkError(`node network ${runId} is being destroyed; pod ${podUid} cannot be attached`);
      const netns = podNetnsName(runId, podUid);
      const netnsPath = `/run/netns/${netns}`;
      // Taken synchronously, before any await, so concurrent attaches never pick the same address.
      const ip = nextPodIp(subnets.podCidr, new Set(ips.values()), lastIp);
      ips.set(podUid, ip);
      lastIp = ip;
      try {
        // A namespace left by an earlier attach of this pod (or a half-made one) is made again from scratch.
        if (existsSync(netnsPath)) await removeNetns(netns);
        const port = podBridgePort(podUid);
        await sh('ip', ['netns', 'add', netns]);
        await ipBatch([
          `link add ${port} type veth peer name eth0 netns ${netns}`,
          `link set ${port} master cbr0 up`,
          // Hairpin, as the kubelet sets it on a bridge CNI: a pod reaching its own Service may be sent to itself.
          `link set ${port} type bridge_slave hairpin on`,
        ], nodeNetns);
        await ipBatch([
          'link set lo up',
          `addr add ${ip}/24 dev eth0`,
          'link set eth0 up',
          `route add default via ${subnets.bridgeIp}`,
        ], netns);
        return { ip, netnsPath };
      } catch (err) {
        ips.delete(podUid);
        await removeNetns(netns);
        throw err;
      }
    };
    const detachPod = async (podUid: string) => {
      await pods.get(podUid)?.catch(() => undefined);
      pods.delete(podUid);
      // The veth pair goes with the namespace; deleting the bridge end first frees its name at once.
      await sh('ip', ['-n', nodeNetns, 'link', 'del', podBridgePort(podUid)]).catch(() => undefined);
      await removeNetns(podNetnsName(runId, podUid));
      ips.delete(podUid);
    };
    const { nodeLink } = runNames(runId);

    nodes.push({
      ...shared, ordinal, nodeNetns,
      podCidr: subnets.podCidr, hostIp: subnets.hostIp, nodeIp: subnets.nodeIp, bridgeIp: subnets.bridgeIp,
      attachPod(podUid) {
        let attached = pods.get(podUid);
        if (!attached) {
          attached = attach(podUid);
          pods.set(podUid, attached);
          attached.catch(() => pods.delete(podUid));
        }
        return attached;
      },
      detachPod,
      spawnInNode(command, args, options) {
        return spawn('ip', ['netns', 'exec', nodeNetns, command, ...args], options);
      },
      async powerOff() {
        for (const uid of [...pods.keys()]) await detachPod(uid);
        await killProcessesIn(nodeNetns);
        await sh('ip', ['-n', nodeNetns, 'link', 'set', nodeLink, 'down']);
        log(`k8s: node ${nodeNetns} powered off`);
      },
      async powerOn() {
        await ipBatch([`link set ${nodeLink} up`, `route replace default via ${subnets.hostIp}`], nodeNetns);
        log(`k8s: node ${nodeNetns} powered on`);
      },
    });
  }
  return nodes[0];
}

async function build(state: RunState): Promise<void> {
  const { nodeLink, bridge } = runNames(state.runId);
  for (const { subnets, hostLink, nodeNetns } of nodesOf(state)) {
    await sh('ip', ['netns', 'add', nodeNetns]);
    await ipBatch([
      `link add ${hostLink} type veth peer name ${nodeLink} netns ${nodeNetns}`,
      `addr add ${subnets.hostIp}/30 dev ${hostLink}`,
      `link set ${hostLink} up`,
    ]);
    await ipBatch([
      'link set lo up',
      `addr add ${subnets.nodeIp}/30 dev ${nodeLink}`,
      `link set ${nodeLink} up`,
      `route add default via ${subnets.hostIp}`,
      `link add ${bridge} type bridge`,
      `addr add ${subnets.bridgeIp}/24 dev ${bridge}`,
      `link set ${bridge} up`,
    ], nodeNetns);
    // Per-namespace sysctls: the node routes between its link and the bridge, and bridged pod-to-pod
    // traffic passes iptables (so kube-proxy's DNAT of a Service is undone on the reply).
    // No rate limit on the ICMP errors the NetworkPolicy enforcer answers refused connections with (by default one a
    // second, so a refused connect would wait for a SYN retransmission).
    await sh('ip', ['netns', 'exec', nodeNetns, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1', 'net.bridge.bridge-nf-call-iptables=1', 'net.ipv4.icmp_ratelimit=0']);
    // Each node's pod range goes to it; the Service range to the first node (any node's kube-proxy would do).
    const routes = subnets.index === state.index ? [subnets.podCidr, subnets.serviceCidr] : [subnets.podCidr];
    await ipBatch(routes.map((cidr) => `route add ${cidr} via ${subnets.nodeIp} dev ${hostLink}`));
  }
  for (const rule of state.rules) await sh('iptables', ['-w', '-t', rule.table, '-I', rule.chain, '1', ...rule.spec]);
}

/** Everything the host routes (all tables), as CIDRs, so a run's subnets collide with none. */
async function hostRoutes(): Promise<string[]> {
  const routes = JSON.parse(await sh('ip', ['-4', '-j', 'route', 'show', 'table', 'all'])) as { dst: string }[];
  const addresses = JSON.parse(await sh('ip', ['-4', '-j', 'addr', 'show'])) as { addr_info: { local: string; prefixlen: number }[] }[];
  return [...routes.map((r) => r.dst), ...addresses.flatMap((a) => a.addr_info.map((i) => `${i.local}/${i.prefixlen}`))];
}

/** Fails with what is missing, never skips: the node needs root, network namespaces and iptables. */
async function preflight(): Promise<void> {
  if (process.getuid?.() !== 0) throw new NodeNetworkError('the test node needs root (network namespaces, veths, iptables); run as root');
  for (const [tool, args] of [['ip', ['-V']], ['iptables', ['-V']], ['iptables-save', ['-V']], ['sysctl', ['-V']]] as const) {
    await sh(tool, args).catch((err: Error) => {
      throw new NodeNetworkError(`the test node needs ${tool} (test/cluster/build.sh installs iptables and iproute2): ${err.message}`);
    });
  }
  if (!existsSync('/proc/sys/net/bridge')) {
    // bridge-nf-call-iptables lives there; loading br_netfilter makes it appear.
    await sh('modprobe', ['br_netfilter']).catch(() => undefined);
  }
}
