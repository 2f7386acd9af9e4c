import { bcs } from '@mysten/sui/bcs';

/**
 * Sui's BCS for what a light client reads (sui-types `messages_checkpoint.rs`, `crypto.rs`): checkpoint summaries,
 * contents, end-of-epoch data, committees and the validators' aggregate signature. Field order is the wire order.
 * A digest is 32 bytes with its length prefix (serde `Bytes`); a BLS public key likewise (96 bytes); the aggregate
 * signature is 48 bytes with none; the signer bitmap is the Roaring serialization as a byte vector.
 */
export const DigestBytes = bcs.byteVector();

export const GasCostSummaryLayout = bcs.struct('GasCostSummary', {
  computationCost: bcs.u64(),
  storageCost: bcs.u64(),
  storageRebate: bcs.u64(),
  nonRefundableStorageFee: bcs.u64(),
});

export const CheckpointCommitmentLayout = bcs.enum('CheckpointCommitment', {
  EcmhLiveObjectSet: bcs.struct('EcmhLiveObjectSet', { digest: DigestBytes }),
  CheckpointArtifacts: bcs.struct('CheckpointArtifacts', { digest: DigestBytes }),
});

export const CommitteeMemberLayout = bcs.struct('ValidatorCommitteeMember', { publicKey: bcs.byteVector(), stake: bcs.u64() });

export const CommitteeLayout = bcs.struct('ValidatorCommittee', { epoch: bcs.u64(), members: bcs.vector(CommitteeMemberLayout) });

export const EndOfEpochDataLayout = bcs.struct('EndOfEpochData', {
  nextEpochCommittee: bcs.vector(CommitteeMemberLayout),
  nextEpochProtocolVersion: bcs.u64(),
  epochCommitments: bcs.vector(CheckpointCommitmentLayout),
});

export const CheckpointSummaryLayout = bcs.struct('CheckpointSummary', {
  epoch: bcs.u64(),
  sequenceNumber: bcs.u64(),
  networkTotalTransactions: bcs.u64(),
  contentDigest: DigestBytes,
  previousDigest: bcs.option(DigestBytes),
  epochRollingGasCostSummary: GasCostSummaryLayout,
  timestampMs: bcs.u64(),
  checkpointCommitments: bcs.vector(CheckpointCommitmentLayout),
  endOfEpochData: bcs.option(EndOfEpochDataLayout),
  versionSpecificData: bcs.byteVector(),
});

export const AggregateSignatureLayout = bcs.struct('AuthorityStrongQuorumSignInfo', {
  epoch: bcs.u64(),
  signature: bcs.bytes(48),
  signersMap: bcs.byteVector(),
});

const ExecutionDigestsLayout = bcs.struct('ExecutionDigests', { transaction: DigestBytes, effects: DigestBytes });

/** A user signature is carried as its flagged bytes; the light client never opens it. */
const UserSignatureBytes = bcs.byteVector();

export const CheckpointContentsLayout = bcs.enum('CheckpointContents', {
  V1: bcs.struct('CheckpointContentsV1', {
    transactions: bcs.vector(ExecutionDigestsLayout),
    userSignatures: bcs.vector(bcs.vector(UserSignatureBytes)),
  }),
  V2: bcs.struct('CheckpointContentsV2', {
    transactions: bcs.vector(bcs.struct('CheckpointTransactionContents', {
      digests: ExecutionDigestsLayout,
      signatures: bcs.vector(bcs.tuple([UserSignatureBytes, bcs.option(bcs.u64())])),
    })),
  }),
});

export type CheckpointSummary = ReturnType<typeof CheckpointSummaryLayout.parse>;
export type CheckpointSummaryInput = Parameters<typeof CheckpointSummaryLayout.serialize>[0];
export type CheckpointContents = ReturnType<typeof CheckpointContentsLayout.parse>;
export type AggregateSignature = ReturnType<typeof AggregateSignatureLayout.parse>;
export type EndOfEpochData = ReturnType<typeof EndOfEpochDataLayout.parse>;
