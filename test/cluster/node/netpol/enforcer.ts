/**
 * The node's NetworkPolicy enforcer (the test stand-in of a CNI's policy controller): watches pods, namespaces and
 * NetworkPolicies through the API and keeps the node network namespace's iptables in step (compile.ts), in one
 * `iptables-restore --noflush` per change. Its chains live in the node namespace, so they go with it.
 */
import { makeInformer, CoreV1Api, NetworkingV1Api } from '@kubernetes/client-node';
import type { Informer, KubeConfig, ObjectCache, V1Namespace, V1NetworkPolicy, V1Pod } from '@kubernetes/client-node';
import type { NodeNetwork } from '../network.ts';
import { sh } from '../exec.ts';
import { compile, restoreInput, TOP_CHAIN, type ClusterView, type PodInfo, type PolicyInfo } from './compile.ts';

const DEBOUNCE_MS = 50;
/** A full recompile now and then, and the jumps put back first in FORWARD and INPUT (kube-proxy may insert before them). */
const RESYNC_MS = 5000;
const RESTART_DELAY_MS = 1000;

export interface NetworkPolicyEnforcer {
  stop(): Promise<void>;
}

export async function startNetworkPolicyEnforcer(options: { kc: KubeConfig; network: NodeNetwork; log: (line: string) => void }): Promise<NetworkPolicyEnforcer> {
  const { kc, network, log } = options;
  const core = kc.makeApiClient(CoreV1Api);
  const networking = kc.makeApiClient(NetworkingV1Api);
  const informers = {
    pods: makeInformer<V1Pod>(kc, '/api/v1/pods', () => core.listPodForAllNamespaces()),
    namespaces: makeInformer<V1Namespace>(kc, '/api/v1/namespaces', () => core.listNamespace()),
    policies: makeInformer<V1NetworkPolicy>(kc, '/apis/networking.k8s.io/v1/networkpolicies', () => networking.listNetworkPolicyForAllNamespaces()),
  };
  const iptables = (args: string[], input?: string) => sh('ip', ['netns', 'exec', network.nodeNetns, ...args], input);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let written = '';
  let chains: string[] = [];
  let jumped = false;

  const sync = async (force: boolean) => {
    const view: ClusterView = {
      pods: podsOf(informers.pods.list()),
      namespaces: informers.namespaces.list().map((namespace) => ({ name: namespace.metadata!.name!, labels: namespace.metadata?.labels ?? {} })),
      policies: informers.policies.list() as PolicyInfo[],
      nodeAddresses: [network.hostIp, network.nodeIp, network.bridgeIp],
    };
    const compiled = compile(view);
    const input = restoreInput(compiled, chains);
    if (input !== written) {
      await iptables(['iptables-restore', '-w', '--noflush'], input);
      written = input;
      chains = compiled.chains;
    }
    if (force || !jumped) {
      await ensureFirst(iptables, network.podCidr);
      jumped = true;
    }
  };
  const schedule = (force = false) => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(() => sync(force)).catch((error: Error) => log(`netpol: sync failed: ${error.message}`));
    }, force ? 0 : DEBOUNCE_MS);
  };
  for (const [name, informer] of Object.entries(informers) as [string, Informer<never> & ObjectCache<never>][]) {
    for (const event of ['add', 'update', 'delete'] as const) informer.on(event, () => schedule());
    informer.on('error', (error) => {
      if (stopped) return;
      log(`netpol: ${name} watch stopped (${(error as Error)?.message ?? error}); restarting`);
      setTimeout(() => { if (!stopped) informer.start().catch(() => undefined); }, RESTART_DELAY_MS).unref();
    });
  }
  await Promise.all(Object.values(informers).map((informer) => informer.start()));
  await sync(true);
  const resync = setInterval(() => schedule(true), RESYNC_MS);
  log(`netpol: enforcing NetworkPolicy in ${network.nodeNetns} (${chains.length} chains)`);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      clearInterval(resync);
      await Promise.all(Object.values(informers).map((informer) => informer.stop()));
      await running;
    },
  };
}

/** Pods with an address of the pod network that are not done (host-network pods have the node's address). */
function podsOf(pods: readonly V1Pod[]): PodInfo[] {
  return pods.flatMap((pod) => {
    const ip = pod.status?.podIP;
    if (!ip || pod.spec?.hostNetwork || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return [];
    return [{
      namespace: pod.metadata!.namespace!, name: pod.metadata!.name!, ip, labels: pod.metadata?.labels ?? {},
      ports: (pod.spec?.containers ?? []).flatMap((container) => container.ports ?? []),
    }];
  });
}

/** Our jump first in FORWARD (every forwarded packet) and INPUT (pods reaching the node's own addresses). */
async function ensureFirst(iptables: (args: string[]) => Promise<string>, podCidr: string): Promise<void> {
  const jumps: [string, string[]][] = [['FORWARD', []], ['INPUT', ['-s', podCidr]]];
  for (const [chain, match] of jumps) {
    const spec = [...match, '-m', 'comment', '--comment', 'grw NetworkPolicy', '-j', TOP_CHAIN];
    const listed = (await iptables(['iptables', '-w', '-S', chain])).split('\n').filter((line) => line.startsWith('-A '));
    if (listed[0]?.includes(`-j ${TOP_CHAIN}`) && listed.filter((line) => line.includes(`-j ${TOP_CHAIN}`)).length === 1) continue;
    for (const line of listed.filter((candidate) => candidate.includes(`-j ${TOP_CHAIN}`))) {
      await iptables(['iptables', '-w', '-D', chain, ...line.replace(/^-A \S+ /, '').match(/"[^"]*"|\S+/g)!.map((word) => word.replace(/^"|"$/g, ''))]);
    }
    await iptables(['iptables', '-w', '-I', chain, '1', ...spec]);
  }
}
