/**
 * The pure part of a run's node network: which subnets a run takes, how its namespaces, links and
 * iptables rules are named and tagged, and which pod address is next. Every name starts with
 * `grw-<run>`, so a sweep recognises what is ours and never touches anything else.
 */

/** Every netns, host link and rule tag of ours starts with this. */
export const RUN_PREFIX = 'grw-';
/** A run id: six hex digits, so `grw-<run>` fits an interface name (15 characters at most). */
export const RUN_ID = /^[0-9a-f]{6}$/;

export interface RunSubnets {
  /** 1..254: the third octet shared by the run's three subnets. */
  readonly index: number;
  readonly podCidr: string;
  readonly serviceCidr: string;
  /** The /30 between the host and the node namespace. */
  readonly linkCidr: string;
  readonly hostIp: string;
  readonly nodeIp: string;
  /** The bridge's address in the node namespace: every pod's gateway. */
  readonly bridgeIp: string;
  /** The `kubernetes` Service's ClusterIP (the first address of serviceCidr), as the apiserver allocates it. */
  readonly apiServiceIp: string;
  /** The ingress stand-in's address on the bridge: the pod CIDR's last, never given to a pod. */
  readonly ingressIp: string;
  /** Addresses for LoadBalancer Services (the pod CIDR's .240–.253, never given to a pod): kube-proxy DNATs them. */
  readonly loadBalancerPool: readonly string[];
}

export function subnetsFor(index: number): RunSubnets {
  if (!Number.isInteger(index) || index < 1 || index > 254) throw new RangeError(`subnet index ${index} is not in 1..254`);
  return {
    index,
    podCidr: `10.244.${index}.0/24`,
    serviceCidr: `10.96.${index}.0/24`,
    linkCidr: `10.245.${index}.0/30`,
    hostIp: `10.245.${index}.1`,
    nodeIp: `10.245.${index}.2`,
    bridgeIp: `10.244.${index}.1`,
    apiServiceIp: `10.96.${index}.1`,
    ingressIp: `10.244.${index}.254`,
    loadBalancerPool: Array.from({ length: 14 }, (_, i) => `10.244.${index}.${240 + i}`),
  };
}

/**
 * The lowest index whose three subnets overlap none of `routes` (the host's routing table, as CIDRs or
 * single addresses) and that no other run holds.
 */
export function chooseSubnets(routes: readonly string[], takenIndexes: ReadonlySet<number>): RunSubnets {
  for (let index = 1; index <= 254; index++) {
    if (takenIndexes.has(index)) continue;
    const subnets = subnetsFor(index);
    const mine = [subnets.podCidr, subnets.serviceCidr, subnets.linkCidr];
    if (!routes.some((route) => route !== 'default' && mine.some((cidr) => cidrsOverlap(cidr, route)))) return subnets;
  }
  throw new RangeError('no free subnet index in 1..254: every 10.244.x.0/24, 10.96.x.0/24 or 10.245.x.0/30 is routed or held by a run');
}

export function parseCidr(cidr: string): { base: number; bits: number } {
  const [address, bitsText = '32'] = cidr.split('/');
  const octets = address.split('.').map(Number);
  const bits = Number(bitsText);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255) || !Number.isInteger(bits) || bits < 0 || bits > 32) {
    throw new RangeError(`not an IPv4 CIDR: ${cidr}`);
  }
  const value = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - bits);
  return { base: value - (value % size), bits };
}

export function cidrsOverlap(a: string, b: string): boolean {
  const x = parseCidr(a);
  const y = parseCidr(b);
  const xEnd = x.base + 2 ** (32 - x.bits);
  const yEnd = y.base + 2 ** (32 - y.bits);
  return x.base < yEnd && y.base < xEnd;
}

/**
 * The next free host address of a /24 pod CIDR after `last` (the address given before), from .2 (.1 is the bridge)
 * and round the range again: round robin, as the host-local IPAM of a bridge CNI allocates. An address just released
 * is thus given again only after every other one, long after what lagged behind about its previous pod (the
 * NetworkPolicy rules for it, an EndpointSlice that lists it, a conntrack entry) is gone.
 */
export function nextPodIp(podCidr: string, inUse: ReadonlySet<string>, last?: string): string {
  const { base, bits } = parseCidr(podCidr);
  if (bits !== 24) throw new RangeError(`pod CIDR ${podCidr} is not a /24`);
  const prefix = [base >>> 24, (base >>> 16) & 255, (base >>> 8) & 255].join('.');
  // .240–.253 are LoadBalancer addresses, .254 the ingress stand-in's (RunSubnets).
  const first = 2;
  const size = 238; // .2 to .239
  // The offset in the range of the address after `last` (none, or another subnet's: from .2).
  const start = last?.startsWith(`${prefix}.`) ? Number(last.slice(prefix.length + 1)) - first + 1 : 0;
  for (let i = 0; i < size; i++) {
    const ip = `${prefix}.${first + ((start + i) % size)}`;
    if (!inUse.has(ip)) return ip;
  }
  throw new RangeError(`pod CIDR ${podCidr} is full (238 pods)`);
}

