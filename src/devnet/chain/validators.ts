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

/** Secret keys by validator name, each with its public key once asked for. */
const keys = new Map<string, { secretKey: Uint8Array; publicKey?: Uint8Array }>();

/**
 * A validator whose key follows from its name, so a devnet's committees are the same on every start. Its public key
 * is derived when first read and kept for the process: signing a checkpoint needs only the secret keys, and a G2
 * multiplication costs seconds in a process's first (every git command on the embedded network is one).
 */
export function validator(name: string, stake: bigint): Validator {
  let key = keys.get(name);
  if (!key) keys.set(name, (key = { secretKey: bls12_381.utils.randomSecretKey(blake2b(new TextEncoder().encode(`devnet validator ${name}`), { dkLen: 48 })) }));
  const known = key;
  return {
    name, secretKey: known.secretKey, stake,
    get publicKey() {
      return (known.publicKey ??= sigs.getPublicKey(known.secretKey).toBytes());
    },
  };
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
