/**
 * A lying Sui RPC for tests: the devnet's ledger service with one lie told in every answer it concerns. Each lie is
 * one a dishonest or compromised node could tell; the certified reads must catch every one, name it and the RPC,
 * and never crash.
 */
import { bcs } from '@mysten/sui/bcs';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { CheckpointContentsLayout, CheckpointSummaryLayout } from '../../src/light-client/bcs.ts';
import { validatorsOf } from '../../src/devnet/chain/certification.ts';
import { committeeOf, signSummary, validator } from '../../src/devnet/chain/validators.ts';
import { AggregateSignatureLayout } from '../../src/light-client/bcs.ts';
import type { LedgerReads } from '../../src/sui/committee-chain.ts';

export const LIES = ['flip-object-byte', 'substitute-effects', 'drop-contents-entry', 'edit-summary-field', 'minority-signature', 'forged-next-committee', 'stale-version'] as const;
export type Lie = (typeof LIES)[number];

const attackers = [validator('attacker 1', 5000n), validator('attacker 2', 5000n)];

/** `stale`: an earlier GetObject answer of the repository, served instead of the current one ('stale-version'). */
export function lyingLedger(honest: LedgerReads, lie: Lie, stale?: GrpcTypes.GetObjectResponse): LedgerReads {
  return {
    getObject: async (request) => {
      if (lie === 'stale-version') return { response: stale! };
      const { response } = await honest.getObject(request);
      if (lie !== 'flip-object-byte' || !response.object?.bcs?.value) return { response };
      const value = Uint8Array.from(response.object.bcs.value);
      value[value.length - 51] ^= 1; // the last byte of the Move contents (owner, writer and rebate follow: 50 bytes)
      return { response: { ...response, object: { ...response.object, bcs: { ...response.object.bcs, value } } } };
    },
    getTransaction: async (request) => {
      const { response } = await honest.getTransaction(request);
      const effects = response.transaction?.effects;
      if (lie !== 'substitute-effects' || !effects?.bcs?.value) return { response };
      const parsed = bcs.TransactionEffects.parse(effects.bcs.value);
      parsed.V2!.gasUsed.computationCost = String(BigInt(parsed.V2!.gasUsed.computationCost) + 1n);
      const value = bcs.TransactionEffects.serialize(parsed).toBytes();
      return { response: { ...response, transaction: { ...response.transaction!, effects: { ...effects, bcs: { ...effects.bcs, value } } } } };
    },
    getCheckpoint: async (request) => {
      const { response } = await honest.getCheckpoint(request);
      const checkpoint = response.checkpoint;
      const summaryBcs = checkpoint?.summary?.bcs?.value;
      if (!checkpoint || !summaryBcs) return { response };
      const summary = CheckpointSummaryLayout.parse(summaryBcs);
      const withSummary = (bytes: Uint8Array, signature = checkpoint.signature) =>
        ({ response: { ...response, checkpoint: { ...checkpoint, summary: { ...checkpoint.summary!, bcs: { name: 'CheckpointSummary', value: bytes } }, signature } } });
      const resigned = (bytes: Uint8Array, signers: typeof attackers, indices: number[]) => {
        const signature = AggregateSignatureLayout.parse(signSummary(signers, indices, bytes, BigInt(summary.epoch)));
        return { epoch: BigInt(signature.epoch), signature: Uint8Array.from(signature.signature), bitmap: Uint8Array.from(signature.signersMap) };
      };
      switch (lie) {
        case 'drop-contents-entry': {
          const contentsBcs = checkpoint.contents?.bcs?.value;
          if (!contentsBcs) return { response };
          const contents = CheckpointContentsLayout.parse(contentsBcs);
          const value = CheckpointContentsLayout.serialize({ V1: { transactions: contents.V1!.transactions.slice(1), userSignatures: contents.V1!.userSignatures.slice(1) } }).toBytes();
          return { response: { ...response, checkpoint: { ...checkpoint, contents: { ...checkpoint.contents!, bcs: { name: 'CheckpointContents', value } } } } };
        }
        case 'edit-summary-field':
          return withSummary(CheckpointSummaryLayout.serialize({ ...summary, timestampMs: String(BigInt(summary.timestampMs) + 1n) }).toBytes());
        case 'minority-signature': {
          const validators = validatorsOf(BigInt(summary.epoch));
          const largest = validators.reduce((best, v, i) => (v.stake > validators[best]!.stake ? i : best), 0);
          return withSummary(summaryBcs, resigned(summaryBcs, validators, [largest]));
        }
        case 'forged-next-committee': {
          if (!summary.endOfEpochData) return { response };
          const forged = CheckpointSummaryLayout.serialize({ ...summary, endOfEpochData: { ...summary.endOfEpochData, nextEpochCommittee: committeeOf(0n, attackers).members } }).toBytes();
          return withSummary(forged, resigned(forged, attackers, [0, 1]));
        }
        default:
          return { response };
      }
    },
    getEpoch: (request) => honest.getEpoch(request),
  };
}
