import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { concatBytes } from '../../src/core/bytes.ts';

test('the parts one after another; one part is returned as it is, none gives an empty array', () => {
  assert.equal(concatBytes([Uint8Array.of(1, 2), new Uint8Array(), Uint8Array.of(3)]), Uint8Array.of(1, 2, 3));
  const only = Uint8Array.of(9, 8);
  assert.is(concatBytes([only]), only);
  assert.equal(concatBytes([]), new Uint8Array());
});

test.run();
