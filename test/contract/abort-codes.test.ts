import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AbortCode, MoveAbort, abortName } from '../../src/contract/abort-codes.ts';
import { WalrusGitError } from '../../src/core/errors.ts';

const moveSource = readFileSync(new URL('../../contracts/sources/repository.move', import.meta.url), 'utf8');

const codes = suite('AbortCode');

codes('has exactly the constants of repository.move, with the same numbers and documented', () => {
  const move = [...moveSource.matchAll(/\/\/\/ (.+)\nconst (E\w+): u64 = (\d+);/g)].map((m) => [m[2], Number(m[3])]);
  assert.equal(Object.fromEntries(move), AbortCode);
  // Every E constant in the Move file has a doc comment (the regex above only matched documented ones).
  assert.is([...moveSource.matchAll(/^const E\w+: u64/gm)].length, move.length);
});

codes('numbers are distinct', () => {
  const numbers = Object.values(AbortCode);
  assert.is(new Set(numbers).size, numbers.length);
});

codes.run();

const name = suite('abortName');

name('maps numbers back to names and unknown codes to undefined', () => {
  assert.is(abortName(13), 'ERefMismatch');
  assert.is(abortName(AbortCode.EProtected), 'EProtected');
  assert.is(abortName(999), undefined);
});

name.run();

const abort = suite('MoveAbort');

abort('carries module, function, code and name', () => {
  const e = new MoveAbort('repository', 'push', 'ERefExists');
  assert.instance(e, WalrusGitError);
  assert.is(e.code, 'MOVE_ABORT');
  assert.is(e.module, 'repository');
  assert.is(e.functionName, 'push');
  assert.is(e.abortCode, AbortCode.ERefExists);
  assert.is(e.abortName, 'ERefExists');
  assert.match(e.message, /repository::push aborted with ERefExists \(14\)/);
});

abort.run();
