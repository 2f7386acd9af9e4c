import { bls12_381 } from '@noble/curves/bls12-381.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { AggregateSignatureLayout } from '../../light-client/bcs.ts';
import type { Committee } from '../../light-client/committee.ts';
import { checkpointSigningMessage } from '../../light-client/digests.ts';
import { encodeRoaring } from '../../light-client/roaring.ts';

/** A devnet validator: a BLS12-381 min_sig key (as Sui's validators sign checkpoints) and its stake. */
export interface Validator {
  name: string;
  secretKey: Uint8Array;
  publicKey: Uint8Array;
  stake: bigint;
}

const sigs = bls12_381.shortSignatures;

/** A validator whose key follows from its name, so a devnet's committees are the same on every start. */
export function validator(name: string, stake: bigint): Validator {
  const { secretKey, publicKey } = sigs.keygen(blake2b(new TextEncoder().encode(`devnet validator ${name}`), { dkLen: 48 }));
  return { name, secretKey, publicKey: publicKey.toBytes(), stake };
}

export function committeeOf(epoch: bigint, validators: Validator[]): Committee {
  return { epoch, members: validators.map(({ publicKey, stake }) => ({ publicKey, stake })) };
}

/**
 * The aggregate signature of the validators at `signers` (committee indices) over a summary, with their Roaring
 * bitmap: Sui's `AuthorityStrongQuorumSignInfo` as BCS.
 */
export function signSummary(validators: Validator[], signers: number[], summaryBcs: Uint8Array, epoch: bigint): Uint8Array {
  const message = sigs.hash(checkpointSigningMessage(summaryBcs, epoch));
  const signature = sigs.aggregateSignatures(signers.map((index) => sigs.sign(message, validators[index]!.secretKey)));
  return AggregateSignatureLayout.serialize({ epoch, signature: signature.toBytes(), signersMap: encodeRoaring(signers) }).toBytes();
}
