/**
 * `networking.k8s.io/v1` NetworkPolicy compiled into iptables rules for the node network namespace, pure (the
 * stand-in of a CNI's policy controller; kube-router's is the model: a chain per isolated pod, a mark for "allowed").
 *
 * The filter table's FORWARD (and INPUT, for pods reaching the node itself) jumps to GRW-NETPOL first. There:
 * replies of allowed connections return at once (conntrack); traffic from the node's own addresses (the kubelet's
 * probes, the host) is allowed, as real CNIs allow it; a packet from an egress-isolated pod goes through that pod's
 * egress chain, a packet to an ingress-isolated pod through its ingress chain. Each chain sets the mark bit for a
 * packet one of its rules allows and rejects the packet when none did (as kube-router does; Calico drops); an allowed packet returns to FORWARD, where
 * kube-proxy's rules and the default policy take it. Packets between pods are bridged (br_netfilter), packets to a
 * Service were DNATed in PREROUTING and are SNATed (--masquerade-all) only after FORWARD, so FORWARD sees the real
 * source pod and destination pod.
 */
import { createHash } from 'node:crypto';

export interface PodInfo {
  namespace: string;
  name: string;
  ip: string;
  labels: Record<string, string>;
  /** The pod's containers' ports, for named ports. */
  ports: { name?: string; containerPort: number; protocol?: string }[];
}

export interface NamespaceInfo {
  name: string;
  labels: Record<string, string>;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface PolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr: string; except?: string[] };
}

export interface PolicyPort {
  protocol?: string;
  port?: number | string;
}

/** A NetworkPolicy as the API serves it (`from` on the wire, `_from` in client-node's model: both are read). */
export interface PolicyInfo {
  metadata?: { namespace?: string; name?: string };
  spec?: {
    podSelector?: LabelSelector;
    policyTypes?: string[];
    ingress?: { from?: PolicyPeer[]; _from?: PolicyPeer[]; ports?: PolicyPort[] }[];
    egress?: { to?: PolicyPeer[]; ports?: PolicyPort[] }[];
  };
}

export interface ClusterView {
  pods: PodInfo[];
  namespaces: NamespaceInfo[];
  policies: PolicyInfo[];
  /** Addresses whose traffic to pods is always allowed: the node's own, and the host the kubelet probes from. */
  nodeAddresses: string[];
}

export const TOP_CHAIN = 'GRW-NETPOL';
const ALLOWED = '0x10000/0x10000';
const CLEAR = '0x0/0x10000';

export interface Compiled {
  /** Every chain of ours these rules use (TOP_CHAIN first). */
  chains: string[];
  /** `-A …` lines, in order. */
  rules: string[];
}

/** The rules for `view`. The same view gives the same rules, so an unchanged cluster needs no new ruleset. */
export function compile(view: ClusterView): Compiled {
  const chains = [TOP_CHAIN];
  const rules: string[] = [
    `-A ${TOP_CHAIN} -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`,
    ...view.nodeAddresses.map((address) => `-A ${TOP_CHAIN} -s ${address}/32 -j RETURN`),
  ];
  const namespaceLabels = new Map(view.namespaces.map((namespace) => [namespace.name, withNameLabel(namespace)]));
  const pods = [...view.pods].sort((a, b) => key(a).localeCompare(key(b)));
  const jumps: string[] = [];
  const chainRules: string[] = [];
  for (const direction of ['egress', 'ingress'] as const) {
    for (const pod of pods) {
      const selecting = view.policies
        .filter((policy) => policy.metadata?.namespace === pod.namespace && types(policy).includes(direction === 'ingress' ? 'Ingress' : 'Egress'))
        .filter((policy) => selects(policy.spec?.podSelector ?? {}, pod.labels))
        .sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
      if (selecting.length === 0) continue;
      const chain = chainName(direction === 'ingress' ? 'GRW-NPI-' : 'GRW-NPE-', key(pod));
      chains.push(chain);
      jumps.push(`-A ${TOP_CHAIN} ${direction === 'ingress' ? '-d' : '-s'} ${pod.ip}/32 -j ${chain}`);
      const body: string[] = [`-A ${chain} -j MARK --set-xmark ${CLEAR}`];
      const peerSide = direction === 'ingress' ? '-s' : '-d';
      let blocks = 0;
      for (const policy of selecting) {
        const ruleList = direction === 'ingress'
          ? (policy.spec?.ingress ?? []).map((rule) => ({ peers: rule.from ?? rule._from, ports: rule.ports }))
          : (policy.spec?.egress ?? []).map((rule) => ({ peers: rule.to, ports: rule.ports }));
        for (const rule of ruleList) {
          for (const target of targets(rule.peers, policy.metadata?.namespace ?? '', pods, namespaceLabels)) {
            for (const { port, destination } of portMatches(rule.ports, direction, pod, target, pods)) {
              const addr = destination ? `-d ${destination}/32 ` : target.cidr ? `${peerSide} ${target.cidr} ` : '';
              if (!destination && target.except && target.except.length > 0) {
                const block = chainName('GRW-NPB-', `${chain}/${blocks++}`);
                chains.push(block);
                body.push(`-A ${chain} ${addr}${port}-j ${block}`.replace(/ +/g, ' '));
                chainRules.push(...target.except.map((except) => `-A ${block} ${peerSide} ${except} -j RETURN`), `-A ${block} -j MARK --set-xmark ${ALLOWED}`);
              } else {
                body.push(`-A ${chain} ${addr}${port}-j MARK --set-xmark ${ALLOWED}`.replace(/ +/g, ' '));
              }
            }
          }
        }
      }
      // Port unreachable (not a TCP reset, which would miss the conntrack entry of a Service's DNAT and leave the
      // client waiting); the node namespace does not rate-limit these ICMP errors (network.ts).
      body.push(`-A ${chain} -m mark ! --mark ${ALLOWED} -j REJECT --reject-with icmp-port-unreachable`, `-A ${chain} -j MARK --set-xmark ${CLEAR}`);
      chainRules.push(...body);
    }
  }
  return { chains, rules: [...rules, ...jumps, ...chainRules] };
}

