import { bls12_381 } from '@noble/curves/bls12-381.js';
import { CommitteeLayout } from './bcs.ts';
import { NotCertifiedError } from './errors.ts';

/** The validators of one epoch, in committee order (a signer bitmap's indices point into `members`). */
export interface Committee {
  epoch: bigint;
  members: { publicKey: Uint8Array; stake: bigint }[];
}

/** Sui's quorum: 2f+1 of the total stake, with f = ⌊(total−1)/3⌋ (6,667 of 10,000). */
export function quorumThreshold(totalStake: bigint): bigint {
  return ((totalStake - 1n) / 3n) * 2n + 1n;
}

export function totalStake(committee: Committee): bigint {
  return committee.members.reduce((total, member) => total + member.stake, 0n);
}

/**
 * A committee fit to verify with: members, positive total stake, each key a valid G2 point in the subgroup and not
 * the identity, no key twice. Anything a certificate is checked against passes through here first.
 */
export function checkedCommittee(committee: Committee): Committee {
  if (committee.members.length === 0) throw new NotCertifiedError(`the committee of epoch ${committee.epoch} has no members`);
  if (totalStake(committee) <= 0n) throw new NotCertifiedError(`the committee of epoch ${committee.epoch} has no stake`);
  const seen = new Set<string>();
  for (const [index, { publicKey }] of committee.members.entries()) {
    const hex = Buffer.from(publicKey).toString('hex');
    if (seen.has(hex)) throw new NotCertifiedError(`the committee of epoch ${committee.epoch} lists validator ${index}'s key twice`);
    seen.add(hex);
    if (publicKeyPoint(publicKey) === undefined) throw new NotCertifiedError(`validator ${index} of epoch ${committee.epoch} has an invalid BLS public key`);
  }
  return committee;
}

/**
 * A 96-byte compressed G2 key as a point, or undefined if it is not one a signature may use. Decoding with the
 * subgroup check costs more than the pairing itself, and committees change one seat at a time: each key is checked
 * once per process.
 */
export function publicKeyPoint(publicKey: Uint8Array) {
  if (publicKey.length !== 96) return undefined;
  const hex = Buffer.from(publicKey).toString('hex');
  if (checkedKeys.has(hex)) return checkedKeys.get(hex);
  let point: ReturnType<typeof bls12_381.G2.Point.fromBytes> | undefined;
  try {
    point = bls12_381.G2.Point.fromBytes(publicKey);
    point.assertValidity();
    if (point.is0()) point = undefined;
  } catch {
    point = undefined;
  }
  checkedKeys.set(hex, point);
  return point;
}

const checkedKeys = new Map<string, ReturnType<typeof bls12_381.G2.Point.fromBytes> | undefined>();

export function committeeFromBcs(bytes: Uint8Array): Committee {
  const parsed = CommitteeLayout.parse(bytes);
  return { epoch: BigInt(parsed.epoch), members: parsed.members.map((m) => ({ publicKey: Uint8Array.from(m.publicKey), stake: BigInt(m.stake) })) };
}

export function committeeToBcs(committee: Committee): Uint8Array {
  return CommitteeLayout.serialize({ epoch: committee.epoch, members: committee.members.map((m) => ({ publicKey: m.publicKey, stake: m.stake })) }).toBytes();
}
