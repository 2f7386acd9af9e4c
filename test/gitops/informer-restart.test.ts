/**
 * The Kubernetes adapter's self-restarting informer (src/k8s/informer.ts) over a fake watch, on a clock the test
 * moves: a watch that dies, a start that keeps failing, a watch that goes silent, a stop in the middle of a back-off.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubernetesObject } from '@kubernetes/client-node';
import { RestartingInformer, type Watch } from '../../src/k8s/informer.ts';
import type { InformerEvent } from '../../src/ports/cluster.ts';
import { ManualClock, settle } from '../support/manual-clock.ts';

class FakeWatch implements Watch<KubernetesObject> {
  starts = 0;
  stops = 0;
  /** How many of the next starts fail. */
  failing = 0;
  readonly #on: Record<InformerEvent | 'connect', ((object: KubernetesObject) => void)[]> = { add: [], update: [], delete: [], connect: [] };
  readonly #onError: ((error: unknown) => void)[] = [];

  on(event: InformerEvent, handler: (object: KubernetesObject) => void): void {
    this.#on[event].push(handler);
  }
  onConnect(handler: () => void): void {
    this.#on.connect.push(handler);
  }
  onError(handler: (error: unknown) => void): void {
    this.#onError.push(handler);
  }
  async start(): Promise<void> {
    this.starts++;
    if (this.failing > 0) {
      this.failing--;
      throw new Error('connect ECONNREFUSED 127.0.0.1:6443');
    }
  }
  async stop(): Promise<void> {
    this.stops++;
  }
  get(): KubernetesObject | undefined {
    return undefined;
  }
  list(): KubernetesObject[] {
    return [];
  }
  /** A watch event, or a reconnection: signs of life. */
  emit(event: InformerEvent | 'connect'): void {
    for (const handler of this.#on[event]) handler({ metadata: { name: 'x', namespace: 'y' } });
  }
  /** client-node's informer stopping on an error. */
  die(error: Error): void {
    for (const handler of this.#onError) handler(error);
  }
}

function setUp(watchdogMs = 60_000) {
  const clock = new ManualClock();
  const watch = new FakeWatch();
  const logs: string[] = [];
  const informer = new RestartingInformer(watch, { name: 'jobs', watchdogMs, clock, log: (line) => logs.push(line) });
  let restarts = 0;
  informer.onRestart(() => restarts++);
  return { clock, watch, logs, informer, restarts: () => restarts };
}

test('a watch that dies is started again after a 1 s back-off, and the owner is told (events may have been missed)', async () => {
  const { clock, watch, logs, informer, restarts } = setUp();
  await informer.start();
  assert.is(watch.starts, 1);
  watch.die(new Error('watch closed with 500'));
  await settle();
  assert.is(watch.stops, 1, 'stopped before it is started again');
  assert.equal(logs, ['the jobs informer stopped: watch closed with 500; restarting']);
  await clock.advance(999);
  assert.is(watch.starts, 1, 'not before the back-off');
  await clock.advance(1);
  assert.is(watch.starts, 2);
  assert.is(restarts(), 1);
  await informer.stop();
});

test('a start that keeps failing backs off 1 s, 2 s, 4 s; a sign of life resets the back-off', async () => {
  const { clock, watch, logs, informer, restarts } = setUp();
  watch.failing = 3;
  let up = false;
  const starting = informer.start().then(() => { up = true; });
  await settle();
  for (const [wait, starts] of [[1000, 2], [2000, 3], [4000, 4]] as const) {
    assert.is(watch.starts, starts - 1);
    await clock.advance(wait - 1);
    assert.is(watch.starts, starts - 1, `not before ${wait} ms`);
    await clock.advance(1);
    assert.is(watch.starts, starts);
  }
  await starting;
  assert.ok(up);
  assert.equal(logs.map((line) => line.match(/again in \w+/)?.[0]), ['again in 1s', 'again in 2s', 'again in 4s']);
  assert.is(restarts(), 0, 'a first start is no restart');

  watch.emit('connect');
  watch.die(new Error('watch closed'));
  await clock.advance(1000);
  assert.is(watch.starts, 5, 'back to 1 s after a sign of life');
  assert.is(restarts(), 1);
  await informer.stop();
});

test('a silent watch is restarted by the watchdog; one that shows signs of life is left alone', async () => {
  const { clock, watch, logs, informer, restarts } = setUp(60_000);
  await informer.start();
  for (let n = 0; n < 6; n++) {
    await clock.advance(20_000);
    watch.emit(n % 2 ? 'update' : 'connect');
  }
  assert.is(watch.stops, 0, 'two minutes with an event every 20 s: no restart');
  await clock.advance(60_000 + 15_000);
  assert.is(watch.stops, 1);
  assert.match(logs.join('\n'), 'the jobs informer showed no sign of life for 60s; restarting it');
  await clock.advance(1000);
  assert.is(watch.starts, 2);
  assert.is(restarts(), 1);
  await informer.stop();
});

test('stopped during a back-off → never started again, and no restart announced', async () => {
  const { clock, watch, informer, restarts } = setUp();
  await informer.start();
  watch.die(new Error('watch closed'));
  await settle();
  await informer.stop();
  await clock.advance(10 * 60_000);
  assert.is(watch.starts, 1);
  assert.is(restarts(), 0);
  assert.is(clock.sleeping, 0, 'no loop left waiting');
});

test.run();
