import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { InternalError, UsageError, WalrusGitError } from '../../src/core/errors.ts';

const errors = suite('errors');

errors('carry a stable code, data and the retryable flag', () => {
  const e = new WalrusGitError('BLOB_UNAVAILABLE', 'aggregator timed out', { blobId: 'abc' }, { retryable: true });
  assert.instance(e, Error);
  assert.is(e.code, 'BLOB_UNAVAILABLE');
  assert.equal(e.data, { blobId: 'abc' });
  assert.is(e.retryable, true);
  assert.is(e.name, 'WalrusGitError');
});

errors('subclasses name themselves and keep their codes', () => {
  const usage = new UsageError('bad url');
  assert.is(usage.name, 'UsageError');
  assert.is(usage.code, 'USAGE');
  assert.is(usage.retryable, false);
  const internal = new InternalError('unreachable');
  assert.is(internal.code, 'INTERNAL');
  assert.match(internal.message, /please report/);
});

errors.run();
