import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blake2b } from '@noble/hashes/blake2.js';
import { AggregateSignatureLayout, CheckpointSummaryLayout, type CheckpointSummaryInput } from '../../src/light-client/bcs.ts';
import { parseSignature, verifyCertificate } from '../../src/light-client/certificate.ts';
import { quorumThreshold } from '../../src/light-client/committee.ts';
import { checkpointSigningMessage, hashTyped } from '../../src/light-client/digests.ts';
import { NotCertifiedError } from '../../src/light-client/errors.ts';
import { checkLink, nextCommittee, ratchet } from '../../src/light-client/ratchet.ts';
import { committeeOf, signSummary, validator } from '../../src/devnet/chain/validators.ts';

const zero = new Uint8Array(32);
function summaryInput(epoch: bigint, sequence: bigint, extra: Partial<CheckpointSummaryInput> = {}): CheckpointSummaryInput {
  return {
    epoch, sequenceNumber: sequence, networkTotalTransactions: 7n, contentDigest: zero, previousDigest: null,
    epochRollingGasCostSummary: { computationCost: 1n, storageCost: 2n, storageRebate: 3n, nonRefundableStorageFee: 4n },
    timestampMs: 1700000000000n, checkpointCommitments: [], endOfEpochData: null, versionSpecificData: new Uint8Array(), ...extra,
  };
}
const bytesOf = (input: CheckpointSummaryInput) => CheckpointSummaryLayout.serialize(input).toBytes();
const refused = (pattern: RegExp) => (error: unknown) => error instanceof NotCertifiedError && pattern.test(error.message);

// Stakes chosen so that validators 0 and 1 hold exactly the quorum (6,667 of 10,000) and validator 0 one less.
const validators = [validator('a', 6666n), validator('b', 1n), validator('c', 3333n)];
const committee = committeeOf(3n, validators);
const summaryBcs = bytesOf(summaryInput(3n, 40n));
const signedBy = (signers: number[], bytes = summaryBcs, epoch = 3n) => ({ summaryBcs: bytes, signature: parseSignature(signSummary(validators, signers, bytes, epoch)) });
/** A certificate whose bitmap is replaced by `bitmap` (the signature itself from validators 0 and 2). */
function withBitmap(bitmap: Uint8Array) {
  const signature = AggregateSignatureLayout.parse(signSummary(validators, [0, 2], summaryBcs, 3n));
  return { summaryBcs, signature: { ...signature, signersMap: bitmap } };
}

test('quorum threshold as Sui computes it', () => {
  assert.equal([10000n, 10n, 4n, 3n, 1n].map(quorumThreshold), [6667n, 7n, 3n, 1n, 1n]);
});

test('exactly the quorum passes, one unit of stake less fails', () => {
  assert.is(verifyCertificate(committee, signedBy([0, 1])).sequenceNumber, '40');
  assert.throws(() => verifyCertificate(committee, signedBy([0])), refused(/signed by 6666 of 10000 stake, short of the quorum of 6667/));
});

test('a signature of the right signers over another summary does not verify', () => {
  const other = bytesOf(summaryInput(3n, 41n));
  assert.throws(() => verifyCertificate(committee, { summaryBcs, signature: signedBy([0, 2], other).signature }), refused(/aggregate signature does not verify/));
});

test('a bitmap claiming a signer that did not sign does not verify', () => {
  const { signature } = signedBy([0, 2]);
  const claimed = signedBy([0, 1, 2]).signature.signersMap;
  assert.throws(() => verifyCertificate(committee, { summaryBcs, signature: { ...signature, signersMap: claimed } }), refused(/aggregate signature does not verify/));
});

