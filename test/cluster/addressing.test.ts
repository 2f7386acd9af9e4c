import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chooseSubnets, cidrsOverlap, hostRules, nextPodIp, nodeNames, podBridgePort, podNetnsName, runNames, runOfName, subnetsFor, taggedRules,
} from './node/addressing.ts';

const addressing = suite('k8s node addressing');

addressing('a run takes the same third octet in its pod, service and link subnets', () => {
  const s = subnetsFor(7);
  assert.equal([s.podCidr, s.serviceCidr, s.linkCidr], ['10.244.7.0/24', '10.96.7.0/24', '10.245.7.0/30']);
  assert.equal([s.hostIp, s.nodeIp, s.bridgeIp, s.apiServiceIp, s.ingressIp], ['10.245.7.1', '10.245.7.2', '10.244.7.1', '10.96.7.1', '10.244.7.254']);
  assert.ok(cidrsOverlap(s.linkCidr, `${s.hostIp}/32`) && cidrsOverlap(s.linkCidr, s.nodeIp));
  assert.throws(() => subnetsFor(0), /not in 1\.\.254/);
  assert.throws(() => subnetsFor(255), /not in 1\.\.254/);
});

addressing('the chosen subnets avoid routed networks and other runs', () => {
  assert.is(chooseSubnets(['default', '192.0.2.0/24', '127.0.0.0/8'], new Set()).index, 1);
  assert.is(chooseSubnets([], new Set([1, 2])).index, 3);
  // A route anywhere in one of the three subnets rules the index out; a wide one rules out many.
  assert.is(chooseSubnets(['10.96.1.128/25'], new Set()).index, 2);
  assert.is(chooseSubnets(['10.245.1.3'], new Set()).index, 2);
  assert.is(chooseSubnets(['10.244.0.0/22'], new Set()).index, 4);
  assert.throws(() => chooseSubnets(['10.0.0.0/8'], new Set()), /no free subnet/);
});

addressing('CIDR overlap is computed on network boundaries', () => {
  assert.ok(cidrsOverlap('10.0.0.0/8', '10.255.255.53'));
  assert.ok(cidrsOverlap('10.244.3.7/24', '10.244.3.200/32'));
  assert.not.ok(cidrsOverlap('10.244.3.0/24', '10.244.4.0/24'));
  assert.not.ok(cidrsOverlap('10.245.1.0/30', '10.245.1.4/30'));
  assert.throws(() => cidrsOverlap('10.1.2/24', '10.0.0.0/8'), /not an IPv4 CIDR/);
});

addressing('pod addresses start after the bridge, skip those in use, and go round robin: one just released comes last', () => {
  assert.is(nextPodIp('10.244.9.0/24', new Set()), '10.244.9.2');
  assert.is(nextPodIp('10.244.9.0/24', new Set(['10.244.9.2', '10.244.9.4'])), '10.244.9.3');
  // After .5, .6 comes next even though .2 to .4 are free again; past .239, round again from .2.
  assert.is(nextPodIp('10.244.9.0/24', new Set(), '10.244.9.5'), '10.244.9.6');
  assert.is(nextPodIp('10.244.9.0/24', new Set(['10.244.9.6', '10.244.9.7']), '10.244.9.5'), '10.244.9.8');
  assert.is(nextPodIp('10.244.9.0/24', new Set(), '10.244.9.239'), '10.244.9.2');
  assert.is(nextPodIp('10.244.9.0/24', new Set(['10.244.9.239', '10.244.9.2']), '10.244.9.238'), '10.244.9.3');
  // The only free address is the one given last: it is given again rather than none.
  const allBut5 = new Set(Array.from({ length: 238 }, (_, i) => `10.244.9.${i + 2}`).filter((ip) => ip !== '10.244.9.5'));
  assert.is(nextPodIp('10.244.9.0/24', allBut5, '10.244.9.5'), '10.244.9.5');
  // A last address of another subnet (a run before a restart) starts from .2 again.
  assert.is(nextPodIp('10.244.9.0/24', new Set(), '10.244.8.17'), '10.244.9.2');
  // The last addresses are the LoadBalancer pool's and the ingress stand-in's: a pod never gets them.
  assert.equal([subnetsFor(9).loadBalancerPool[0], subnetsFor(9).loadBalancerPool.at(-1)], ['10.244.9.240', '10.244.9.253']);
  const full = new Set(Array.from({ length: 238 }, (_, i) => `10.244.9.${i + 2}`));
  assert.throws(() => nextPodIp('10.244.9.0/24', full), /is full/);
});