export interface RunNames {
  /** `grw-<run>`: the tag on the run's iptables rules, and the host end of its link. */
  readonly tag: string;
  readonly hostLink: string;
  readonly nodeNetns: string;
  /** The node namespace's end of the link. */
  readonly nodeLink: string;
  readonly bridge: string;
}

export function runNames(runId: string): RunNames {
  if (!RUN_ID.test(runId)) throw new RangeError(`run id ${JSON.stringify(runId)} is not six hex digits`);
  const tag = `${RUN_PREFIX}${runId}`;
  return { tag, hostLink: tag, nodeNetns: `${tag}-node`, nodeLink: 'uplink', bridge: 'cbr0' };
}

/**
 * The names of a run's node `ordinal` (1 is the first node, whose names are the run's own): node 2 onwards has the
 * namespace `grw-<run>-node<n>`, the host link `grw-<run>-<n>` and the Node `node-<run>-<n>`.
 */
export function nodeNames(runId: string, ordinal: number): RunNames & { nodeName: string } {
  if (!Number.isInteger(ordinal) || ordinal < 1 || ordinal > 9) throw new RangeError(`node ordinal ${ordinal} is not in 1..9`);
  const run = runNames(runId);
  if (ordinal === 1) return { ...run, nodeName: `node-${runId}` };
  return { ...run, hostLink: `${run.tag}-${ordinal}`, nodeNetns: `${run.nodeNetns}${ordinal}`, nodeName: `node-${runId}-${ordinal}` };
}

/** Kubernetes UIDs are UUIDs; eight hex digits of one name a pod's namespace and its bridge port. */
export function podKey(podUid: string): string {
  const hex = podUid.toLowerCase().replace(/[^0-9a-f]/g, '');
  if (hex.length < 8) throw new RangeError(`pod uid ${JSON.stringify(podUid)} has fewer than 8 hex digits`);
  return hex.slice(0, 8);
}

export const podNetnsName = (runId: string, podUid: string) => `${runNames(runId).tag}-${podKey(podUid)}`;
/** The ingress stand-in's namespace and its port on the bridge (not hex: never a pod's). */
export const ingressNetnsName = (runId: string) => `${runNames(runId).tag}-ingress`;
export const INGRESS_BRIDGE_PORT = 'vingress';
/** The pod's veth end on the bridge, in the node namespace (so other runs' ports never clash with it). */
export const podBridgePort = (podUid: string) => `v${podKey(podUid)}`;

/** The run a namespace or link name of ours belongs to, or undefined when the name is not ours. */
export function runOfName(name: string): string | undefined {
  const match = /^grw-([0-9a-f]{6})(?:-|$)/.exec(name);
  return match?.[1];
}

/**
 * The host's iptables rules of a run, as `iptables` arguments after the chain: masquerade each node's pods'
 * traffic leaving the host by any link that is not one of the run's (the machine's resolver may itself be in
 * 10/8; between nodes, pods keep their own addresses so NetworkPolicy sees them), and forward to and from the
 * run's links even where a FORWARD policy drops. Every link of a run starts with its tag, which `tag+` matches
 * (iptables' interface wildcard). Each rule carries the run's tag as a comment.
 */
export function hostRules(runId: string, nodes: readonly RunSubnets[]): HostRule[] {
  const { tag } = runNames(runId);
  const comment = ['-m', 'comment', '--comment', tag];
  const links = `${tag}+`;
  return [
    ...nodes.map((subnets): HostRule => ({ table: 'nat', chain: 'POSTROUTING', spec: ['-s', subnets.podCidr, '!', '-o', links, ...comment, '-j', 'MASQUERADE'] })),
    { table: 'filter', chain: 'FORWARD', spec: ['-i', links, ...comment, '-j', 'ACCEPT'] },
    { table: 'filter', chain: 'FORWARD', spec: ['-o', links, ...comment, '-j', 'ACCEPT'] },
  ];
}

export interface HostRule {
  readonly table: 'nat' | 'filter';
  readonly chain: string;
  readonly spec: readonly string[];
}

/**
 * Rules of `iptables-save` output carrying a tag of ours (`--comment grw-<run>`), each as the arguments
 * that delete it, with the run it belongs to. Used by the sweep, so even rules a crashed run never
 * recorded are found.
 */
export function taggedRules(iptablesSave: string): { runId: string; table: string; args: string[] }[] {
  const found: { runId: string; table: string; args: string[] }[] = [];
  let table = '';
  for (const line of iptablesSave.split('\n')) {
    if (line.startsWith('*')) table = line.slice(1).trim();
    if (!line.startsWith('-A ')) continue;
    const match = /--comment "?grw-([0-9a-f]{6})"?(?:\s|$)/.exec(line);
    if (!match) continue;
    found.push({ runId: match[1], table, args: ['-D', ...splitRule(line.slice(3))] });
  }
  return found;
}

/** Splits an iptables-save rule into arguments, honouring its double quotes. */
function splitRule(rule: string): string[] {
  const args: string[] = [];
  const pattern = /"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (let m = pattern.exec(rule); m; m = pattern.exec(rule)) args.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]);
  return args;
}
