import { bls12_381 } from '@noble/curves/bls12-381.js';
import { AggregateSignatureLayout, CheckpointSummaryLayout, type AggregateSignature, type CheckpointSummary } from './bcs.ts';
import { checkpointSigningMessage } from './digests.ts';
import { publicKeyPoint, quorumThreshold, totalStake, type Committee } from './committee.ts';
import { BitmapFormatError, decodeRoaring } from './roaring.ts';
import { NotCertifiedError } from './errors.ts';

/** A checkpoint summary's BCS as a node serves it, with its validators' aggregate signature. */
export interface SignedSummary {
  summaryBcs: Uint8Array;
  signature: AggregateSignature;
}

/**
 * Checks that a quorum of `committee` signed the summary (sui-crypto `ValidatorCommitteeSignatureVerifier`): the
 * signature's epoch is the committee's and the summary's, the signer bitmap decodes strictly, is not empty and
 * names members only, their stake reaches the quorum, and the aggregate BLS min_sig signature verifies over the
 * intent message under the sum of their keys. Returns the parsed summary.
 */
export function verifyCertificate(committee: Committee, signed: SignedSummary): CheckpointSummary {
  const summary = parseSummary(signed.summaryBcs);
  const { signature } = signed;
  const at = `checkpoint ${summary.sequenceNumber}`;
  if (BigInt(signature.epoch) !== committee.epoch) throw new NotCertifiedError(`${at}'s signature is for epoch ${signature.epoch}, not the committee's epoch ${committee.epoch}`);
  if (BigInt(summary.epoch) !== committee.epoch) throw new NotCertifiedError(`${at} belongs to epoch ${summary.epoch}, not epoch ${committee.epoch}`);
  let signers: number[];
  try {
    signers = decodeRoaring(Uint8Array.from(signature.signersMap));
  } catch (error) {
    if (error instanceof BitmapFormatError) throw new NotCertifiedError(`${at}'s signer bitmap is malformed: ${error.message}`);
    throw error;
  }
  if (signers.length === 0) throw new NotCertifiedError(`${at}'s signer bitmap is empty`);
  const outside = signers.find((index) => index >= committee.members.length);
  if (outside !== undefined) throw new NotCertifiedError(`${at}'s signer bitmap names validator ${outside}, but epoch ${committee.epoch}'s committee has ${committee.members.length}`);
  const signed_ = signers.reduce((total, index) => total + committee.members[index]!.stake, 0n);
  const quorum = quorumThreshold(totalStake(committee));
  if (signed_ < quorum) throw new NotCertifiedError(`${at} is signed by ${signed_} of ${totalStake(committee)} stake, short of the quorum of ${quorum}`);
  const keys = signers.map((index) => {
    const point = publicKeyPoint(committee.members[index]!.publicKey);
    if (point === undefined) throw new NotCertifiedError(`validator ${index} of epoch ${committee.epoch} has an invalid BLS public key`);
    return point;
  });
  const sigs = bls12_381.shortSignatures;
  let valid = false;
  try {
    const message = sigs.hash(checkpointSigningMessage(signed.summaryBcs, summary.epoch));
    const point = sigs.Signature.fromBytes(Uint8Array.from(signature.signature));
    valid = sigs.verify(point, message, sigs.aggregatePublicKeys(keys));
  } catch {
    valid = false;
  }
  if (!valid) throw new NotCertifiedError(`${at}'s aggregate signature does not verify under epoch ${committee.epoch}'s committee`);
  return summary;
}

export function parseSummary(summaryBcs: Uint8Array): CheckpointSummary {
  try {
    return CheckpointSummaryLayout.parse(summaryBcs);
  } catch (error) {
    throw new NotCertifiedError(`a checkpoint summary does not decode (${(error as Error).message})`);
  }
}

export function parseSignature(signatureBcs: Uint8Array): AggregateSignature {
  try {
    return AggregateSignatureLayout.parse(signatureBcs);
  } catch (error) {
    throw new NotCertifiedError(`a checkpoint signature does not decode (${(error as Error).message})`);
  }
}
