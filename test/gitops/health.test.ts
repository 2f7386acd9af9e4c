import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { liveness, readiness, type HealthFacts } from '../../src/gitops/operate/health.ts';

const NOW = Date.UTC(2026, 0, 1);
const LIMITS = { wedgedAfterMs: 180_000, chainStaleAfterMs: 60_000 };
const leader: HealthFacts = { leading: true, synced: true, stuckMs: 0, waiting: 0, processing: 0, chainOkAt: NOW - 1000, leadingSince: NOW - 3_600_000, now: NOW };

const rows: { name: string; facts: Partial<HealthFacts>; live: boolean; ready: boolean; message?: RegExp }[] = [
  { name: 'a leader at rest', facts: {}, live: true, ready: true },
  { name: 'busy but moving: keys wait, progress made within the bound', facts: { waiting: 5, processing: 2, stuckMs: 179_000 }, live: true, ready: true },
  { name: 'wedged: keys waiting, no pass started or finished beyond the bound', facts: { waiting: 3, processing: 2, stuckMs: 181_000 }, live: false, ready: true, message: /^reconcile loop wedged: 3 key\(s\) waiting and 2 in progress, no pass started or finished for 181s \(limit 180s\)$/ },
  { name: 'a standby: alive and ready, whatever the chain', facts: { leading: false, synced: false, chainOkAt: null, leadingSince: null }, live: true, ready: true },
  { name: 'a new leader before its informers synced', facts: { synced: false }, live: true, ready: false, message: /informers not synced/ },
  { name: 'the chain silent beyond its bound', facts: { chainOkAt: NOW - 61_000 }, live: true, ready: false, message: /^the last chain read that succeeded was 61s ago \(limit 60s\)$/ },
  { name: 'a new leader gets the bound for its first chain read', facts: { chainOkAt: null, leadingSince: NOW - 30_000 }, live: true, ready: true },
  { name: 'no chain read since leading, beyond the bound', facts: { chainOkAt: null, leadingSince: NOW - 90_000 }, live: true, ready: false, message: /^no chain read has succeeded since this replica began to lead/ },
];
for (const row of rows) {
  test(row.name, () => {
    const facts = { ...leader, ...row.facts };
    const live = liveness(facts, LIMITS);
    const ready = readiness(facts, LIMITS);
    assert.is(live.ok, row.live, live.message);
    assert.is(ready.ok, row.ready, ready.message);
    if (row.message) assert.match(row.live ? ready.message : live.message, row.message);
  });
}

test.run();
