import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import {
  AttestationAbort, AttestationAbortCode, DEFAULT_COMMIT_MS, DEFAULT_REVEAL_MS, MAX_ATTESTERS, MAX_REQUIRED, TALLY_STATUS_NAMES, TallyStatus, attestationAbortName,
  commitmentOf, statusOf,
} from '../../src/contract/attestation-model.ts';

const moveSource = readFileSync(new URL('../../contracts/sources/attestation.move', import.meta.url), 'utf8');
const constant = (name: string) => BigInt(new RegExp(`const ${name}: u(?:8|64) = ([\\d_]+);`).exec(moveSource)![1]!.replaceAll('_', ''));

const codes = suite('AttestationAbortCode');

codes('has exactly the documented constants of attestation.move, with the same numbers', () => {
  const move = [...moveSource.matchAll(/\/\/\/ (.+)\nconst (E\w+): u64 = (\d+);/g)].map((m) => [m[2], Number(m[3])]);
  assert.equal(Object.fromEntries(move), AttestationAbortCode);
  assert.is([...moveSource.matchAll(/^const E\w+: u64/gm)].length, move.length);
});

codes('the limits, default windows and status numbers are the Move constants', () => {
  assert.is(constant('DEFAULT_COMMIT_MS'), DEFAULT_COMMIT_MS);
  assert.is(constant('DEFAULT_REVEAL_MS'), DEFAULT_REVEAL_MS);
  assert.is(constant('MAX_ATTESTERS'), BigInt(MAX_ATTESTERS));
  assert.is(constant('MAX_REQUIRED'), MAX_REQUIRED);
  for (const name of TALLY_STATUS_NAMES) assert.is(constant(`STATUS_${name.toUpperCase()}`), BigInt(TallyStatus[name]), name);
});

codes('maps numbers back to names; an AttestationAbort is a MoveAbort of module attestation', () => {
  assert.is(attestationAbortName(11), 'EWrongReveal');
  assert.is(attestationAbortName(99), undefined);
  const e = new AttestationAbort('reveal_build', 'ERevealTooLate');
  assert.instance(e, MoveAbort);
  assert.is(e.module, 'attestation');
  assert.match(e.message, /attestation::reveal_build aborted with ERevealTooLate \(9\)/);
});

const commitment = suite('commitmentOf');

commitment('is sha256 of the tar digest, the manifest root, the provider id bytes and the nonce, in that order', () => {
  const tar = new Uint8Array(32).fill(0xaa);
  const root = new Uint8Array(32).fill(0xab);
  const provider = `0x${'12'.repeat(32)}`;
  const nonce = new Uint8Array(32).fill(7);
  const expected = createHash('sha256').update(tar).update(root).update(Buffer.from('12'.repeat(32), 'hex')).update(nonce).digest();
  assert.equal(Buffer.from(commitmentOf(tar, root, provider, nonce)), expected);
  assert.not.equal(Buffer.from(commitmentOf(tar, root, `0x${'13'.repeat(32)}`, nonce)), expected, 'another provider id gives another commitment');
});

const status = suite('statusOf');
const reveal = (provider: string, tar: number, root = tar) => ({ provider, tar_sha256: new Uint8Array(32).fill(tar), manifest_root: new Uint8Array(32).fill(root) });
const tally = (...reveals: ReturnType<typeof reveal>[]) => ({ commit_until_ms: 0n, reveal_until_ms: 1n, commitments: [], reveals });

status('pending with no reveal or one, agreed from two equal reveals, disputed once any pair differs', () => {
  assert.is(statusOf(tally()), 'pending');
  assert.is(statusOf(tally(reveal('a', 1))), 'pending');
  assert.is(statusOf(tally(reveal('a', 1), reveal('b', 1))), 'agreed');
  assert.is(statusOf(tally(reveal('a', 1), reveal('b', 1), reveal('c', 2))), 'disputed');
  assert.is(statusOf(tally(reveal('a', 1), reveal('b', 1, 2))), 'disputed', 'the same tar with another manifest root');
});

codes.run();
commitment.run();
status.run();
