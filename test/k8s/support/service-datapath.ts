/**
 * What the node's datapath makes of one Service, for the message of a test whose probe of it failed: kube-proxy's NAT
 * rules for its ClusterIP and the endpoints they DNAT to, the filter rules naming those endpoints, the connections
 * conntrack holds to it, the node's neighbour entries and bridge ports (a pod reached through its own Service leaves
 * and re-enters the bridge on the same port, which needs hairpin mode), and kube-proxy's latest warnings and errors.
 * Service programming is eventually consistent, so the rules seen here are those of the moment the test gave up.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { Cluster } from '../../cluster/node/node.ts';

const sh = promisify(execFile);
const LOG_LINES = 15;

export async function explainService(cluster: Cluster, clusterIp: string): Promise<string> {
  const { nodeNetns } = cluster.network;
  const inNode = (command: string, ...args: string[]) =>
    sh('ip', ['netns', 'exec', nodeNetns, command, ...args], { timeout: 10_000 }).then(({ stdout }) => stdout.trimEnd(), (error: Error) => `(${command} failed: ${error.message})`);
  const [nat, filter, connections, neighbours, ports, proxyLog] = await Promise.all([
    inNode('iptables-save', '-t', 'nat'),
    inNode('iptables-save', '-t', 'filter'),
    inNode('conntrack', '-L', '-d', clusterIp),
    inNode('ip', 'neigh', 'show'),
    inNode('bridge', '-d', 'link', 'show'),
    readFile(cluster.logs.kubeProxy, 'utf8').catch((error: Error) => `(no kube-proxy log: ${error.message})`),
  ]);
  const complaints = proxyLog.split('\n').filter((line) => /^[EW]\d{4} /.test(line)).slice(-LOG_LINES);
  const rules = serviceRules(nat, clusterIp);
  const endpoints = new Set(rules.flatMap((line) => /--to-destination ([\d.]+):/.exec(line)?.[1] ?? []));
  const policing = filter.split('\n').filter((line) => [...endpoints].some((ip) => line.includes(`${ip}/32`)));
  return [
    `\n--- the node's datapath for Service ${clusterIp}`,
    `kube-proxy's NAT rules for it:\n${rules.join('\n') || '(none: kube-proxy has not programmed it)'}`,
    `filter rules naming its endpoints (the NetworkPolicy enforcer's):\n${policing.join('\n') || '(none)'}`,
    `conntrack entries to it:\n${connections || '(none)'}`,
    `neighbours:\n${neighbours || '(none)'}`,
    `bridge ports:\n${ports || '(none)'}`,
    `kube-proxy's last warnings and errors:\n${complaints.join('\n') || '(none)'}`,
  ].join('\n');
}

/** The rules of `iptables-save -t nat` on the path of `clusterIp`: the KUBE-SERVICES match, its KUBE-SVC chain and KUBE-SEP chains. */
function serviceRules(nat: string, clusterIp: string): string[] {
  const rules = nat.split('\n').filter((line) => line.startsWith('-A '));
  const entry = rules.filter((line) => line.includes(`-d ${clusterIp}/32`));
  const chains = new Set(entry.flatMap((line) => /-j (KUBE-SVC-\w+)/.exec(line)?.[1] ?? []));
  const serviceChains = rules.filter((line) => chains.has(line.split(' ')[1]!));
  for (const line of serviceChains) {
    const endpoint = /-j (KUBE-SEP-\w+)/.exec(line)?.[1];
    if (endpoint) chains.add(endpoint);
  }
  return [...entry, ...rules.filter((line) => chains.has(line.split(' ')[1]!))];
}
