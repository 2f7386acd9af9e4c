import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import { MarketAbort, MarketAbortCode, marketAbortName } from '../../src/contract/market-abort-codes.ts';

const moveSource = readFileSync(new URL('../../contracts/sources/market.move', import.meta.url), 'utf8');

const codes = suite('MarketAbortCode');

codes('has exactly the documented constants of market.move, with the same numbers', () => {
  const move = [...moveSource.matchAll(/\/\/\/ (.+)\nconst (E\w+): u64 = (\d+);/g)].map((m) => [m[2], Number(m[3])]);
  assert.equal(Object.fromEntries(move), MarketAbortCode);
  assert.is([...moveSource.matchAll(/^const E\w+: u64/gm)].length, move.length);
  const numbers = Object.values(MarketAbortCode);
  assert.is(new Set(numbers).size, numbers.length);
});

codes('maps numbers back to names; a MarketAbort is a MoveAbort of module market', () => {
  assert.is(marketAbortName(16), 'ETooEarly');
  assert.is(marketAbortName(999), undefined);
  const e = new MarketAbort('withdraw_stake', 'EActiveLeases');
  assert.instance(e, MoveAbort);
  assert.is(e.module, 'market');
  assert.is(e.abortCode, 15);
  assert.match(e.message, /market::withdraw_stake aborted with EActiveLeases \(15\)/);
});

codes.run();
