import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import { LeaseAccessAbort, LeaseAccessAbortCode, leaseAccessAbortName } from '../../src/contract/lease-access-model.ts';

const moveSource = readFileSync(new URL('../../contracts/sources/lease_access.move', import.meta.url), 'utf8');

const codes = suite('LeaseAccessAbortCode');

codes('has exactly the documented constants of lease_access.move, with the same numbers', () => {
  const move = [...moveSource.matchAll(/\/\/\/ (.+)\nconst (E\w+): u64 = (\d+);/g)].map((m) => [m[2], Number(m[3])]);
  assert.equal(Object.fromEntries(move), LeaseAccessAbortCode);
  assert.is([...moveSource.matchAll(/^const E\w+: u64/gm)].length, move.length);
});

codes('maps numbers back to names; a LeaseAccessAbort is a MoveAbort of module lease_access', () => {
  assert.is(leaseAccessAbortName(3), 'ELeaseClosed');
  assert.is(leaseAccessAbortName(99), undefined);
  const e = new LeaseAccessAbort('seal_approve_lease', 'ELeaseExhausted');
  assert.instance(e, MoveAbort);
  assert.is(e.module, 'lease_access');
  assert.match(e.message, /lease_access::seal_approve_lease aborted with ELeaseExhausted \(4\)/);
});

codes.run();