test('wrong epoch: signature epoch or summary epoch other than the committee\'s', () => {
  assert.throws(() => verifyCertificate(committee, signedBy([0, 2], summaryBcs, 4n)), refused(/signature is for epoch 4, not the committee's epoch 3/));
  const later = bytesOf(summaryInput(4n, 40n));
  assert.throws(() => verifyCertificate(committeeOf(4n, validators), signedBy([0, 2], summaryBcs, 4n)), refused(/belongs to epoch 3, not epoch 4/));
  assert.throws(() => verifyCertificate(committee, signedBy([0, 2], later, 3n)), refused(/belongs to epoch 4/));
});

const u16 = (v: number) => [v & 0xff, v >> 8];
const u32 = (v: number) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24];
/** A no-runs Roaring serialization with the given containers, written by hand. */
function roaring(containers: [key: number, values: number[]][]): Uint8Array {
  const header = 8 + 8 * containers.length;
  const offsets: number[] = [];
  let at = header;
  for (const [, values] of containers) { offsets.push(at); at += 2 * values.length; }
  return Uint8Array.from([
    ...u32(12346), ...u32(containers.length),
    ...containers.flatMap(([key, values]) => [...u16(key), ...u16(values.length - 1)]),
    ...offsets.flatMap(u32),
    ...containers.flatMap(([, values]) => values.flatMap(u16)),
  ]);
}

test('signer bitmaps: the strict decoder refuses what could count a signer twice or point outside', () => {
  assert.is(verifyCertificate(committee, withBitmap(roaring([[0, [0, 2]]]))).sequenceNumber, '40');
  assert.throws(() => verifyCertificate(committee, withBitmap(roaring([[0, [0]], [0, [2]]]))), refused(/container 0 repeats or is out of order/));
  assert.throws(() => verifyCertificate(committee, withBitmap(roaring([[0, [0, 0, 2]]]))), refused(/values repeat or are out of order/));
  assert.throws(() => verifyCertificate(committee, withBitmap(roaring([[0, [0, 2, 3]]]))), refused(/names validator 3, but epoch 3's committee has 3/));
  assert.throws(() => verifyCertificate(committee, withBitmap(roaring([[0, [0]], [1, [2]]]))), refused(/names validator 65538/));
  assert.throws(() => verifyCertificate(committee, withBitmap(roaring([]))), refused(/signer bitmap is empty/));
  assert.throws(() => verifyCertificate(committee, withBitmap(Uint8Array.from([...roaring([[0, [0, 2]]]), 0]))), refused(/1 bytes follow the bitmap/));
  assert.throws(() => verifyCertificate(committee, withBitmap(Uint8Array.from([1, 2, 3]))), refused(/bitmap ends early/));
});

test('the duplicate-container bitmap of the Rust SDK\'s test is refused', () => {
  // Data: sui-rust-sdk crates/sui-sdk-types/src/bitmap.rs, test_unique_deserialize.
  const raw = Buffer.from('OjAAAAoAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAWAAAAFoAAABcAAAAXgAAAGAAAABiAAAAZAAAAGYAAABoAAAAagAAAAEAAQABAAEAAQABAAEAAQABAAEA', 'base64');
  assert.throws(() => verifyCertificate(committee, withBitmap(raw)), refused(/container 0 repeats/));
});

test('digests and the signing message over hand-built BCS', () => {
  const le = (v: bigint) => Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(8 * i)) & 0xffn));
  const byHand = Uint8Array.from([
    ...le(3n), ...le(40n), ...le(7n), 32, ...zero, 0, ...le(1n), ...le(2n), ...le(3n), ...le(4n), ...le(1700000000000n), 0, 0, 0,
  ]);
  assert.equal(summaryBcs, byHand);
  const salted = (name: string, data: Uint8Array) => blake2b(Uint8Array.from([...new TextEncoder().encode(name), ...data]), { dkLen: 32 });
  assert.equal(hashTyped('CheckpointSummary', byHand), salted('CheckpointSummary::', byHand));
  assert.equal(checkpointSigningMessage(byHand, 3n), Uint8Array.from([2, 0, 0, ...byHand, ...le(3n)]));
  const next = bytesOf(summaryInput(3n, 41n, { previousDigest: hashTyped('CheckpointSummary', byHand) }));
  checkLink(byHand, CheckpointSummaryLayout.parse(next));
  assert.throws(() => checkLink(next, CheckpointSummaryLayout.parse(next)), refused(/does not follow/));
});

test('ratchet: the next committee comes from the end-of-epoch summary the current one signed', () => {
  const successors = [validator('a', 5000n), validator('d', 5000n)];
  const endOfEpochData = { nextEpochCommittee: successors.map(({ publicKey, stake }) => ({ publicKey, stake })), nextEpochProtocolVersion: 90n, epochCommitments: [] };
  const last = bytesOf(summaryInput(3n, 49n, { endOfEpochData }));
  const next = ratchet(committee, [signedBy([0, 2], last)], 4n);
  assert.is(next.epoch, 4n);
  assert.equal(next.members.map((m) => m.stake), [5000n, 5000n]);
  // The new committee signing its own appointment, a minority, and a summary that is not an epoch's last: refused.
  assert.throws(() => nextCommittee(committee, { summaryBcs: last, signature: parseSignature(signSummary(successors, [0, 1], last, 3n)) }), refused(/aggregate signature does not verify/));
  assert.throws(() => nextCommittee(committee, signedBy([2], last)), refused(/short of the quorum/));
  assert.throws(() => nextCommittee(committee, signedBy([0, 2])), refused(/carries no next committee/));
  assert.throws(() => ratchet(committee, [], 4n), refused(/no certified path from epoch 3 to epoch 4/));
});

test('a committee key that is not a valid G2 point is refused', () => {
  const broken = { epoch: 4n, members: [{ publicKey: new Uint8Array(96).fill(7), stake: 1n }] };
  const endOfEpochData = { nextEpochCommittee: broken.members, nextEpochProtocolVersion: 90n, epochCommitments: [] };
  assert.throws(() => nextCommittee(committee, signedBy([0, 2], bytesOf(summaryInput(3n, 49n, { endOfEpochData })))), refused(/invalid BLS public key/));
});

test.run();
