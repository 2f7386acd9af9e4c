import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { MoveAbortFailure } from '../../../src/devnet/chain/packages.ts';
import { blobConfirmationMessage, certifiedBlobMessage, verifyCommitteeCertificate } from '../../../src/devnet/chain/walrus-certificate.ts';

const certificates = suite('storage certificates as certify_blob checks them');

const sigs = bls12_381.longSignatures;
const keys = [1, 2, 3, 4].map((n) => sigs.keygen(new Uint8Array(48).fill(n)));
// Four nodes holding 12, 13, 12 and 13 of 50 shards: a quorum needs 34 (3w >= 2n + 1).
const committee = {
  members: keys.map((key, index) => ({ public_key: { bytes: [...key.publicKey.toBytes(true)] }, weight: [12, 13, 12, 13][index] })),
  n_shards: 50, epoch: 7,
  total_aggregated_key: { bytes: [...sigs.aggregatePublicKeys(keys.map((key) => key.publicKey)).toBytes(true)] },
};
const abort = (module: string, fn: string, code: bigint) => new MoveAbortFailure('0x1', module, fn, 0, code);
const message = blobConfirmationMessage(7, 123456789n, null);
const sign = (signers: number[], signed = message) => sigs.Signature.toBytes(sigs.aggregateSignatures(signers.map((index) => sigs.sign(sigs.hash(signed), keys[index].secretKey))));
const bitmap = (signers: number[]) => Uint8Array.of(signers.reduce((bits, index) => bits | (1 << index), 0));
const abortCode = (run: () => unknown): string => {
  try {
    run();
    return 'none';
  } catch (error) {
    return error instanceof MoveAbortFailure ? `${error.module}::${error.code}` : String(error);
  }
};

certificates('three of four nodes make a quorum, and the message names the blob', () => {
  const certified = verifyCommitteeCertificate(committee, sign([0, 1, 3]), bitmap([0, 1, 3]), message, abort);
  assert.equal([certified.epoch, certified.stakeSupport], [7, 38]);
  assert.equal(certifiedBlobMessage(certified, abort), { blobId: 123456789n, deletableObjectId: null });
});

certificates('refusals carry the walrus contracts\' abort codes', () => {
  assert.is(abortCode(() => verifyCommitteeCertificate(committee, sign([0, 1]), bitmap([0, 1]), message, abort)), 'bls_aggregate::2');
  // A bitmap claiming a signer that did not sign: the aggregate key no longer matches the signature.
  assert.is(abortCode(() => verifyCommitteeCertificate(committee, sign([0, 1, 2]), bitmap([0, 1, 3]), message, abort)), 'bls_aggregate::1');
  assert.is(abortCode(() => verifyCommitteeCertificate(committee, sign([0, 1, 3]), Uint8Array.of(0b1011, 0), message, abort)), 'bls_aggregate::0');
  assert.is(abortCode(() => verifyCommitteeCertificate(committee, sign([0, 1, 3]), Uint8Array.of(0b11011), message, abort)), 'bls_aggregate::0');
  const otherEpoch = blobConfirmationMessage(8, 123456789n, null);
  assert.is(abortCode(() => verifyCommitteeCertificate(committee, sign([0, 1, 3], otherEpoch), bitmap([0, 1, 3]), otherEpoch, abort)), 'messages::1');
});

certificates.run();
