import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatOfHashLength, formatOfObjectId, isNullObjectId, isObjectFormat, isObjectId, nullObjectId } from '../../src/core/object-id.ts';

const sha1 = 'a'.repeat(40);
const sha256 = 'b'.repeat(64);

const ids = suite('isObjectId');
ids('accepts full lowercase ids of both formats only', () => {
  assert.ok(isObjectId(sha1));
  assert.ok(isObjectId(sha256));
  for (const bad of ['a'.repeat(39), 'A'.repeat(40), 'g'.repeat(40), 'a'.repeat(50), '']) assert.not.ok(isObjectId(bad), bad);
});

const nulls = suite('nullObjectId');
nulls('has the length of the format and is recognized', () => {
  assert.is(nullObjectId('sha1').length, 40);
  assert.is(nullObjectId('sha256').length, 64);
  assert.ok(isNullObjectId(nullObjectId('sha256')));
  assert.not.ok(isNullObjectId(sha1));
});

const formats = suite('formatOfObjectId');
formats('follows the length', () => {
  assert.is(formatOfObjectId(sha1), 'sha1');
  assert.is(formatOfObjectId(sha256), 'sha256');
});

const lengths = suite('formatOfHashLength');
lengths('maps the on-chain hash length', () => {
  assert.is(formatOfHashLength(20), 'sha1');
  assert.is(formatOfHashLength(32), 'sha256');
  assert.is(formatOfHashLength(0), null);
});

const names = suite('isObjectFormat');
names('knows the two formats', () => {
  assert.ok(isObjectFormat('sha256'));
  assert.not.ok(isObjectFormat('md5'));
});

ids.run();
nulls.run();
formats.run();
lengths.run();
names.run();
