import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ByteRate, FollowerSlots } from '../../../src/gitops/gateway/stream-bounds.ts';

const rate = suite('a stream\'s byte rate');
rate('the burst goes at once; beyond it, the wait is what the rate needs', () => {
  const bucket = new ByteRate(1000, 500, 0);
  assert.is(bucket.take(500, 0), 0);
  assert.is(bucket.take(100, 0), 100);
  // 100 ms later the debt of 100 bytes is paid: the next 100 wait 100 ms again.
  assert.is(bucket.take(100, 100), 100);
});
rate('an idle stream earns no more than its burst', () => {
  const bucket = new ByteRate(1000, 500, 0);
  assert.is(bucket.take(500, 1_000_000), 0);
  assert.is(bucket.take(1000, 1_000_000), 1000);
});
rate('a rate or burst of zero is refused', () => {
  assert.throws(() => new ByteRate(0, 1, 0), /positive/);
});
rate.run();

const slots = suite('followers per lease and in all');
slots('a lease gets at most its share; a released place is free again', () => {
  const places = new FollowerSlots(2, 10);
  const one = places.acquire('L');
  const two = places.acquire('L');
  const three = places.acquire('L');
  assert.ok(one.ok && two.ok);
  assert.not.ok(three.ok);
  assert.match(!three.ok ? three.why : '', /lease L already has 2 followers \(at most 2\)/);
  if (one.ok) { one.release(); one.release(); }
  assert.is(places.followers('L'), 1);
  assert.ok(places.acquire('L').ok);
});
slots('the gateway\'s total bounds all leases together', () => {
  const places = new FollowerSlots(5, 2);
  assert.ok(places.acquire('A').ok);
  assert.ok(places.acquire('B').ok);
  const refused = places.acquire('C');
  assert.not.ok(refused.ok);
  assert.match(!refused.ok ? refused.why : '', /already serves 2 followers/);
  assert.is(places.count, 2);
});
slots.run();
