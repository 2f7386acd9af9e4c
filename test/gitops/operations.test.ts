/**
 * The controller's operations endpoint (src/gitops/operate/) over HTTP, in front of the real Controller loop on the
 * recording cluster and a clock the test moves: a loop whose only worker hangs while keys wait fails /healthz once the
 * bound passes and recovers when the pass ends; /readyz follows the informers and the chain; /metrics counts passes by
 * outcome, what the written status changed, chain reads, the queue and leadership.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Controller } from '../../src/gitops/controller.ts';
import { WorkQueue } from '../../src/gitops/queue.ts';
import type { Outcome } from '../../src/gitops/reconcile/outcome.ts';
import type { Step } from '../../src/gitops/reconcile/reconcile.ts';
import { serveOperations } from '../../src/gitops/operate/operations-server.ts';
import { createTemplates } from '../../src/gitops/templates/create-templates.ts';
import { FakeCluster } from './support/fake-cluster.ts';
import { NAMESPACE, walrusApp } from './support/reconcile-fixture.ts';
import { ManualClock, settle } from '../support/manual-clock.ts';

const KEY = `${NAMESPACE}/web`;
const LIMITS = { wedgedAfterMs: 180_000, chainStaleAfterMs: 60_000 };

async function start(steps: Step[]) {
  const cluster = new FakeCluster();
  cluster.informers.walrusapps.objects.set(KEY, walrusApp());
  const clock = new ManualClock();
  const queue = new WorkQueue({ clock });
  let chainFails = false;
  const ledger = {
    resolve: async () => '0x1',
    getRepository: async () => { throw new Error('not read'); },
    listRefs: async () => new Map<string, string>(),
    listPushesAfter: async () => {
      if (chainFails) throw new Error('fetch failed');
      return { events: [], cursor: null, hasNextPage: false };
    },
    latestPushCursor: async () => null,
  };
  const controller = new Controller({
    cluster, ledger, templates: createTemplates({}), network: 'devnet', packageId: '0x2', namespace: null, controllerNamespace: 'walrus-gitops',
    identity: 'a', leaderElection: false, workers: 1, steps, queue, clock, log: () => {},
  });
  const running = controller.run();
  const server = await serveOperations(controller, LIMITS, { host: '127.0.0.1', port: 0 });
  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${server.port}${path}`);
    return { status: response.status, body: await response.text(), type: response.headers.get('content-type') };
  };
  const stop = async () => {
    await server.close();
    await controller.stop();
    await running;
  };
  return { controller, cluster, clock, queue, get, stop, failChain: (fails: boolean) => { chainFails = fails; } };
}

const operations = suite('controller operations endpoint');

operations('a wedged loop fails /healthz after the bound, and passes again once a pass ends', async () => {
  let release!: () => void;
  const hang = new Promise<Outcome>((resolve) => { release = () => resolve({ kind: 'Settled' }); });
  const c = await start([{ name: 'hangs', run: () => hang }]);
  await settle();
  assert.is(c.queue.processing, 1, 'the one worker holds the first key');
  assert.is((await c.get('/healthz')).status, 200, 'a long pass with nothing waiting is no wedge');
  c.queue.add(`${NAMESPACE}/other`);
  await c.clock.advance(179_000);
  assert.is((await c.get('/healthz')).status, 200, 'within the bound');
  await c.clock.advance(2_000);
  const wedged = await c.get('/healthz');
  assert.is(wedged.status, 503);
  assert.is(wedged.body, 'reconcile loop wedged: 1 key(s) waiting and 1 in progress, no pass started or finished for 181s (limit 180s)\n');
  const metrics = (await c.get('/metrics')).body;
  assert.match(metrics, '\nwalrus_gitops_queue_depth 1\n');
  assert.match(metrics, '\nwalrus_gitops_queue_stuck_seconds 181\n');
  release();
  await settle();
  assert.is((await c.get('/healthz')).status, 200);
  await c.stop();
});

operations('/readyz: ready once leading and synced with the chain answering; not ready when the chain stays silent', async () => {
  const c = await start([{ name: 'settles', run: () => ({ kind: 'Settled' }) }]);
  await settle();
  assert.is((await c.get('/readyz')).status, 200);
  c.failChain(true);
  await c.clock.advance(61_000);
  const stale = await c.get('/readyz');
  assert.is(stale.status, 503);
  assert.match(stale.body, /^the last chain read that succeeded was 6\ds ago \(limit 60s\)/);
  assert.is((await c.get('/healthz')).status, 200, 'a silent chain is not the process\'s fault: no restart');
  c.failChain(false);
  await c.clock.advance(1_000);
  assert.is((await c.get('/readyz')).status, 200);
  await c.stop();
});

operations('/metrics: passes by outcome, builds and rollouts from the conditions a pass changed, chain reads, leadership', async () => {
  const c = await start([{
    name: 'built-and-released',
    run: (pass) => {
      pass.set('Built', 'True', 'BuildSucceeded', 'built abc');
      pass.set('Released', 'True', 'RolloutSucceeded', 'abc rolled out');
      return { kind: 'Settled' };
    },
  }]);
  await settle();
  const scrape = await c.get('/metrics');
  assert.is(scrape.type, 'text/plain; version=0.0.4; charset=utf-8');
  for (const line of [
    'walrus_gitops_reconcile_total{outcome="settled"} 1',
    'walrus_gitops_reconcile_duration_seconds_count{outcome="settled"} 1',
    'walrus_gitops_builds_total{result="succeeded",reason="BuildSucceeded"} 1',
    'walrus_gitops_rollouts_total{result="succeeded",reason="RolloutSucceeded"} 1',
    'walrus_gitops_chain_reads_total{method="latestPushCursor"} 1',
    'walrus_gitops_leader 1',
    'walrus_gitops_queue_depth 0',
  ]) assert.ok(scrape.body.split('\n').includes(line), `${line} in\n${scrape.body}`);
  assert.not.match(scrape.body, /^walrus_gitops_leases_served /m, 'no provider mode: no lease count');
  // What the watch would bring: the app with the status the pass wrote.
  c.cluster.informers.walrusapps.objects.set(KEY, { ...walrusApp(), status: c.cluster.statuses.at(-1)! });
  c.queue.add(KEY);
  await settle();
  assert.ok((await c.get('/metrics')).body.includes('walrus_gitops_reconcile_total{outcome="settled"} 2\n'));
  assert.not.match((await c.get('/metrics')).body, 'walrus_gitops_builds_total{result="succeeded",reason="BuildSucceeded"} 2', 'the same status again counts nothing');
  assert.is((await c.get('/nothing')).status, 404);
  await c.stop();
});

operations.run();
