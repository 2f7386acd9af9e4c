import { bcs } from '@mysten/sui/bcs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import type { MoveAbortFailure } from './packages.ts';

/**
 * Storage certificates as the walrus contracts check them (`bls_aggregate::verify_certificate_and_weight`,
 * `messages::new_certified_message` and `certify_blob_message`): the signers' bitmap, a quorum of shards by weight,
 * one BLS12-381 min-pk signature over the message by the signers' aggregate key, then the message's header. The
 * storage nodes' side, signing a confirmation, uses the same message layout. Pure.
 */

const APP_ID = 3;
const INTENT_VERSION = 0;
export const BLOB_CERT_MSG_TYPE = 1;

type Abort = (module: string, fn: string, code: bigint) => MoveAbortFailure;

const BLS_AGGREGATE = { EInvalidBitmap: 0n, ESigVerification: 1n, ENotEnoughStake: 2n } as const;
const MESSAGES = { EIncorrectAppId: 0n, EIncorrectEpoch: 1n, EInvalidMsgType: 2n, EIncorrectIntentVersion: 3n, EInvalidBlobPersistenceType: 4n } as const;

export interface CommitteeForCertificates {
  members: readonly { public_key: { bytes: number[] }; weight: number }[];
  n_shards: number;
  epoch: number;
  total_aggregated_key: { bytes: number[] };
}

export interface CertifiedMessage { intentType: number; epoch: number; body: Uint8Array; stakeSupport: number }

/** 3 × weight ≥ 2 × shards + 1 (`bls_aggregate::is_quorum`). */
export function isQuorumWeight(weight: number, numShards: number): boolean {
  return 3 * weight >= 2 * numShards + 1;
}

export function verifyCommitteeCertificate(committee: CommitteeForCertificates, signature: Uint8Array, bitmap: Uint8Array, message: Uint8Array, abort: Abort): CertifiedMessage {
  const members = committee.members.length;
  const bitmapBytes = Math.ceil(members / 8);
  if (bitmap.length > bitmapBytes) throw abort('bls_aggregate', 'verify_certificate_and_weight', BLS_AGGREGATE.EInvalidBitmap);
  let nonSignerWeight = 0;
  const nonSignerKeys: Uint8Array[] = [];
  for (let index = 0; index < bitmapBytes * 8; index++) {
    const signs = (((bitmap[index >> 3] ?? 0) >> (index & 7)) & 1) === 1;
    if (index >= members) {
      if (signs) throw abort('bls_aggregate', 'verify_certificate_and_weight', BLS_AGGREGATE.EInvalidBitmap);
      continue;
    }
    if (!signs) {
      nonSignerWeight += committee.members[index].weight;
      nonSignerKeys.push(Uint8Array.from(committee.members[index].public_key.bytes));
    }
  }
  const weight = committee.n_shards - nonSignerWeight;
  if (!isQuorumWeight(weight, committee.n_shards)) throw abort('bls_aggregate', 'verify_certificate_and_weight', BLS_AGGREGATE.ENotEnoughStake);
  const sigs = bls12_381.longSignatures;
  let key = sigs.aggregatePublicKeys([Uint8Array.from(committee.total_aggregated_key.bytes)]);
  if (nonSignerKeys.length > 0) key = key.subtract(sigs.aggregatePublicKeys(nonSignerKeys));
  let valid: boolean;
  try {
    valid = !key.equals(bls12_381.G1.Point.ZERO) && sigs.verify(signature, sigs.hash(message), key);
  } catch {
    valid = false;
  }
  if (!valid) throw abort('bls_aggregate', 'verify_certificate_and_weight', BLS_AGGREGATE.ESigVerification);
  if (message.length < 7) throw abort('bcs', 'peel_u8', 0n);
  const [intentType, intentVersion, appId] = message;
  if (intentVersion !== INTENT_VERSION) throw abort('messages', 'new_certified_message', MESSAGES.EIncorrectIntentVersion);
  if (appId !== APP_ID) throw abort('messages', 'new_certified_message', MESSAGES.EIncorrectAppId);
  const epoch = bcs.u32().parse(message.subarray(3, 7));
  if (epoch !== committee.epoch) throw abort('messages', 'new_certified_message', MESSAGES.EIncorrectEpoch);
  return { intentType, epoch, body: message.subarray(7), stakeSupport: weight };
}

/** `messages::certify_blob_message`: the blob id, then permanent (0) or deletable (1) with its Blob object's id. */
export function certifiedBlobMessage(message: CertifiedMessage, abort: Abort): { blobId: bigint; deletableObjectId: string | null } {
  if (message.intentType !== BLOB_CERT_MSG_TYPE) throw abort('messages', 'certify_blob_message', MESSAGES.EInvalidMsgType);
  if (message.body.length < 33) throw abort('bcs', 'peel_u256', 0n);
  const blobId = BigInt(bcs.u256().parse(message.body.subarray(0, 32)));
  const kind = message.body[32];
  if (kind === 0) return { blobId, deletableObjectId: null };
  if (kind === 1 && message.body.length >= 65) return { blobId, deletableObjectId: bcs.Address.parse(message.body.subarray(33, 65)) };
  throw abort('messages', 'peel_blob_persistence_type', MESSAGES.EInvalidBlobPersistenceType);
}

/** The message a storage node signs to confirm it holds a blob's slivers (`StorageConfirmation` of walrus-core). */
export function blobConfirmationMessage(epoch: number, blobId: bigint, deletableObjectId: string | null): Uint8Array {
  const head = [BLOB_CERT_MSG_TYPE, INTENT_VERSION, APP_ID, ...bcs.u32().serialize(epoch).toBytes(), ...bcs.u256().serialize(blobId).toBytes()];
  return Uint8Array.from(deletableObjectId === null ? [...head, 0] : [...head, 1, ...bcs.Address.serialize(deletableObjectId).toBytes()]);
}
