import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ReplayWindow } from '../../../src/gitops/gateway/replay-window.ts';

const a = `0x${'aa'.repeat(32)}`;
const b = `0x${'bb'.repeat(32)}`;

const window = suite('the replay window: stale times and used nonces refused');
window('a time within the window either side is accepted; beyond it is stale, with how far and which way', () => {
  const replay = new ReplayWindow({ windowMs: 60_000 });
  assert.ok(replay.checkTime(1_000_000 - 60_000, 1_000_000).ok);
  assert.ok(replay.checkTime(1_000_000 + 60_000, 1_000_000).ok);
  const behind = replay.checkTime(1_000_000 - 90_000, 1_000_000);
  assert.is(behind.status, 401);
  assert.match(behind.why!, /90 s behind the gateway's clock/);
  assert.match(replay.checkTime(1_000_000 + 61_000, 1_000_000).why!, /61 s ahead of/);
});
window('a request signed before the window began (the gateway restarted) is refused, however fresh its time', () => {
  const replay = new ReplayWindow({ windowMs: 60_000, sinceMs: 1_000_000 });
  const before = replay.checkTime(1_000_000 - 1, 1_000_500);
  assert.is(before.status, 401);
  assert.match(before.why!, /signed before the gateway started/);
  assert.ok(replay.checkTime(1_000_000, 1_000_500).ok);
  // Beyond the window, staleness is what the signer needs to hear.
  assert.match(replay.checkTime(1_000_000 - 90_000, 1_000_500).why!, /behind the gateway's clock/);
});
window('a nonce is served once per address; another address may use the same nonce', () => {
  const replay = new ReplayWindow();
  assert.ok(replay.admit(a, '00ff00ff00ff00ff', 1000).ok);
  const again = replay.admit(a, '00ff00ff00ff00ff', 1001);
  assert.is(again.status, 401);
  assert.match(again.why!, /already served/);
  assert.ok(replay.admit(b, '00ff00ff00ff00ff', 1002).ok);
});
window('a nonce is remembered for twice the window (as long as its time can be accepted), then forgotten', () => {
  const replay = new ReplayWindow({ windowMs: 10 });
  assert.ok(replay.admit(a, '0000000000000001', 100).ok);
  assert.not.ok(replay.admit(a, '0000000000000001', 119).ok);
  assert.ok(replay.admit(a, '0000000000000002', 121).ok);
  assert.is(replay.size, 1);
});
window('a full memory refuses new requests (503) rather than forget a nonce early', () => {
  const replay = new ReplayWindow({ windowMs: 1000, maxEntries: 2 });
  assert.ok(replay.admit(a, '0000000000000001', 0).ok);
  assert.ok(replay.admit(a, '0000000000000002', 0).ok);
  assert.is(replay.admit(a, '0000000000000003', 1).status, 503);
  assert.ok(replay.admit(a, '0000000000000003', 2001).ok);
});
window.run();
