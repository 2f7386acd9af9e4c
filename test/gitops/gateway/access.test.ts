import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mayRead } from '../../../src/gitops/gateway/access.ts';

const tenant = `0x${'11'.repeat(32)}`;
const owner = `0x${'22'.repeat(32)}`;
const stranger = `0x${'33'.repeat(32)}`;
const lease = { id: `0x${'44'.repeat(32)}`, tenant, provider: `0x${'55'.repeat(32)}` };
const served = { id: lease.provider, owner };

const access = suite('who may read a lease through the gateway');
access('its tenant and its provider\'s owner', () => {
  assert.equal(mayRead(lease, served, tenant), { ok: true, as: 'tenant' });
  assert.equal(mayRead(lease, served, owner), { ok: true, as: 'provider' });
});
access('a stranger gets 403 naming who may read and who signed', () => {
  const decision = mayRead(lease, served, stranger);
  assert.is(decision.ok, false);
  if (decision.ok) return;
  assert.is(decision.status, 403);
  assert.match(decision.why, new RegExp(`its tenant ${tenant} and its provider's owner ${owner}; the request was signed by ${stranger}`));
});
access('a lease of another provider is not served here (404), even for its tenant', () => {
  const decision = mayRead({ ...lease, provider: `0x${'66'.repeat(32)}` }, served, tenant);
  assert.is(decision.ok ? 0 : decision.status, 404);
});
access.run();
