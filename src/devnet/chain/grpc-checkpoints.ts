import { toBase58 } from '@mysten/sui/utils';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { AggregateSignatureLayout } from '../../light-client/bcs.ts';
import { hashTyped } from '../../light-client/digests.ts';
import { DEVNET_EPOCH_CHECKPOINTS } from '../../core/devnet-protocol.ts';
import type { ChainEngine } from './engine.ts';
import { devnetCommittee, type CertifiedCheckpoint } from './certification.ts';
import { Code, GrpcStatusError, mask, timestamp, type Mask, type Message } from './grpc-messages.ts';

/**
 * `LedgerService/GetCheckpoint` and the committee part of `GetEpoch`, as a fullnode answers them: the summary and
 * contents as BCS with their digests, the validators' aggregate signature with its signer bitmap, and each epoch's
 * committee with its first and last checkpoint.
 */
export async function getCheckpoint(engine: ChainEngine, request: GrpcTypes.GetCheckpointRequest): Promise<Message> {
  const id = request.checkpointId;
  const certifier = engine.certifier;
  let sequence = certifier.latest;
  if (id.oneofKind === 'sequenceNumber') sequence = Number(id.sequenceNumber);
  else if (id.oneofKind === 'digest') throw new GrpcStatusError(Code.UNIMPLEMENTED, 'this devnet finds checkpoints by sequence number only');
  const checkpoint = await certifier.checkpoint(sequence);
  if (!checkpoint) throw new GrpcStatusError(Code.NOT_FOUND, `Checkpoint ${sequence} not found`);
  return { checkpoint: checkpointProto(checkpoint, mask(request.readMask ?? { paths: ['sequence_number', 'digest'] })) };
}

function checkpointProto(checkpoint: CertifiedCheckpoint, fields: Mask): Message {
  const { summary } = checkpoint;
  const signature = AggregateSignatureLayout.parse(checkpoint.signatureBcs);
  const digest = toBase58(hashTyped('CheckpointSummary', checkpoint.summaryBcs));
  return {
    sequenceNumber: BigInt(checkpoint.sequence),
    digest,
    summary: fields.has('summary') ? {
      bcs: { name: 'CheckpointSummary', value: checkpoint.summaryBcs },
      digest,
      epoch: BigInt(summary.epoch),
      sequenceNumber: BigInt(summary.sequenceNumber),
      totalNetworkTransactions: BigInt(summary.networkTotalTransactions),
      contentDigest: toBase58(Uint8Array.from(summary.contentDigest)),
      previousDigest: summary.previousDigest ? toBase58(Uint8Array.from(summary.previousDigest)) : undefined,
      timestamp: timestamp(Number(summary.timestampMs)),
      commitments: [],
      endOfEpochData: summary.endOfEpochData ? {
        nextEpochCommittee: summary.endOfEpochData.nextEpochCommittee.map((m) => ({ publicKey: Uint8Array.from(m.publicKey), weight: BigInt(m.stake) })),
        nextEpochProtocolVersion: BigInt(summary.endOfEpochData.nextEpochProtocolVersion),
        epochCommitments: [],
      } : undefined,
      versionSpecificData: Uint8Array.from(summary.versionSpecificData),
    } : undefined,
    signature: fields.has('signature') ? { epoch: BigInt(signature.epoch), signature: Uint8Array.from(signature.signature), bitmap: Uint8Array.from(signature.signersMap) } : undefined,
    contents: fields.has('contents') ? {
      bcs: { name: 'CheckpointContents', value: checkpoint.contentsBcs },
      digest: toBase58(hashTyped('CheckpointContents', checkpoint.contentsBcs)),
      version: 1,
      transactions: [],
    } : undefined,
    transactions: [],
  };
}

/** An epoch's committee and checkpoint range (the last only once the epoch has ended). */
export function epochCommittee(engine: ChainEngine, epoch: bigint): Message {
  const current = engine.epoch;
  if (epoch > current) throw new GrpcStatusError(Code.NOT_FOUND, `Epoch ${epoch} not found`);
  const first = epoch * BigInt(DEVNET_EPOCH_CHECKPOINTS);
  const committee = devnetCommittee(epoch);
  return {
    epoch,
    committee: { epoch, members: committee.members.map((m) => ({ publicKey: m.publicKey, weight: m.stake })) },
    firstCheckpoint: first,
    lastCheckpoint: epoch < current ? first + BigInt(DEVNET_EPOCH_CHECKPOINTS) - 1n : undefined,
  };
}
