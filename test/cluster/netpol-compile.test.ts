import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compile, restoreInput, selects, TOP_CHAIN, type ClusterView, type PodInfo, type PolicyInfo } from './node/netpol/compile.ts';

const test = suite('NetworkPolicy → iptables (the test node\'s enforcer)');
const pod = (namespace: string, name: string, ip: string, labels: Record<string, string> = {}, ports: PodInfo['ports'] = []): PodInfo => ({ namespace, name, ip, labels, ports });
const A1 = pod('a', 'web', '10.244.1.2', { app: 'web' }, [{ name: 'http', containerPort: 8080 }]);
const A2 = pod('a', 'db', '10.244.1.3', { app: 'db' });
const B1 = pod('b', 'web', '10.244.1.4', { app: 'web' });
const ING = pod('ingress', 'nginx', '10.244.1.9', { app: 'nginx' });
const base = (policies: PolicyInfo[], pods = [A1, A2, B1, ING]): ClusterView => ({
  pods, policies, nodeAddresses: ['10.245.1.1'],
  namespaces: [{ name: 'a', labels: { tenant: 'a' } }, { name: 'b', labels: { tenant: 'b' } }, { name: 'ingress', labels: {} }],
});
const policy = (namespace: string, name: string, spec: PolicyInfo['spec']): PolicyInfo => ({ metadata: { namespace, name }, spec });
/** The rules of the chain the top chain jumps to for `ip` in `direction`, without the chain name. */
function chainOf(rules: string[], direction: '-s' | '-d', ip: string): string[] | undefined {
  const jump = rules.find((rule) => rule.startsWith(`-A ${TOP_CHAIN} ${direction} ${ip}/32 -j `));
  if (!jump) return undefined;
  const chain = jump.split(' -j ')[1]!;
  return rules.filter((rule) => rule.startsWith(`-A ${chain} `)).map((rule) => rule.slice(`-A ${chain} `.length));
}

test('no policy: nothing isolated, only the top chain (replies and the node allowed)', () => {
  const { chains, rules } = compile(base([]));
  assert.equal(chains, [TOP_CHAIN]);
  assert.equal(rules, [`-A ${TOP_CHAIN} -m conntrack --ctstate RELATED,ESTABLISHED -j RETURN`, `-A ${TOP_CHAIN} -s 10.245.1.1/32 -j RETURN`]);
});

test('default deny in a namespace: its pods rejected both ways, other namespaces untouched', () => {
  const { rules } = compile(base([policy('a', 'deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] })]));
  const reject = [
    '-j MARK --set-xmark 0x0/0x10000',
    '-m mark ! --mark 0x10000/0x10000 -j REJECT --reject-with icmp-port-unreachable',
    '-j MARK --set-xmark 0x0/0x10000',
  ];
  for (const ip of [A1.ip, A2.ip]) {
    assert.equal(chainOf(rules, '-d', ip), reject);
    assert.equal(chainOf(rules, '-s', ip), reject);
  }
  assert.is(chainOf(rules, '-d', B1.ip), undefined);
  // Egress chains come before ingress chains: a packet is checked at its source, then at its destination.
  const jumps = rules.filter((rule) => rule.includes(`-A ${TOP_CHAIN} -`) && rule.includes('GRW-NP'));
  assert.ok(jumps.findIndex((rule) => rule.includes(' -d ')) > jumps.findLastIndex((rule) => rule.includes(' -s ')));
});

test('ingress: pod selector in the namespace, namespace selector, both, named and numbered ports', () => {
  const { rules } = compile(base([
    policy('a', 'web', {
      podSelector: { matchLabels: { app: 'web' } },
      ingress: [
        { _from: [{ podSelector: { matchLabels: { app: 'db' } } }], ports: [{ port: 'http' }] },
        { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } }, podSelector: { matchLabels: { app: 'nginx' } } }], ports: [{ protocol: 'TCP', port: 8080 }] },
        { from: [{ namespaceSelector: { matchLabels: { tenant: 'b' } } }], ports: [{ protocol: 'UDP', port: 'http' }] },
      ],
    }),
  ]));
  const web = chainOf(rules, '-d', A1.ip)!;
  assert.ok(web.includes(`-s ${A2.ip}/32 -p tcp --dport 8080 -j MARK --set-xmark 0x10000/0x10000`), web.join('\n'));
  assert.ok(web.includes(`-s ${ING.ip}/32 -p tcp --dport 8080 -j MARK --set-xmark 0x10000/0x10000`));
  // A named port the pod has not for that protocol matches nothing: no rule from b.
  assert.not.ok(web.some((rule) => rule.includes(B1.ip)));
  assert.is(chainOf(rules, '-d', A2.ip), undefined, 'db is not selected');
  assert.is(chainOf(rules, '-s', A1.ip), undefined, 'an ingress policy does not isolate egress');
});