addressing('names carry the run, fit interface names, and are recognised as ours', () => {
  const names = runNames('0a1b2c');
  assert.equal(names, { tag: 'grw-0a1b2c', hostLink: 'grw-0a1b2c', nodeNetns: 'grw-0a1b2c-node', nodeLink: 'uplink', bridge: 'cbr0' });
  assert.ok(names.hostLink.length <= 15);
  const uid = '3F2504E0-4F89-11D3-9A0C-0305E82C3301';
  assert.is(podNetnsName('0a1b2c', uid), 'grw-0a1b2c-3f2504e0');
  assert.is(podBridgePort(uid), 'v3f2504e0');
  assert.is(runOfName('grw-0a1b2c-node'), '0a1b2c');
  assert.is(runOfName('grw-0a1b2c'), '0a1b2c');
  for (const foreign of ['grw-0a1b2', 'grw-0a1b2cd', 'docker0', 'cni-grw-0a1b2c', 'grw-XYZXYZ-node']) assert.is(runOfName(foreign), undefined, foreign);
  assert.throws(() => runNames('run1'), /six hex digits/);
  // The first node's names are the run's; later ones are numbered, all still the run's by name and within 15 characters.
  assert.equal(nodeNames('0a1b2c', 1), { ...runNames('0a1b2c'), nodeName: 'node-0a1b2c' });
  const third = nodeNames('0a1b2c', 3);
  assert.equal([third.nodeNetns, third.hostLink, third.nodeName], ['grw-0a1b2c-node3', 'grw-0a1b2c-3', 'node-0a1b2c-3']);
  assert.is(runOfName(third.nodeNetns), '0a1b2c');
  assert.is(runOfName(third.hostLink), '0a1b2c');
  assert.throws(() => nodeNames('0a1b2c', 0), /not in 1..9/);
});

addressing('tagged rules round-trip from iptables-save into delete commands of their run only', () => {
  const rules = hostRules('0a1b2c', [subnetsFor(5), subnetsFor(9)]);
  // One masquerade per node's pods, none between the run's own links (grw-0a1b2c, grw-0a1b2c-2, ...).
  assert.equal(rules.map((r) => r.spec), [
    ['-s', '10.244.5.0/24', '!', '-o', 'grw-0a1b2c+', '-m', 'comment', '--comment', 'grw-0a1b2c', '-j', 'MASQUERADE'],
    ['-s', '10.244.9.0/24', '!', '-o', 'grw-0a1b2c+', '-m', 'comment', '--comment', 'grw-0a1b2c', '-j', 'MASQUERADE'],
    ['-i', 'grw-0a1b2c+', '-m', 'comment', '--comment', 'grw-0a1b2c', '-j', 'ACCEPT'],
    ['-o', 'grw-0a1b2c+', '-m', 'comment', '--comment', 'grw-0a1b2c', '-j', 'ACCEPT'],
  ]);
  const saved = [
    '*nat',
    ':POSTROUTING ACCEPT [0:0]',
    '-A POSTROUTING -s 10.244.5.0/24 ! -o grw-0a1b2c+ -m comment --comment grw-0a1b2c -j MASQUERADE',
    '-A POSTROUTING -s 172.17.0.0/16 -m comment --comment "docker grw-0a1b2c" -j MASQUERADE',
    '-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING',
    'COMMIT',
    '*filter',
    '-A FORWARD -i grw-ffffff -m comment --comment "grw-ffffff" -j ACCEPT',
    'COMMIT',
  ].join('\n');
  assert.equal(taggedRules(saved), [
    { runId: '0a1b2c', table: 'nat', args: ['-D', 'POSTROUTING', '-s', '10.244.5.0/24', '!', '-o', 'grw-0a1b2c+', '-m', 'comment', '--comment', 'grw-0a1b2c', '-j', 'MASQUERADE'] },
    { runId: 'ffffff', table: 'filter', args: ['-D', 'FORWARD', '-i', 'grw-ffffff', '-m', 'comment', '--comment', 'grw-ffffff', '-j', 'ACCEPT'] },
  ]);
});

addressing.run();
