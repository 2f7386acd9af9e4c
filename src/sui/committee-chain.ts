import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GrpcTypes } from '@mysten/sui/grpc';
import { writeFileAtomic } from '../fs/atomic.ts';
import { CheckpointSummaryLayout } from '../light-client/bcs.ts';
import type { SignedSummary } from '../light-client/certificate.ts';
import { checkedCommittee, type Committee } from '../light-client/committee.ts';
import { NotCertifiedError } from '../light-client/errors.ts';
import { nextCommittee } from '../light-client/ratchet.ts';

type Call<Request, Response> = (request: Request) => PromiseLike<{ response: Response }>;

/** The `sui.rpc.v2.LedgerService` calls a light client makes: `SuiGrpcClient.ledgerService` is one. */
export interface LedgerReads {
  getObject: Call<GrpcTypes.GetObjectRequest, GrpcTypes.GetObjectResponse>;
  getTransaction: Call<GrpcTypes.GetTransactionRequest, GrpcTypes.GetTransactionResponse>;
  getCheckpoint: Call<GrpcTypes.GetCheckpointRequest, GrpcTypes.GetCheckpointResponse>;
  getEpoch: Call<GrpcTypes.GetEpochRequest, GrpcTypes.GetEpochResponse>;
}

/** A checkpoint's summary and signature as the gRPC API carries them, in the light client's terms. */
export function signedSummaryOf(checkpoint: GrpcTypes.Checkpoint | undefined, sequence: bigint): SignedSummary {
  const summaryBcs = checkpoint?.summary?.bcs?.value;
  const signature = checkpoint?.signature;
  if (!summaryBcs || !signature?.signature || !signature.bitmap || signature.epoch === undefined) {
    throw new NotCertifiedError(`checkpoint ${sequence} was served without its summary BCS or its validators' signature`);
  }
  return { summaryBcs, signature: { epoch: signature.epoch.toString(), signature: signature.signature, signersMap: signature.bitmap } as SignedSummary['signature'] };
}

/** How many epochs' end-of-epoch checkpoints a ratchet reads ahead of the one it checks. */
const READ_AHEAD = 8n;

/** Epoch `epoch`'s last checkpoint as `ledger` serves it: where the epoch ends is only the RPC's hint. */
async function endOfEpoch(ledger: LedgerReads, epoch: bigint): Promise<SignedSummary> {
  const last = (await ledger.getEpoch({ epoch, readMask: { paths: ['last_checkpoint'] } })).response.epoch?.lastCheckpoint;
  if (last === undefined) throw new NotCertifiedError(`epoch ${epoch} has no last checkpoint on this RPC, so epoch ${epoch + 1n}'s committee cannot be learnt`);
  const served = (await ledger.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: last }, readMask: { paths: ['summary.bcs', 'signature'] } })).response.checkpoint;
  return signedSummaryOf(served, last);
}

/**
 * The validator committees from a pinned anchor on: epoch e+1's committee is taken only from epoch e's last
 * checkpoint, certified by epoch e's committee (sui-light-client's sync). Any RPC may serve those checkpoints;
 * where the epoch ends is only a hint it gives. Each verified end-of-epoch summary is kept in `dir` (one file per
 * epoch), so a ratchet is paid once per machine; what is read back from there was verified before it was written.
 */
export class CommitteeChain {
  readonly #known = new Map<bigint, Committee>();
  readonly #anchor: Committee;
  readonly #dir: string | null;

  constructor(anchor: Committee, dir: string | null) {
    this.#anchor = checkedCommittee(anchor);
    this.#known.set(anchor.epoch, this.#anchor);
    this.#dir = dir;
  }

  get anchorEpoch(): bigint {
    return this.#anchor.epoch;
  }

  async committee(epoch: bigint, ledger: LedgerReads): Promise<Committee> {
    if (epoch < this.#anchor.epoch) throw new NotCertifiedError(`epoch ${epoch} is before the pinned anchor (epoch ${this.#anchor.epoch})`);
    let known = this.#known.get(epoch) ?? (await this.#cached(epoch));
    if (known) return known;
    let from = epoch - 1n;
    while (!this.#known.has(from) && !(await this.#cached(from))) from -= 1n;
    known = this.#known.get(from)!;
    // The reads of the next epochs' ends run ahead of the checks (two round trips each, in order they would add up
    // to the BLS verifications' time); each is still checked under the committee before it, in order.
    const ends: Promise<SignedSummary>[] = [];
    const askUpTo = (limit: bigint) => {
      for (let e = from + BigInt(ends.length); e < epoch && e < limit; e++) {
        const read = endOfEpoch(ledger, e);
        read.catch(() => {}); // awaited in turn below; one that fails after an earlier failure is not needed
        ends.push(read);
      }
    };
    for (let e = from; e < epoch; e++) {
      askUpTo(e + READ_AHEAD);
      const signed = await ends[Number(e - from)]!;
      known = nextCommittee(known, signed);
      this.#known.set(known.epoch, known);
      await this.#keep(known.epoch, signed);
    }
    return known;
  }

  async #cached(epoch: bigint): Promise<Committee | undefined> {
    if (this.#dir === null || epoch <= this.#anchor.epoch) return undefined;
    const text = await readFile(join(this.#dir, `epoch-${epoch}.json`), 'utf8').catch(() => null);
    if (text === null) return undefined;
    try {
      const summary = CheckpointSummaryLayout.parse(Buffer.from((JSON.parse(text) as { summary: string }).summary, 'base64'));
      const members = summary.endOfEpochData?.nextEpochCommittee;
      if (!members || BigInt(summary.epoch) + 1n !== epoch) return undefined;
      const committee = { epoch, members: members.map((m) => ({ publicKey: Uint8Array.from(m.publicKey), stake: BigInt(m.stake) })) };
      this.#known.set(epoch, committee);
      return committee;
    } catch {
      return undefined; // a damaged cache entry is learnt again
    }
  }

  async #keep(epoch: bigint, signed: SignedSummary): Promise<void> {
    if (this.#dir === null) return;
    await mkdir(this.#dir, { recursive: true });
    const entry = {
      summary: Buffer.from(signed.summaryBcs).toString('base64'),
      signature: { epoch: String(signed.signature.epoch), signature: Buffer.from(signed.signature.signature).toString('base64'), bitmap: Buffer.from(signed.signature.signersMap).toString('base64') },
    };
    await writeFileAtomic(join(this.#dir, `epoch-${epoch}.json`), `${JSON.stringify(entry)}\n`);
  }
}
