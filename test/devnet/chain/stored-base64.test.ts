import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { fromBase64, toBase64 } from '@mysten/sui/utils';
import { fromStoredBase64, toStoredBase64 } from '../../../src/devnet/chain/stored-base64.ts';

const codec = suite('stored base64');

codec('encodes and decodes exactly as the SDK does, for every length remainder and views into larger buffers', () => {
  for (const length of [0, 1, 2, 3, 4, 31, 32, 33, 4095, 4096, 70_001]) {
    const bytes = new Uint8Array(randomBytes(length));
    const text = toStoredBase64(bytes);
    assert.is(text, toBase64(bytes));
    const back = fromStoredBase64(text);
    assert.equal(back, fromBase64(text));
    assert.is(back.constructor, Uint8Array); // not a Buffer, whose slice() would share memory
  }
  const outer = new Uint8Array(randomBytes(64));
  const view = outer.subarray(5, 40);
  assert.is(toStoredBase64(view), toBase64(view));
});

codec('a decoded record owns its bytes: no view of a shared pool', () => {
  const decoded = fromStoredBase64(toBase64(new Uint8Array([1, 2, 3])));
  assert.is(decoded.byteOffset, 0);
  assert.is(decoded.buffer.byteLength, 3);
});

codec.run();
