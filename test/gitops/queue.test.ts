import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WorkQueue } from '../../src/gitops/queue.ts';
import { ManualClock, settle } from '../support/manual-clock.ts';

test('a key added many times while waiting is handed out once, in first-added order', async () => {
  const queue = new WorkQueue();
  for (const key of ['a/x', 'b/y', 'a/x', 'a/x', 'c/z', 'b/y']) queue.add(key);
  assert.is(queue.length, 3);
  assert.equal([await queue.get(), await queue.get(), await queue.get()], ['a/x', 'b/y', 'c/z']);
  assert.is(queue.length, 0);
});

test('a key being processed is not handed to a second worker; added meanwhile, it comes back after done', async () => {
  const queue = new WorkQueue();
  queue.add('ns/app');
  const first = await queue.get();
  queue.add('ns/app');
  queue.add('ns/app');
  let second: string | null | undefined;
  void queue.get().then((key) => (second = key));
  await settle();
  assert.is(second, undefined, 'no second worker gets the key while the first holds it');
  queue.done(first!);
  await settle();
  assert.is(second, 'ns/app', 'queued again once, after done');
  queue.done('ns/app');
  assert.is(queue.length, 0);
});

test('a waiting worker gets a key as soon as it is added', async () => {
  const queue = new WorkQueue();
  const pending = queue.get();
  queue.add('ns/late');
  assert.is(await pending, 'ns/late');
});

test('back-off doubles per failure up to the cap, and forget resets it', () => {
  const queue = new WorkQueue({ baseDelayMs: 10, maxDelayMs: 50 });
  const delays = [1, 2, 3, 4, 5].map(() => queue.addRateLimited('ns/bad'));
  assert.equal(delays, [10, 20, 40, 50, 50]);
  assert.is(queue.failures('ns/bad'), 5);
  assert.is(queue.addRateLimited('ns/other'), 10, 'back-off is per key');
  queue.forget('ns/bad');
  assert.is(queue.addRateLimited('ns/bad'), 10);
  queue.shutDown();
});

test('addAfter delivers after the delay, and the earliest of several delayed adds wins', async () => {
  const clock = new ManualClock();
  const queue = new WorkQueue({ clock });
  queue.addAfter('ns/a', 200);
  queue.addAfter('ns/a', 20);
  queue.addAfter('ns/a', 300);
  assert.is(clock.sleeping, 1, 'one delayed add: the earliest');
  await clock.advance(19);
  assert.is(queue.length, 0, 'not before its delay');
  await clock.advance(1);
  assert.is(queue.length, 1, 'at its delay');
  assert.is(await queue.get(), 'ns/a');
  queue.done('ns/a');
  await clock.advance(300);
  assert.is(queue.length, 0, 'the later delayed adds were dropped');
});

test('addRateLimited waits out the back-off on the clock; shutDown cancels what is still delayed', async () => {
  const clock = new ManualClock();
  const queue = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 1000, clock });
  queue.addRateLimited('ns/bad');
  await clock.advance(99);
  assert.is(queue.length, 0);
  await clock.advance(1);
  assert.is(queue.length, 1);
  queue.addAfter('ns/later', 50);
  queue.shutDown();
  assert.is(clock.sleeping, 0);
  await clock.advance(100);
  assert.is(queue.length, 1, 'nothing delayed arrives after shutDown');
});

test('shutDown wakes waiting workers with null and refuses adds', async () => {
  const queue = new WorkQueue();
  const waiting = queue.get();
  queue.shutDown();
  assert.is(await waiting, null);
  queue.add('ns/x');
  assert.is(await queue.get(), null);
});

test('stuckMs: how long keys have waited with no key handed out or done; 0 while none waits', async () => {
  const clock = new ManualClock();
  const queue = new WorkQueue({ clock });
  assert.is(queue.stuckMs(), 0);
  queue.add('ns/a');
  const held = await queue.get();
  await clock.advance(60_000);
  assert.is(queue.stuckMs(), 0, 'nothing waits: a long pass alone is no wedge');
  queue.add('ns/b');
  await clock.advance(30_000);
  assert.is(queue.stuckMs(), 30_000, 'measured from when the key began to wait, not from the last progress');
  assert.is(queue.processing, 1);
  queue.done(held!);
  assert.is(queue.stuckMs(), 0, 'progress');
  await clock.advance(10_000);
  assert.is(queue.stuckMs(), 10_000);
  await queue.get();
  assert.is(queue.stuckMs(), 0);
});

test.run();
