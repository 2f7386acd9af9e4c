import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import { ID } from '../../src/contract/bcs.ts';
import { LeaseSecretsAbort, LeaseSecretsAbortCode, SECRETS_DOMAIN, leaseSecretsAbortName, secretIdPrefix } from '../../src/contract/lease-secrets-model.ts';

const moveSource = readFileSync(new URL('../../contracts/sources/lease_secrets.move', import.meta.url), 'utf8');

const codes = suite('LeaseSecretsAbortCode');

codes('has exactly the documented constants of lease_secrets.move, with the same numbers', () => {
  const move = [...moveSource.matchAll(/\/\/\/ (.+)\nconst (E\w+): u64 = (\d+);/g)].map((m) => [m[2], Number(m[3])]);
  assert.equal(Object.fromEntries(move), LeaseSecretsAbortCode);
  assert.is([...moveSource.matchAll(/^const E\w+: u64/gm)].length, move.length);
});

codes('maps numbers back to names; a LeaseSecretsAbort is a MoveAbort of module lease_secrets', () => {
  assert.is(leaseSecretsAbortName(2), 'EVersionNotNext');
  assert.is(leaseSecretsAbortName(99), undefined);
  const e = new LeaseSecretsAbort('set_secrets', 'ENotTenant');
  assert.instance(e, MoveAbort);
  assert.is(e.module, 'lease_secrets');
  assert.match(e.message, /lease_secrets::set_secrets aborted with ENotTenant \(0\)/);
});

codes('the domain tag is the one lease_secrets.move declares; a secret identity begins with the lease id bytes, then it', () => {
  const tag = /const DOMAIN: vector<u8> = b"([^"]+)";/.exec(moveSource)![1]!;
  assert.equal(SECRETS_DOMAIN, new TextEncoder().encode(tag));
  const lease = `0x${'ab'.repeat(32)}`;
  assert.equal(secretIdPrefix(lease), Uint8Array.from([...ID.serialize(lease).toBytes(), ...SECRETS_DOMAIN]));
});

codes.run();
