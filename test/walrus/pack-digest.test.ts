import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PackDigest, sha256Hex } from '../../src/walrus/pack-digest.ts';
import { PackIntegrityError } from '../../src/walrus/errors.ts';

const digest = suite('PackDigest');

digest('accepts chunks whose concatenation has the recorded sha256, refuses any other data', () => {
  const chunks = [new TextEncoder().encode('PACK'), new Uint8Array([0, 0, 0, 2]), new Uint8Array(1000).fill(3)];
  const whole = Buffer.concat(chunks);
  const ok = new PackDigest();
  chunks.forEach((c) => ok.update(c));
  ok.verify(sha256Hex(whole).toUpperCase());
  const bad = new PackDigest();
  chunks.slice(0, 2).forEach((c) => bad.update(c));
  assert.throws(() => bad.verify(sha256Hex(whole), { blobIds: ['a'] }), (e: unknown) => e instanceof PackIntegrityError && e.data.size === 8);
});

digest.run();

const hex = suite('sha256Hex');

hex('is the standard sha256 in lowercase hex', () => {
  assert.is(sha256Hex(new TextEncoder().encode('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
});

hex.run();
