import { fromBase58 } from '@mysten/sui/utils';
import { CheckpointContentsLayout, CheckpointSummaryLayout, type CheckpointSummary } from '../../light-client/bcs.ts';
import type { Committee } from '../../light-client/committee.ts';
import { hashTyped } from '../../light-client/digests.ts';
import { DEVNET_EPOCH_CHECKPOINTS } from '../../core/devnet-protocol.ts';
import { PROTOCOL_VERSION } from './limits.ts';
import { committeeOf, signSummary, validator, type Validator } from './validators.ts';
import type { ChainStore, TxRecord } from './store.ts';

/**
 * The devnet's checkpoints as Sui certifies them: checkpoint 0 is genesis, checkpoint n ≥ 1 holds the n-th
 * transaction. Each has its contents and summary in Sui's BCS with the real digests and `previous_digest` chain,
 * and an aggregate BLS signature of a quorum of its epoch's committee with the Roaring bitmap of the signers. An
 * epoch is DEVNET_EPOCH_CHECKPOINTS checkpoints; its last carries the next committee, signed by the outgoing one.
 * Each epoch one validator is replaced and the stakes move one seat on, so a client that follows the chain must
 * ratchet through real rotations. Nothing here is stored: the log determines every byte, so any process computes
 * the same checkpoints (digests are memoized per process; signatures are made when asked for).
 */

/** The base stakes of the four seats (10,000 in total, as Sui normalizes voting power). */
const STAKES = [4000n, 3000n, 2000n, 1000n];

export function epochOfCheckpoint(sequence: number): bigint {
  return BigInt(Math.floor(sequence / DEVNET_EPOCH_CHECKPOINTS));
}

/** Seat i is given to a new validator in each epoch e ≥ 1 with e mod 4 = i; stakes shift one seat each epoch. */
export function validatorsOf(epoch: bigint): Validator[] {
  return STAKES.map((_, seat) => {
    const replacements = seat === 0 ? epoch / 4n : epoch >= BigInt(seat) ? (epoch - BigInt(seat)) / 4n + 1n : 0n;
    return validator(`seat ${seat} #${replacements}`, STAKES[Number((BigInt(seat) + epoch) % 4n)]!);
  });
}

export function devnetCommittee(epoch: bigint): Committee {
  return committeeOf(epoch, validatorsOf(epoch));
}

/** Every validator but the one with the least stake signs (9,000 of 10,000): a quorum, not unanimity. */
export function signersOf(validators: Validator[]): number[] {
  const least = validators.reduce((min, v, i) => (v.stake < validators[min]!.stake ? i : min), 0);
  return validators.map((_, i) => i).filter((i) => i !== least);
}

export interface CertifiedCheckpoint {
  sequence: number;
  epoch: bigint;
  summaryBcs: Uint8Array;
  summary: CheckpointSummary;
  contentsBcs: Uint8Array;
  /** BCS `AuthorityStrongQuorumSignInfo`. */
  signatureBcs: Uint8Array;
  /** The transaction in it (none at genesis). */
  transaction?: string;
}

interface Built { summaryBcs: Uint8Array; contentsBcs: Uint8Array; digest: Uint8Array; transaction?: string }

export class DevnetCertifier {
  readonly #store: ChainStore;
  /** Checkpoints built so far, in order. */
  readonly #built: Built[] = [];
  #networkTotal = 0n;

  constructor(store: ChainStore) {
    this.#store = store;
  }

  /** The highest checkpoint the chain has. */
  get latest(): number {
    return this.#store.checkpoint;
  }

  async checkpoint(sequence: number): Promise<CertifiedCheckpoint | undefined> {
    if (!Number.isSafeInteger(sequence) || sequence < 0 || sequence > this.latest) return undefined;
    await this.#buildUpTo(sequence);
    const built = this.#built[sequence]!;
    const epoch = epochOfCheckpoint(sequence);
    const validators = validatorsOf(epoch);
    return {
      sequence, epoch, summaryBcs: built.summaryBcs, summary: CheckpointSummaryLayout.parse(built.summaryBcs), contentsBcs: built.contentsBcs,
      signatureBcs: signSummary(validators, signersOf(validators), built.summaryBcs, epoch), transaction: built.transaction,
    };
  }

  /** The checkpoint a transaction is in. */
  async checkpointOf(digest: string): Promise<number | undefined> {
    return (await this.#store.transaction(digest))?.checkpoint;
  }

  async #buildUpTo(sequence: number): Promise<void> {
    if (sequence < this.#built.length) return;
    const locations = [...this.#store.transactions.values()];
    const records = await this.#store.read(locations.slice(Math.max(0, this.#built.length - 1), sequence));
    const byCheckpoint = new Map(records.map((record) => [record.checkpoint, record]));
    for (let n = this.#built.length; n <= sequence; n++) this.#built.push(this.#build(n, n === 0 ? undefined : byCheckpoint.get(n)));
  }

  #build(sequence: number, record: TxRecord | undefined): Built {
    const transactions = record ? [{ transaction: fromBase58(record.digest), effects: hashTyped('TransactionEffects', Buffer.from(record.effects, 'base64')) }] : [];
    const contentsBcs = CheckpointContentsLayout.serialize({
      V1: { transactions, userSignatures: record ? [record.signatures.map((s) => Buffer.from(s, 'base64'))] : [] },
    }).toBytes();
    this.#networkTotal += BigInt(transactions.length);
    const epoch = epochOfCheckpoint(sequence);
    const lastOfEpoch = (sequence + 1) % DEVNET_EPOCH_CHECKPOINTS === 0;
    const next = lastOfEpoch ? devnetCommittee(epoch + 1n) : undefined;
    const summaryBcs = CheckpointSummaryLayout.serialize({
      epoch, sequenceNumber: sequence, networkTotalTransactions: this.#networkTotal,
      contentDigest: hashTyped('CheckpointContents', contentsBcs),
      previousDigest: sequence === 0 ? null : this.#built[sequence - 1]!.digest,
      epochRollingGasCostSummary: { computationCost: 0n, storageCost: 0n, storageRebate: 0n, nonRefundableStorageFee: 0n },
      timestampMs: record?.timestampMs ?? this.#store.genesis?.timestampMs ?? 0,
      checkpointCommitments: [],
      endOfEpochData: next ? { nextEpochCommittee: next.members, nextEpochProtocolVersion: PROTOCOL_VERSION, epochCommitments: [] } : null,
      versionSpecificData: new Uint8Array(),
    }).toBytes();
    return { summaryBcs, contentsBcs, digest: hashTyped('CheckpointSummary', summaryBcs), transaction: record?.digest };
  }
}
