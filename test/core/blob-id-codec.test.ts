import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { blobIdFromInt, blobIdToInt } from '@mysten/walrus';
import { InvalidBlobIdError, blobIdFromBytes, blobIdToU256, isBlobId, u256ToBlobId } from '../../src/core/blob-id-codec.ts';

// The Walrus SDK is the reference: the codec must agree with it on every value, including the extremes.
const U256_MAX = (1n << 256n) - 1n;
const values = [0n, 1n, 255n, 256n, 0x1234567n * 77n, 1n << 255n, U256_MAX - 1n, U256_MAX];
// A published id (Walrus docs, "some other string" at 1000 shards) and a spread of generated ones.
const published = 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk';
for (let i = 1n; i < 64n; i += 1n) values.push((U256_MAX / 64n) * i + i * 0x9e3779b97f4a7c15n);

// ---
const toU256 = suite('blobIdToU256');
toU256('agrees with blobIdToInt of @mysten/walrus', () => {
  for (const value of values) {
    const id = blobIdFromInt(value);
    assert.is(blobIdToU256(id), blobIdToInt(id), id);
  }
  assert.is(blobIdToU256(published), blobIdToInt(published));
});
toU256('refuses what is not a canonical 43-character id with a typed error', () => {
  for (const bad of ['abc', `${published}A`, published.replace('-', '+'), `${published.slice(0, 42)}l`]) {
    const error = (() => { try { blobIdToU256(bad); } catch (e) { return e; } })();
    assert.instance(error, InvalidBlobIdError, bad);
    assert.is((error as InvalidBlobIdError).code, 'INVALID_BLOB_ID');
    assert.equal((error as InvalidBlobIdError).data, { blobId: bad });
  }
});
toU256.run();

// ---
const fromU256 = suite('u256ToBlobId');
fromU256('agrees with blobIdFromInt of @mysten/walrus and round-trips', () => {
  for (const value of values) {
    assert.is(u256ToBlobId(value), blobIdFromInt(value), String(value));
    assert.is(blobIdToU256(u256ToBlobId(value)), value);
  }
  assert.is(u256ToBlobId(blobIdToInt(published)), published);
});
fromU256('refuses values outside u256', () => {
  assert.throws(() => u256ToBlobId(-1n), RangeError);
  assert.throws(() => u256ToBlobId(U256_MAX + 1n), RangeError);
});
fromU256.run();

// ---
const fromBytes = suite('blobIdFromBytes');
fromBytes('reads the bytes as the little-endian u256 and respects a view into a larger buffer', () => {
  const backing = new Uint8Array(40).map((_, i) => i);
  const view = backing.subarray(4, 36);
  const id = blobIdFromBytes(view);
  assert.is(blobIdToInt(id), view.reduceRight((acc, byte) => (acc << 8n) | BigInt(byte), 0n));
  assert.throws(() => blobIdFromBytes(new Uint8Array(31)), RangeError);
});
fromBytes.run();

// ---
const valid = suite('isBlobId');
valid('accepts 43-character URL-safe base64 of 32 bytes only', () => {
  assert.ok(isBlobId(published));
  assert.ok(isBlobId(blobIdFromInt(U256_MAX)));
  for (const bad of [published.replace('-', '+').replace('_', '/'), published.slice(0, 42), `${published}=`, '', `${published.slice(0, 42)}l`]) {
    assert.not.ok(isBlobId(bad), bad);
  }
});
valid.run();
