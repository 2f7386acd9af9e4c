import * as assert from 'uvu/assert';

/** Asserts that `promise` rejects with an error that `check` accepts (uvu has no async `throws`). */
export async function rejected(promise: Promise<unknown>, check: (error: unknown) => boolean): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.ok(check(error), String(error));
    return;
  }
  assert.unreachable('the call succeeded');
}
