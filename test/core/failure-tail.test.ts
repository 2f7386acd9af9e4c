import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAILURE_TAIL_CHARS, FAILURE_TAIL_LINES, failureTail } from '../../src/core/failure-tail.ts';

/** What `node --test` prints for one failed strict-equal assertion, with a stack of `frames` lines. */
function tapReport(frames: number): string {
  return [
    'TAP version 13', '# Subtest: adds two numbers', 'not ok 1 - adds two numbers', '  ---', '  duration_ms: 2.1', "  type: 'test'",
    "  failureType: 'testCodeFailure'", '  error: |-', '    Expected values to be strictly equal:', '    ', '    2 !== 3', '    ',
    "  code: 'ERR_ASSERTION'", "  name: 'AssertionError'", '  expected: 3', '  actual: 2', "  operator: 'strictEqual'", '  stack: |-',
    ...Array.from({ length: frames }, (_, i) => `    frame${i} (node:internal/test_runner/test:${i}:1)`),
    '  ...', '1..1', '# tests 1', '# suites 0', '# pass 0', '# fail 1', '# cancelled 0', '# skipped 0', '# todo 0', '# duration_ms 130.2', '',
  ].join('\n');
}

test('a failed assertion\'s report stays in the tail whatever its stack\'s depth', () => {
  for (const frames of [4, 5, 6, 8, 12]) {
    const tail = failureTail(`npm ci output\n${'installing\n'.repeat(50)}${tapReport(frames)}`);
    assert.match(tail, /AssertionError[\s\S]*expected: 3/, `${frames} frames`);
    assert.ok(tail.endsWith('# duration_ms 130.2'), 'the end is kept, trailing blank lines trimmed');
  }
});

test('keeps the last lines only', () => {
  const output = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
  const tail = failureTail(output).split('\n');
  assert.is(tail.length, FAILURE_TAIL_LINES);
  assert.is(tail.at(-1), 'line 99');
  assert.is(tail[0], `line ${100 - FAILURE_TAIL_LINES}`);
  assert.is(failureTail('one line\n\n'), 'one line');
  assert.is(failureTail(''), '');
});

test('long lines: whole lines dropped from the start to fit, one overlong line keeps its end', () => {
  const long = 'x'.repeat(1500);
  const tail = failureTail([`${long}a`, `${long}b`, `${long}c`, 'last'].join('\n'));
  assert.ok(tail.length <= FAILURE_TAIL_CHARS);
  assert.equal(tail.split('\n').map((line) => line.at(-1)), ['b', 'c', 't']);
  const one = failureTail(`${'y'.repeat(FAILURE_TAIL_CHARS * 2)}end`);
  assert.is(one.length, FAILURE_TAIL_CHARS);
  assert.ok(one.endsWith('yend'));
});

test.run();
