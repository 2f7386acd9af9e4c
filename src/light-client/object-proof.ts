import { bcs } from '@mysten/sui/bcs';
import { fromBase58, toBase58, toHex } from '@mysten/bcs';
import { CheckpointContentsLayout, type CheckpointContents } from './bcs.ts';
import { verifyCertificate, type SignedSummary } from './certificate.ts';
import type { Committee } from './committee.ts';
import { hashTyped } from './digests.ts';
import { sameBytes } from '../core/bytes.ts';
import { NotCertifiedError } from './errors.ts';

/** What an RPC serves to show that an object version is on the certified chain (sui-light-client's object path). */
export interface ObjectEvidence {
  /** The object's BCS as served (`ObjectInner`: data, owner, previous transaction, storage rebate). */
  objectBcs: Uint8Array;
  /** The effects' BCS of the transaction that wrote this version. */
  effectsBcs: Uint8Array;
  /** That transaction's checkpoint: contents and signed summary. */
  contentsBcs: Uint8Array;
  checkpoint: SignedSummary;
}

/** An object version the validators' quorum certified, and the checkpoint that says so. */
export interface CertifiedObject {
  objectId: string;
  version: bigint;
  /** Base58 object digest. */
  digest: string;
  /** The Move struct's BCS (starts with the id). */
  contents: Uint8Array;
  checkpoint: bigint;
  epoch: bigint;
  timestampMs: bigint;
}

/**
 * Proves that `objectId` at the served version was written by a transaction whose effects sit in a certified
 * checkpoint: the summary carries a quorum signature of `committee`; its content digest is the contents' digest;
 * the contents list the (transaction, effects digest) pair; the effects wrote the object at their lamport version
 * with the digest of the object's BCS. One such version of the Repository object proves the push log it heads.
 */
export function proveObject(committee: Committee, objectId: string, evidence: ObjectEvidence): CertifiedObject {
  const summary = verifyCertificate(committee, evidence.checkpoint);
  const at = `checkpoint ${summary.sequenceNumber}`;
  if (!sameBytes(hashTyped('CheckpointContents', evidence.contentsBcs), Uint8Array.from(summary.contentDigest))) {
    throw new NotCertifiedError(`the contents served for ${at} are not the certified ones (content digest differs)`);
  }
  const contents = decode('the contents of ' + at, () => CheckpointContentsLayout.parse(evidence.contentsBcs));
  const effects = decode('the transaction effects', () => bcs.TransactionEffects.parse(evidence.effectsBcs));
  if (effects.$kind !== 'V2') throw new NotCertifiedError('the transaction effects are of version 1, which this client does not read');
  const transaction = effects.V2.transactionDigest;
  const effectsDigest = hashTyped('TransactionEffects', evidence.effectsBcs);
  const listed = executionDigests(contents).some((pair) => sameBytes(pair.transaction, fromBase58(transaction)) && sameBytes(pair.effects, effectsDigest));
  if (!listed) throw new NotCertifiedError(`transaction ${transaction} with these effects is not in ${at} (effects digest ${toBase58(effectsDigest)})`);

  const object = decode('the object', () => bcs.Object.parse(evidence.objectBcs));
  if (object.data.$kind !== 'Move') throw new NotCertifiedError(`object ${objectId} is served as a package, not a Move object`);
  const contentsBytes = Uint8Array.from(object.data.Move.contents);
  const servedId = '0x' + toHex(contentsBytes.subarray(0, 32));
  if (servedId !== objectId) throw new NotCertifiedError(`the object served is ${servedId}, not ${objectId}`);
  const version = BigInt(object.data.Move.version);
  if (object.previousTransaction !== transaction) throw new NotCertifiedError(`object ${objectId} names transaction ${object.previousTransaction} as its writer, but the effects served are of ${transaction}`);
  if (BigInt(effects.V2.lamportVersion) !== version) throw new NotCertifiedError(`transaction ${transaction} wrote version ${effects.V2.lamportVersion}, but the object served is version ${version}`);
  const digest = toBase58(hashTyped('Object', evidence.objectBcs));
  const change = effects.V2.changedObjects.find(([id]) => id === objectId);
  const written = change?.[1].outputState.ObjectWrite?.[0];
  if (written !== digest) throw new NotCertifiedError(`transaction ${transaction} did not write object ${objectId} with the digest of the object served (${written ?? 'not written'} vs ${digest})`);
  return {
    objectId, version, digest, contents: contentsBytes,
    checkpoint: BigInt(summary.sequenceNumber), epoch: BigInt(summary.epoch), timestampMs: BigInt(summary.timestampMs),
  };
}

function executionDigests(contents: CheckpointContents): { transaction: Uint8Array; effects: Uint8Array }[] {
  const pairs = contents.$kind === 'V1' ? contents.V1.transactions : contents.V2.transactions.map((entry) => entry.digests);
  return pairs.map((pair) => ({ transaction: Uint8Array.from(pair.transaction), effects: Uint8Array.from(pair.effects) }));
}

function decode<T>(what: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new NotCertifiedError(`${what} does not decode (${(error as Error).message})`);
  }
}