/** The iptables-restore input (filter table, `--noflush`): our chains declared (which flushes them), refilled, stale ones deleted. */
export function restoreInput(compiled: Compiled, previousChains: Iterable<string>): string {
  const current = new Set(compiled.chains);
  const stale = [...new Set(previousChains)].filter((chain) => !current.has(chain));
  return [
    '*filter',
    ...[...current, ...stale].map((chain) => `:${chain} - [0:0]`),
    ...compiled.rules,
    ...stale.map((chain) => `-X ${chain}`),
    'COMMIT',
    '',
  ].join('\n');
}

function key(pod: Pick<PodInfo, 'namespace' | 'name'>): string {
  return `${pod.namespace}/${pod.name}`;
}

function chainName(prefix: string, of: string): string {
  return prefix + createHash('sha256').update(of).digest('hex').slice(0, 12);
}

/** policyTypes as the API defaults them: Ingress always, Egress when the policy has egress rules. */
function types(policy: PolicyInfo): string[] {
  if (policy.spec?.policyTypes && policy.spec.policyTypes.length > 0) return policy.spec.policyTypes;
  return ['Ingress', ...((policy.spec?.egress?.length ?? 0) > 0 ? ['Egress'] : [])];
}

/** Namespaces carry `kubernetes.io/metadata.name` (set by the API server from 1.21; added here for 1.20). */
function withNameLabel(namespace: NamespaceInfo): Record<string, string> {
  return { ...namespace.labels, 'kubernetes.io/metadata.name': namespace.name };
}

export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [name, value] of Object.entries(selector.matchLabels ?? {})) if (labels[name] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, expression.key);
    const values = expression.values ?? [];
    switch (expression.operator) {
      case 'In': if (!has || !values.includes(labels[expression.key]!)) return false; break;
      case 'NotIn': if (has && values.includes(labels[expression.key]!)) return false; break;
      case 'Exists': if (!has) return false; break;
      case 'DoesNotExist': if (has) return false; break;
      default: return false;
    }
  }
  return true;
}

/** Where a rule's peers are: any address (no peers), pod addresses, or a CIDR with exceptions. */
interface Target {
  cidr?: string;
  except?: string[];
  /** The pod at this address, for named ports. */
  pod?: PodInfo;
}

function targets(peers: PolicyPeer[] | undefined, namespace: string, pods: PodInfo[], namespaceLabels: Map<string, Record<string, string>>): Target[] {
  if (!peers || peers.length === 0) return [{}];
  const found: Target[] = [];
  for (const peer of peers) {
    if (peer.ipBlock) {
      found.push({ cidr: peer.ipBlock.cidr, except: peer.ipBlock.except ?? [] });
      continue;
    }
    if (!peer.podSelector && !peer.namespaceSelector) continue;
    for (const pod of pods) {
      const inNamespace = peer.namespaceSelector
        ? namespaceLabels.has(pod.namespace) && selects(peer.namespaceSelector, namespaceLabels.get(pod.namespace)!)
        : pod.namespace === namespace;
      if (inNamespace && selects(peer.podSelector ?? {}, pod.labels)) found.push({ cidr: `${pod.ip}/32`, pod });
    }
  }
  return found;
}

/**
 * The port matches (`-p tcp --dport 80 `, or `''` for any) of a rule toward `target`. A named port names a port of
 * the destination: the selected pod for ingress, the peer pod for egress (toward an address block, every pod in it
 * that has such a port, whose address then goes with the match); a name that resolves to nothing matches nothing.
 */
function portMatches(ports: PolicyPort[] | undefined, direction: 'ingress' | 'egress', pod: PodInfo, target: Target, pods: PodInfo[]): { port: string; destination?: string }[] {
  if (!ports || ports.length === 0) return [{ port: '' }];
  const out: { port: string; destination?: string }[] = [];
  for (const port of ports) {
    const protocol = (port.protocol ?? 'TCP').toLowerCase();
    if (port.port === undefined) {
      out.push({ port: `-p ${protocol} ` });
    } else if (typeof port.port === 'number' || /^\d+$/.test(port.port)) {
      out.push({ port: `-p ${protocol} --dport ${port.port} ` });
    } else {
      const destinations = direction === 'ingress' ? [pod] : target.pod ? [target.pod] : pods.filter((candidate) => !target.cidr || inCidr(candidate.ip, target.cidr, target.except ?? []));
      for (const destination of destinations) {
        const named = destination.ports.find((candidate) => candidate.name === port.port && (candidate.protocol ?? 'TCP').toLowerCase() === protocol);
        if (!named) continue;
        out.push({ port: `-p ${protocol} --dport ${named.containerPort} `, ...(direction === 'egress' && !target.pod ? { destination: destination.ip } : {}) });
      }
    }
  }
  return out;
}

function inCidr(ip: string, cidr: string, except: string[]): boolean {
  const within = (address: string, block: string) => {
    const [base, bits] = block.split('/');
    const mask = Number(bits) === 0 ? 0 : (~0 << (32 - Number(bits))) >>> 0;
    return ((toNumber(address) & mask) >>> 0) === ((toNumber(base!) & mask) >>> 0);
  };
  return within(ip, cidr) && !except.some((block) => within(ip, block));
}

function toNumber(ip: string): number {
  return ip.split('.').reduce((value, octet) => ((value << 8) | Number(octet)) >>> 0, 0);
}
