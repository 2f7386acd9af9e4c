import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withRetry } from '../../src/core/retry.ts';
import { WalrusGitError } from '../../src/core/errors.ts';

const policy = { attempts: 4, baseDelayMs: 1, maxDelayMs: 4 };
const transient = () => new WalrusGitError('X', 'transient', {}, { retryable: true });

const retry = suite('withRetry');

retry('repeats retryable failures until success, reporting each retry', async () => {
  const seen: number[] = [];
  const result = await withRetry(async (attempt) => {
    if (attempt < 3) throw transient();
    return attempt;
  }, { policy, onRetry: (_e, attempt, delay) => { seen.push(attempt); assert.ok(delay >= 0 && delay <= 4); } });
  assert.is(result, 3);
  assert.equal(seen, [1, 2]);
});

retry('stops at once on a non-retryable error and after the last attempt', async () => {
  let calls = 0;
  await withRetry(async () => { calls++; throw new Error('final'); }, { policy }).catch((e) => assert.is(e.message, 'final'));
  assert.is(calls, 1);
  calls = 0;
  await withRetry(async () => { calls++; throw transient(); }, { policy }).catch((e) => assert.is(e.message, 'transient'));
  assert.is(calls, 4);
});

retry('an abort during the backoff ends the wait with the abort reason', async () => {
  const controller = new AbortController();
  const slow = { attempts: 3, baseDelayMs: 10_000, maxDelayMs: 10_000 };
  const pending = withRetry(async () => { throw transient(); }, { policy: slow, signal: controller.signal, onRetry: () => setTimeout(() => controller.abort(new Error('stop')), 5) });
  await pending.then(() => assert.unreachable(), (e) => assert.is(e.message, 'stop'));
});

retry.run();
