import { normalizeSuiAddress } from '@mysten/sui/utils';
import { Repository } from '../contract/bcs.ts';
import { WalrusGitError, messageOf } from '../core/errors.ts';
import type { CertifiedReads, CertifiedRepository, RpcAnswer } from '../ports/certified.ts';
import { CheckpointSummaryLayout } from '../light-client/bcs.ts';
import { NotCertifiedError } from '../light-client/errors.ts';
import { proveObject } from '../light-client/object-proof.ts';
import { signedSummaryOf, type CommitteeChain, type LedgerReads } from './committee-chain.ts';
import { repositoryInfo } from './ledger.ts';

/** One configured RPC: a name to report it by and its ledger service. */
export interface NamedRpc {
  name: string;
  ledger: LedgerReads;
}

/** No RPC's answer verified: each one's problem is named. */
export class NoCertifiedAnswerError extends WalrusGitError {
  constructor(id: string, answers: RpcAnswer[]) {
    super('NOT_CERTIFIED', `no RPC served a certified state of repository ${id}: ${answers.map((a) => `${a.rpc}: ${a.problem}`).join('; ')}`, { id, answers });
  }
}

/**
 * The Repository object as the validators certified it, asked of every configured RPC: each answer is proved on
 * its own (the object's BCS, its writer's effects, that transaction's checkpoint and the committee of its epoch,
 * all through that RPC), and the highest certified version wins. A lying RPC costs nothing but its answer.
 */
export class CertifiedSuiReads implements CertifiedReads {
  readonly #rpcs: NamedRpc[];
  readonly #committees: CommitteeChain;

  constructor(rpcs: NamedRpc[], committees: CommitteeChain) {
    this.#rpcs = rpcs;
    this.#committees = committees;
  }

  async repository(id: string): Promise<{ best: CertifiedRepository; answers: RpcAnswer[] }> {
    const objectId = normalizeSuiAddress(id);
    const results = await Promise.all(this.#rpcs.map(async (rpc) => {
      try {
        return await this.#prove(rpc, objectId);
      } catch (error) {
        return { rpc: rpc.name, problem: error instanceof NotCertifiedError ? error.withSource(rpc.name).what : `${messageOf(error)} (from ${rpc.name})` };
      }
    }));
    const proved = results.filter((r): r is CertifiedRepository => 'repository' in r);
    const answers: RpcAnswer[] = results.map((r) => ('repository' in r ? { rpc: r.rpc, version: r.version, checkpoint: r.checkpoint } : r));
    if (proved.length === 0) throw new NoCertifiedAnswerError(objectId, answers);
    const best = proved.reduce((a, b) => (BigInt(b.version) > BigInt(a.version) ? b : a));
    return { best, answers };
  }

  async #prove(rpc: NamedRpc, objectId: string): Promise<CertifiedRepository> {
    const object = (await rpc.ledger.getObject({ objectId, readMask: { paths: ['bcs', 'previous_transaction'] } })).response.object;
    const objectBcs = object?.bcs?.value;
    const writer = object?.previousTransaction;
    if (!objectBcs || !writer) throw new NotCertifiedError(`repository ${objectId} was served without its BCS or the transaction that wrote it`);
    const transaction = (await rpc.ledger.getTransaction({ digest: writer, readMask: { paths: ['effects.bcs', 'checkpoint'] } })).response.transaction;
    const effectsBcs = transaction?.effects?.bcs?.value;
    const sequence = transaction?.checkpoint;
    if (!effectsBcs || sequence === undefined) throw new NotCertifiedError(`transaction ${writer} was served without its effects BCS or its checkpoint`);
    const served = (await rpc.ledger.getCheckpoint({ checkpointId: { oneofKind: 'sequenceNumber', sequenceNumber: sequence }, readMask: { paths: ['summary.bcs', 'signature', 'contents.bcs'] } })).response.checkpoint;
    const checkpoint = signedSummaryOf(served, sequence);
    const contentsBcs = served?.contents?.bcs?.value;
    if (!contentsBcs) throw new NotCertifiedError(`checkpoint ${sequence} was served without its contents`);
    let epoch: bigint;
    try {
      epoch = BigInt(CheckpointSummaryLayout.parse(checkpoint.summaryBcs).epoch);
    } catch (error) {
      throw new NotCertifiedError(`checkpoint ${sequence}'s summary does not decode (${messageOf(error)})`);
    }
    const committee = await this.#committees.committee(epoch, rpc.ledger);
    const certified = proveObject(committee, objectId, { objectBcs, effectsBcs, contentsBcs, checkpoint });
    let repository;
    try {
      repository = repositoryInfo(objectId, Repository.parse(certified.contents));
    } catch (error) {
      throw new NotCertifiedError(`object ${objectId} is certified but is not a repository (${messageOf(error)})`);
    }
    return {
      repository, version: certified.version.toString(), checkpoint: certified.checkpoint.toString(), epoch: certified.epoch.toString(),
      timestampMs: Number(certified.timestampMs), rpc: rpc.name,
    };
  }
}
