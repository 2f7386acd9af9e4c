import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mayRead } from '../../../src/gitops/gateway/access.ts';

const tenant = `0x${'11'.repeat(32)}`;
const owner = `0x${'22'.repeat(32)}`;
const stranger = `0x${'33'.repeat(32)}`;
const lease = { id: `0x${'44'.repeat(32)}`, tenant, provider: `0x${'55'.repeat(32)}` };
const served = { id: lease.provider, capHolder: owner };

const access = suite('who may read a lease through the gateway');
access('its tenant and the holder of its provider\'s cap', () => {
  assert.equal(mayRead(lease, served, tenant), { ok: true, as: 'tenant' });
  assert.equal(mayRead(lease, served, owner), { ok: true, as: 'provider' });
});
access('after the cap moved to a new key: the new key reads, the former holder is a stranger', () => {
  const rotated = { ...served, capHolder: stranger };
  assert.equal(mayRead(lease, rotated, stranger), { ok: true, as: 'provider' });
  const former = mayRead(lease, rotated, owner);
  assert.is(former.ok ? 0 : former.status, 403);
});
access('another tenant (of another lease here) is a stranger to this one', () => {
  const other = `0x${'77'.repeat(32)}`;
  const decision = mayRead(lease, served, other);
  assert.is(decision.ok ? 0 : decision.status, 403);
});
access('a cap no address holds: only the tenant reads, and the refusal says so', () => {
  const decision = mayRead(lease, { ...served, capHolder: null }, owner);
  assert.is(decision.ok ? '' : decision.why, `lease ${lease.id} may be read by its tenant ${tenant} and nobody else (no address holds its ProviderCap); the request was signed by ${owner}`);
});
access('a stranger gets 403 naming who may read and who signed', () => {
  const decision = mayRead(lease, served, stranger);
  assert.is(decision.ok, false);
  if (decision.ok) return;
  assert.is(decision.status, 403);
  assert.match(decision.why, new RegExp(`its tenant ${tenant} and the holder of its provider's ProviderCap ${owner}; the request was signed by ${stranger}`));
});
access('a lease of another provider is not served here (404), even for its tenant', () => {
  const decision = mayRead({ ...lease, provider: `0x${'66'.repeat(32)}` }, served, tenant);
  assert.is(decision.ok ? 0 : decision.status, 404);
});
access.run();
