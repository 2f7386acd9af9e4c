import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AggregateSignatureLayout, CheckpointContentsLayout, CheckpointSummaryLayout } from '../../src/light-client/bcs.ts';
import { parseSignature, verifyCertificate } from '../../src/light-client/certificate.ts';
import { committeeFromBcs, committeeToBcs } from '../../src/light-client/committee.ts';
import { hashTyped } from '../../src/light-client/digests.ts';
import { NotCertifiedError } from '../../src/light-client/errors.ts';
import { proveObject } from '../../src/light-client/object-proof.ts';
import { decodeRoaring } from '../../src/light-client/roaring.ts';
import { COMMITTEE_BCS, CONTENTS_BCS, FIRST_EFFECTS_BCS, FIRST_OUTPUT_OBJECT_BCS, SIGNATURE_BCS, SUMMARY_BCS } from './checkpoint-1137.fixture.ts';

// Real chain data from Mysten's Rust SDK: our decoders, digests and verifier must agree with what validators wrote.
const CLOCK = '0x0000000000000000000000000000000000000000000000000000000000000006';
const signed = () => ({ summaryBcs: SUMMARY_BCS, signature: parseSignature(SIGNATURE_BCS) });

test('the fixture decodes and encodes back to the same bytes', () => {
  const summary = CheckpointSummaryLayout.parse(SUMMARY_BCS);
  assert.is(summary.sequenceNumber, '1137');
  assert.is(summary.epoch, '0');
  assert.equal(CheckpointSummaryLayout.serialize(summary).toBytes(), SUMMARY_BCS);
  assert.equal(AggregateSignatureLayout.serialize(AggregateSignatureLayout.parse(SIGNATURE_BCS)).toBytes(), SIGNATURE_BCS);
  assert.equal(CheckpointContentsLayout.serialize(CheckpointContentsLayout.parse(CONTENTS_BCS)).toBytes(), CONTENTS_BCS);
  const committee = committeeFromBcs(COMMITTEE_BCS);
  assert.equal(committee.members.map((m) => m.stake), [2500n, 2500n, 2500n, 2500n]);
  assert.equal(committeeToBcs(committee), COMMITTEE_BCS);
});

test('the contents digest is the one the summary carries', () => {
  assert.equal(hashTyped('CheckpointContents', CONTENTS_BCS), Uint8Array.from(CheckpointSummaryLayout.parse(SUMMARY_BCS).contentDigest));
});

test('the genesis committee\'s quorum signed the summary (validators 1, 2, 3)', () => {
  assert.equal(decodeRoaring(Uint8Array.from(parseSignature(SIGNATURE_BCS).signersMap)), [1, 2, 3]);
  assert.is(verifyCertificate(committeeFromBcs(COMMITTEE_BCS), signed()).sequenceNumber, '1137');
});

test('a summary with its sequence number changed does not verify', () => {
  const summary = CheckpointSummaryLayout.parse(SUMMARY_BCS);
  const edited = CheckpointSummaryLayout.serialize({ ...summary, sequenceNumber: '1138' }).toBytes();
  assert.throws(() => verifyCertificate(committeeFromBcs(COMMITTEE_BCS), { ...signed(), summaryBcs: edited }),
    (error: unknown) => error instanceof NotCertifiedError && /aggregate signature does not verify/.test(error.message));
});

test('the Clock version written by the checkpoint\'s first transaction is proved', () => {
  const proved = proveObject(committeeFromBcs(COMMITTEE_BCS), CLOCK, {
    objectBcs: FIRST_OUTPUT_OBJECT_BCS, effectsBcs: FIRST_EFFECTS_BCS, contentsBcs: CONTENTS_BCS, checkpoint: signed(),
  });
  assert.is(proved.checkpoint, 1137n);
  assert.is(proved.epoch, 0n);
  assert.is(proved.timestampMs, 1758564778195n);
  assert.ok(proved.version > 0n);
});

test('a flipped byte of the object breaks the proof', () => {
  const objectBcs = Uint8Array.from(FIRST_OUTPUT_OBJECT_BCS);
  objectBcs[objectBcs.length - 51] ^= 1; // a byte of the Clock's timestamp (the object ends: owner 9 bytes, writer 33, rebate 8)
  assert.throws(() => proveObject(committeeFromBcs(COMMITTEE_BCS), CLOCK, { objectBcs, effectsBcs: FIRST_EFFECTS_BCS, contentsBcs: CONTENTS_BCS, checkpoint: signed() }),
    /did not write object .* with the digest of the object served/);
});

test.run();
