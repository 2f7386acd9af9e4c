import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatBytes, rateOf } from '../../src/remote/progress.ts';

test('byte counts and rates read as a person writes them: whole bytes, two decimals above', () => {
  assert.is(formatBytes(0), '0 bytes');
  assert.is(formatBytes(1023), '1023 bytes');
  assert.is(formatBytes(1536), '1.50 KiB');
  assert.is(formatBytes(3 * 1024 ** 2), '3.00 MiB');
  assert.is(formatBytes(1024 ** 3), '1.00 GiB');
  // 1472 bytes in 5.3317 s: the rate a slow checkout printed as "276.0800842992624 bytes/s".
  assert.is(rateOf(1472, 0, 5331.7), '276 bytes/s');
  assert.is(rateOf(2048, 0, 1000), '2.00 KiB/s');
});

test.run();
