import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../src/core/errors.ts';
import { formatPrice, formatSui, parseSuiAmount } from '../../src/core/sui-amount.ts';

const parse = suite('parseSuiAmount');

parse('reads SUI (the default unit) and MIST exactly', () => {
  assert.is(parseSuiAmount('1'), 1_000_000_000n);
  assert.is(parseSuiAmount('1.5'), 1_500_000_000n);
  assert.is(parseSuiAmount('0.000000001 SUI'), 1n);
  assert.is(parseSuiAmount('12.345678912sui'), 12_345_678_912n);
  assert.is(parseSuiAmount('250MIST'), 250n);
  assert.is(parseSuiAmount(' 7 mist '), 7n);
  // Beyond 2^53: no float on the way.
  assert.is(parseSuiAmount('123456789.123456789'), 123_456_789_123_456_789n);
});

parse('refuses what is not an exact amount, saying which forms work', () => {
  for (const bad of ['', 'abc', '-1', '1.0000000001', '1.5 MIST', '1e9', '1,5', '.5']) {
    assert.throws(() => parseSuiAmount(bad, 'deposit'), (e: unknown) => e instanceof UsageError && /deposit .* at most 9 decimals/.test(e.message), bad);
  }
});

parse.run();

const format = suite('formatSui');

format('prints MIST as SUI exactly, and round-trips', () => {
  assert.is(formatSui(0n), '0 SUI');
  assert.is(formatSui(1n), '0.000000001 SUI');
  assert.is(formatSui(1_500_000_000n), '1.5 SUI');
  assert.is(formatSui(123_456_789_123_456_789n), '123456789.123456789 SUI');
  for (const mist of [0n, 1n, 999n, 1_000_000_000n, 42_000_000_007n]) assert.is(parseSuiAmount(formatSui(mist)), mist);
  assert.is(formatPrice(2n), '2 MIST/ms (0.0072 SUI/hour)');
});

format.run();
