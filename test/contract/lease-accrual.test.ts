import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { accrualAt, leaseAccrualAt, runsOutBy } from '../../src/contract/lease-accrual.ts';
import { LeaseState, type LeaseValue } from '../../src/contract/market-bcs.ts';
import { leaseStateAt } from '../../src/contract/market-model.ts';
import type { LeaseInfo } from '../../src/ports/market.ts';
import { claimable } from '../../src/gitops/provider/plan.ts';
import { accruedAt } from '../../src/remote/market/format.ts';

const accrual = suite('lease accrual: one arithmetic for the twin and every reader of a lease');

const info = (fields: Partial<LeaseInfo>): LeaseInfo => ({
  id: '0x1', tenant: '0x2', provider: '0x3', repository: '0x4', ref: 'refs/heads/main', pricePerMs: 10n, escrow: 1_000n, earned: 0n,
  settledUntilMs: 1_000, state: 'open', lastDeploy: null, url: '', end: null, ...fields,
});
/** The twin's Lease with the fields `lease_state_at` reads. */
const twin = (lease: LeaseInfo) =>
  ({ state: LeaseState[lease.state], settled_until_ms: BigInt(lease.settledUntilMs), price_per_ms: lease.pricePerMs, escrow: { value: lease.escrow } }) as unknown as LeaseValue;

accrual('what accrues since the settlement, capped at the escrow, and exhausted exactly when the cap is reached', () => {
  assert.equal(accrualAt(true, 1_000n, 10n, 1_000n, 1_050n), { accrued: 500n, runsDry: false });
  assert.equal(accrualAt(true, 1_000n, 10n, 1_000n, 1_099n), { accrued: 990n, runsDry: false });
  assert.equal(accrualAt(true, 1_000n, 10n, 1_000n, 1_100n), { accrued: 1_000n, runsDry: true });
  assert.equal(accrualAt(true, 1_000n, 10n, 1_000n, 9_000n), { accrued: 1_000n, runsDry: true }, 'never more than the escrow');
  assert.equal(accrualAt(false, 1_000n, 10n, 1_000n, 9_000n), { accrued: 0n, runsDry: false }, 'a closed or exhausted lease accrues nothing');
  assert.equal(accrualAt(true, 1_000n, 10n, 1_000n, 1_000n), { accrued: 0n, runsDry: false }, 'nothing at the settlement itself');
});

accrual('an open lease with an empty escrow is open until the clock passes its settlement, as market::lease_state_at says', () => {
  const empty = info({ escrow: 0n });
  assert.is(leaseStateAt(twin(empty), 1_000n), LeaseState.open, 'the contract: the stored state');
  assert.not.ok(runsOutBy(empty, 1_000), 'the controller serves it (the key servers still give keys)');
  assert.ok(runsOutBy(empty, 1_001));
  assert.is(leaseStateAt(twin(empty), 1_001n), LeaseState.exhausted);
});

accrual('the twin, the controller, lease show and the web agree with the contract at every boundary', () => {
  for (const state of ['open', 'exhausted', 'closed'] as const) {
    for (const escrow of [0n, 1n, 990n, 1_000n, 1_001n]) {
      for (const now of [0, 999, 1_000, 1_001, 1_099, 1_100, 1_101, 5_000]) {
        const lease = info({ state, escrow, earned: 7n });
        const expected = leaseStateAt(twin(lease), BigInt(now));
        assert.is(runsOutBy(lease, now), expected === LeaseState.exhausted, `${state} ${escrow} at ${now}`);
        assert.is(claimable(lease, now), 7n + leaseAccrualAt(lease, now).accrued);
        assert.is(accruedAt(lease, now), leaseAccrualAt(lease, now).accrued);
      }
    }
  }
});

accrual.run();
