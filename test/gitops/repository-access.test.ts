import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decideReadAccess, type AccessFacts } from '../../src/gitops/reconcile/repository-access.ts';
import type { RepositoryInfo } from '../../src/ports/ledger.ts';
import type { LeaseInfo } from '../../src/ports/market.ts';

const id = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;
const REPO = id(3);
const repository = (overrides: Partial<RepositoryInfo> = {}) =>
  ({ id: REPO, name: 'shop', owner: id(1), writers: [id(2)], readers: [id(4)], private: true, ...overrides }) as RepositoryInfo;
const lease = (overrides: Partial<LeaseInfo> = {}): LeaseInfo => ({
  id: id(9), tenant: id(1), provider: id(8), repository: REPO, ref: 'refs/heads/main', pricePerMs: 2n, escrow: 1000n, earned: 0n,
  settledUntilMs: 1000, state: 'open', lastDeploy: null, url: '', end: null, ...overrides,
});
const facts = (overrides: Partial<AccessFacts> = {}): AccessFacts => ({ repository: repository(), address: id(5), lease: null, nowMs: 1000, holdsCap: true, ...overrides });

const test = suite('decideReadAccess');

test('a public repository, and a private one read by its owner, a writer or a reader', () => {
  assert.equal(decideReadAccess(facts({ repository: repository({ private: false }) })), { allowed: true });
  for (const address of [id(1), id(2), id(4)]) assert.equal(decideReadAccess(facts({ address })), { allowed: true });
});

test('a controller that is no reader is told the exact command that makes it one', () => {
  const refused = decideReadAccess(facts());
  assert.equal(refused, {
    allowed: false,
    reason: 'NotAReader',
    message: `private repository 'shop' (${REPO}) of ${id(1)} cannot be read by this controller's address ${id(5)}: its owner adds it with \`git walrus readers add walrus://${REPO} ${id(5)}\``,
  });
});

test('a lease grants while open and funded at the clock: exhausted exactly when the escrow does not outlast it', () => {
  // 1000 MIST at 2 MIST/ms from 1000 ms: funded until 1499 ms.
  assert.equal(decideReadAccess(facts({ lease: lease(), nowMs: 1499 })), { allowed: true });
  const exhausted = decideReadAccess(facts({ lease: lease(), nowMs: 1500 }));
  assert.is(exhausted.allowed ? null : exhausted.reason, 'LeaseExhausted');
  assert.is((decideReadAccess(facts({ lease: lease({ state: 'exhausted' }) })) as { reason: string }).reason, 'LeaseExhausted');
  const closed = decideReadAccess(facts({ lease: lease({ state: 'closed' }) }));
  assert.is(closed.allowed ? null : closed.reason, 'LeaseClosed');
  assert.match(closed.allowed ? '' : closed.message, new RegExp(`^lease closed: private repository 'shop' \\(${REPO}\\) of ${id(1)}, served under lease ${id(9)}`));
});

test('a lease of another repository, or of a provider whose cap the controller does not hold, grants nothing', () => {
  assert.is((decideReadAccess(facts({ lease: lease({ repository: id(7) }) })) as { reason: string }).reason, 'LeaseOfOtherRepository');
  assert.is((decideReadAccess(facts({ lease: lease(), holdsCap: false })) as { reason: string }).reason, 'NotLeaseProvider');
});

test('a lease whose tenant may not read the repository grants nothing, named with the tenant and the repository; the owner, a writer or a reader as tenant grants', () => {
  for (const tenant of [id(1), id(2), id(4)]) assert.equal(decideReadAccess(facts({ lease: lease({ tenant }) })), { allowed: true }, tenant);
  const stranger = decideReadAccess(facts({ lease: lease({ tenant: id(6) }) }));
  assert.equal(stranger, {
    allowed: false,
    reason: 'TenantNotReader',
    message:
      `tenant not a reader: private repository 'shop' (${REPO}) of ${id(1)}, served under lease ${id(9)}: its tenant ${id(6)} may not read the repository (not its owner, a writer or a reader), ` +
      `so the key servers give its provider no keys and nothing new is built (what runs keeps serving what was built before, until the app is removed): ` +
      `the owner adds the tenant with \`git walrus readers add walrus://${REPO} ${id(6)}\`, or the tenant closes the lease`,
  });
  // A reader removed after opening: the same refusal, before the lease's own state is looked at.
  const removed = decideReadAccess(facts({ repository: repository({ readers: [] }), lease: lease({ tenant: id(4), state: 'closed' }) }));
  assert.is(removed.allowed ? null : removed.reason, 'TenantNotReader');
  // A public repository is read by anyone, its lease by anyone's.
  assert.equal(decideReadAccess(facts({ repository: repository({ private: false }), lease: lease({ tenant: id(6) }) })), { allowed: true });
});

test.run();
