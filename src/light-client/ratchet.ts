import { verifyCertificate, type SignedSummary } from './certificate.ts';
import { checkedCommittee, type Committee } from './committee.ts';
import { hashTyped } from './digests.ts';
import { sameBytes } from '../core/bytes.ts';
import type { CheckpointSummary } from './bcs.ts';
import { NotCertifiedError } from './errors.ts';

/**
 * One step of the committee ratchet: epoch e's last checkpoint, certified by epoch e's committee, carries the
 * committee of epoch e+1 in its end-of-epoch data. Any RPC may serve it: a forged next committee fails the
 * signature of the committee we already trust.
 */
export function nextCommittee(current: Committee, endOfEpoch: SignedSummary): Committee {
  const summary = verifyCertificate(current, endOfEpoch);
  const data = summary.endOfEpochData;
  if (data === null || data === undefined) throw new NotCertifiedError(`checkpoint ${summary.sequenceNumber} is not the last of epoch ${current.epoch}: it carries no next committee`);
  return checkedCommittee({
    epoch: current.epoch + 1n,
    members: data.nextEpochCommittee.map((member) => ({ publicKey: Uint8Array.from(member.publicKey), stake: BigInt(member.stake) })),
  });
}

/** The committee of `target` from a trusted `anchor`, through each epoch's end-of-epoch checkpoint in order. */
export function ratchet(anchor: Committee, endOfEpochs: SignedSummary[], target: bigint): Committee {
  let committee = checkedCommittee(anchor);
  for (const summary of endOfEpochs) {
    if (committee.epoch >= target) break;
    committee = nextCommittee(committee, summary);
  }
  if (committee.epoch !== target) throw new NotCertifiedError(`no certified path from epoch ${anchor.epoch} to epoch ${target}`);
  return committee;
}

export function summaryDigest(summaryBcs: Uint8Array): Uint8Array {
  return hashTyped('CheckpointSummary', summaryBcs);
}

/** `newer` names `older` as its predecessor: a certified checkpoint vouches for the whole chain before it. */
export function checkLink(older: Uint8Array, newer: CheckpointSummary): void {
  const previous = newer.previousDigest;
  if (previous === null || previous === undefined || !sameBytes(Uint8Array.from(previous), summaryDigest(older))) {
    throw new NotCertifiedError(`checkpoint ${newer.sequenceNumber} does not follow the checkpoint before it (previous digest differs)`);
  }
}
