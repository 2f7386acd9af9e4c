import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { currentEpoch, isExpired } from '../../../src/devnet/walrus/epochs.ts';

const clock = { genesisMs: 10_000, epochDurationMs: 1000 };

const current = suite('currentEpoch');

current('starts at 1 at genesis and advances once per epoch duration', () => {
  assert.is(currentEpoch(clock, 5_000), 1);
  assert.is(currentEpoch(clock, 10_000), 1);
  assert.is(currentEpoch(clock, 10_999), 1);
  assert.is(currentEpoch(clock, 11_000), 2);
  assert.is(currentEpoch(clock, 62_500), 53);
});

current.run();

const expired = suite('isExpired');

expired('the end epoch is exclusive', () => {
  assert.not.ok(isExpired(3, 2));
  assert.ok(isExpired(3, 3));
});

expired.run();
