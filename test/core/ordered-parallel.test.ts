import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mapOrdered } from '../../src/core/ordered-parallel.ts';

const collect = async <T>(it: AsyncIterable<T>) => { const out: T[] = []; for await (const x of it) out.push(x); return out; };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const map = suite('mapOrdered');

map('yields in input order with at most `limit` calls in flight', async () => {
  let inFlight = 0;
  let peak = 0;
  const out = await collect(mapOrdered([30, 5, 20, 1, 10, 2], 3, async (ms, i) => {
    inFlight++;
    peak = Math.max(peak, inFlight);
    await sleep(ms);
    inFlight--;
    return i;
  }));
  assert.equal(out, [0, 1, 2, 3, 4, 5]);
  assert.is(peak, 3);
});

map('surfaces a failure when its turn comes', async () => {
  const seen: number[] = [];
  try {
    for await (const x of mapOrdered([1, 2, 3], 2, async (n) => { if (n === 2) throw new Error('boom'); return n; })) seen.push(x);
    assert.unreachable();
  } catch (e) {
    assert.is((e as Error).message, 'boom');
  }
  assert.equal(seen, [1]);
});

map('with a weight budget, heavy items go few at a time and light ones up to the limit', async () => {
  const sizes = [10, 10, 10, 1, 1, 1, 1, 1, 25, 10];
  let held = 0;
  let peakHeld = 0;
  let inFlight = 0;
  let peakLight = 0;
  const out: number[] = [];
  const budget = { weigh: (size: number) => size, max: 24 };
  for await (const { size, i } of mapOrdered(sizes, 4, async (size, i) => {
    held += size;
    peakHeld = Math.max(peakHeld, held);
    inFlight++;
    if (size === 1) peakLight = Math.max(peakLight, inFlight);
    await sleep(5);
    inFlight--;
    return { size, i };
  }, budget)) {
    await sleep(5); // the consumer holds the item meanwhile: it still counts
    out.push(i);
    held -= size;
  }
  assert.equal(out, sizes.map((_, i) => i));
  assert.ok(peakHeld <= 25, `held ${peakHeld}: at most the budget, or one item alone`);
  assert.is(peakLight, 4);
});

map.run();
