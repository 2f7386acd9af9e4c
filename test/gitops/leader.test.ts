/**
 * Leader election on a Lease (src/gitops/leader.ts) against the recording cluster's Lease (compare-and-swap on the
 * resourceVersion, as the API server does), on a clock the test moves: acquiring, renewing, following a live holder,
 * taking over from a dead one, losing the Lease when renewals fail, releasing it on stop.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClusterRequestError } from '../../src/ports/cluster-errors.ts';
import { LeaderElector } from '../../src/gitops/leader.ts';
import { FakeCluster } from './support/fake-cluster.ts';
import { ManualClock, settle } from '../support/manual-clock.ts';

const LEASE = { namespace: 'walrus-gitops', name: 'walrus-gitops-controller' };

function candidate(identity: string, cluster = new FakeCluster(), clock = new ManualClock()) {
  const logs: string[] = [];
  const elector = new LeaderElector({ cluster, lease: LEASE, identity, clock, random: () => 0, log: (line) => logs.push(line) });
  let lost: AbortSignal | undefined;
  const running = elector.run((signal) => { lost = signal; });
  return { elector, cluster, clock, logs, running, leads: () => lost !== undefined, lost: () => lost?.aborted === true };
}

/** Another replica's record in the Lease, renewed at `at`. */
function heldBy(cluster: FakeCluster, holder: string, at: number): void {
  const version = Number(cluster.lease?.metadata?.resourceVersion ?? 0) + 1;
  cluster.lease = {
    metadata: { ...LEASE, resourceVersion: String(version) },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: new Date(at), renewTime: new Date(at), leaseTransitions: 0 },
  };
}

test('no Lease → created, this replica leads and renews it every retry period (2 s); stop releases it', async () => {
  const a = candidate('a');
  await settle();
  assert.ok(a.leads());
  assert.equal(a.cluster.actions, [`create leases ${LEASE.namespace}/${LEASE.name}`]);
  await a.clock.advance(4000);
  assert.equal(a.cluster.actions.slice(1), [`update leases ${LEASE.namespace}/${LEASE.name} holder=a`, `update leases ${LEASE.namespace}/${LEASE.name} holder=a`]);
  a.elector.stop();
  await a.running;
  assert.ok(a.lost(), 'the leader callback is told');
  assert.is(a.cluster.actions.at(-1), `update leases ${LEASE.namespace}/${LEASE.name} holder=`, 'released: a successor need not wait for it to expire');
  assert.is(a.cluster.lease?.spec?.leaseDurationSeconds, 1);
});

test('a Lease whose holder keeps renewing → followed; once its renewals stop for a lease duration, as seen here, taken over', async () => {
  const cluster = new FakeCluster();
  const clock = new ManualClock();
  heldBy(cluster, 'b', clock.now());
  const a = candidate('a', cluster, clock);
  for (let n = 0; n < 15; n++) {
    await clock.advance(2000);
    heldBy(cluster, 'b', clock.now());
  }
  assert.not.ok(a.leads(), 'b renewed every 2 s for 30 s');
  assert.equal(cluster.actions, [], 'a follower writes nothing');
  await clock.advance(14_000);
  assert.not.ok(a.leads(), 'not before b\'s record is a lease duration old');
  await clock.advance(4000);
  assert.ok(a.leads());
  assert.equal([cluster.lease?.spec?.holderIdentity, cluster.lease?.spec?.leaseTransitions], ['a', 1]);
  a.elector.stop();
  await a.running;
});

test('renewals failing past the renew deadline (10 s) → leadership lost: the callback is told, run ends, the Lease is not released', async () => {
  const a = candidate('a');
  await settle();
  assert.ok(a.leads());
  a.cluster.failOn('readLease', () => new ClusterRequestError('get', 'leases', 503, 'the server is currently unable to handle the request'));
  let ended = false;
  void a.running.then(() => { ended = true; });
  await a.clock.advance(10_000);
  assert.not.ok(a.lost(), 'still within the renew deadline');
  await a.clock.advance(2000);
  assert.ok(a.lost());
  await settle();
  assert.ok(ended);
  assert.match(a.logs.join('\n'), 'a could not renew the lease within 10s and stops leading');
  assert.not.match(a.cluster.actions.join('\n'), /holder=$/m, 'not released: another replica takes it when it expires');
});

test('another replica took the Lease meanwhile → this one stops leading at the renew deadline', async () => {
  const a = candidate('a');
  await settle();
  heldBy(a.cluster, 'b', a.clock.now());
  for (let n = 0; n < 6; n++) {
    await a.clock.advance(2000);
    heldBy(a.cluster, 'b', a.clock.now());
  }
  assert.ok(a.lost());
  await a.running;
  assert.is(a.cluster.lease?.spec?.holderIdentity, 'b');
});

test.run();