test('egress: ipBlock with except goes through its own chain; empty peers and ports mean any', () => {
  const { rules, chains } = compile(base([
    policy('a', 'egress', {
      podSelector: {}, policyTypes: ['Egress'],
      egress: [{ ports: [{ protocol: 'UDP', port: 53 }] }, { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }] }, { to: [{ podSelector: {} }] }],
    }),
  ]));
  const egress = chainOf(rules, '-s', A1.ip)!;
  assert.ok(egress.includes('-p udp --dport 53 -j MARK --set-xmark 0x10000/0x10000'));
  const block = egress.find((rule) => rule.startsWith('-d 0.0.0.0/0 -j GRW-NPB-'))!;
  assert.ok(block, egress.join('\n'));
  const blockChain = block.split(' -j ')[1]!;
  assert.ok(chains.includes(blockChain));
  assert.equal(rules.filter((rule) => rule.startsWith(`-A ${blockChain} `)), [`-A ${blockChain} -d 10.0.0.0/8 -j RETURN`, `-A ${blockChain} -j MARK --set-xmark 0x10000/0x10000`]);
  assert.ok(egress.includes(`-d ${A2.ip}/32 -j MARK --set-xmark 0x10000/0x10000`));
  assert.not.ok(egress.some((rule) => rule.includes(B1.ip)), 'podSelector alone is the policy\'s namespace only');
  assert.is(chainOf(rules, '-d', A1.ip), undefined, 'policyTypes Egress only');
});

test('policyTypes defaults: Ingress always, Egress only with egress rules', () => {
  const { rules } = compile(base([policy('b', 'p', { podSelector: {}, egress: [{ to: [{ podSelector: {} }] }] })]));
  assert.ok(chainOf(rules, '-d', B1.ip));
  assert.ok(chainOf(rules, '-s', B1.ip));
  const ingressOnly = compile(base([policy('b', 'p', { podSelector: {} })])).rules;
  assert.ok(chainOf(ingressOnly, '-d', B1.ip));
  assert.is(chainOf(ingressOnly, '-s', B1.ip), undefined);
});

test('label selectors: matchLabels and every matchExpressions operator', () => {
  const labels = { app: 'web', tier: 'front' };
  assert.ok(selects({}, labels));
  assert.ok(selects({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] }, labels));
  assert.not.ok(selects({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, labels));
  assert.ok(selects({ matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['front'] }] }, labels));
  assert.ok(selects({ matchExpressions: [{ key: 'app', operator: 'Exists' }, { key: 'x', operator: 'DoesNotExist' }] }, labels));
  assert.not.ok(selects({ matchExpressions: [{ key: 'x', operator: 'Exists' }] }, labels));
});

test('restore input: chains declared (flushed) and refilled; chains no longer used are emptied and deleted', () => {
  const first = compile(base([policy('a', 'deny', { podSelector: {} })]));
  const second = compile(base([]));
  const input = restoreInput(second, first.chains);
  const stale = first.chains.filter((chain) => chain !== TOP_CHAIN);
  assert.ok(stale.length === 2);
  assert.equal(input.split('\n'), [
    '*filter', `:${TOP_CHAIN} - [0:0]`, ...stale.map((chain) => `:${chain} - [0:0]`), ...second.rules, ...stale.map((chain) => `-X ${chain}`), 'COMMIT', '',
  ]);
  assert.is(restoreInput(second, []), restoreInput(compile(base([])), [TOP_CHAIN]), 'same view, same input');
});

test.run();
