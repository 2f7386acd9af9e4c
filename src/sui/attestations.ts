import type { ClientWithCoreApi, SuiClientTypes } from '@mysten/sui/client';
import type { Transaction } from '@mysten/sui/transactions';
import { deriveDynamicFieldID, normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { AttestationRefusedError } from '../core/attestation.ts';
import type { TallyView } from '../core/attestation.ts';
import {
  ATTESTATION_MODULE, BuildCommitted, REQUIRED_KEY_BCS, ReproductionRequired, Tally, attestationAbortName, attestationType, statusOf, tallyKeyBcs,
} from '../contract/attestation-model.ts';
import { U64 } from '../contract/bcs.ts';
import { adminCapType } from '../contract/market-bcs.ts';
import type { TxReceipt } from '../ports/ledger.ts';
import type { AttestationLedger, Attester, TallyCoordinates } from '../ports/attestations.ts';
import type { ModuleAbort, TransactionSubmitter } from './transactions.ts';
import { MissingCapError } from './market-errors.ts';

const CLOCK = '0x6';
const PAGE = 50;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const bytes = (text: string) => [...Buffer.from(text, 'hex')];

/** The typed error for an abort of `attestation`, or undefined for another module's. */
export function attestationError(what: string, abort: ModuleAbort): Error | undefined {
  if (abort.module !== ATTESTATION_MODULE) return undefined;
  const name = attestationAbortName(abort.code);
  return name ? new AttestationRefusedError(what, name, { abortCode: abort.code, functionName: abort.functionName, digest: abort.digest }) : undefined;
}

/**
 * Build attestations over `client.core`: tallies read from the Market's dynamic fields and a lease's requirement
 * from the Lease's (derived like Sui does, so an absent field is an absent object, not an error); commitments,
 * reveals and requirements written through the ledger (same signer, same gas lock).
 */
export class SuiAttestations implements AttestationLedger {
  readonly #client: ClientWithCoreApi;
  readonly #ledger: TransactionSubmitter;
  readonly #pkg: string;
  readonly #marketId: string;
  readonly #beforeWrite: () => Promise<void>;

  constructor(options: { client: ClientWithCoreApi; ledger: TransactionSubmitter; packageId: string; marketId: string; beforeWrite?: () => Promise<void> }) {
    this.#client = options.client;
    this.#ledger = options.ledger;
    this.#pkg = normalizeSuiAddress(options.packageId);
    this.#marketId = normalizeSuiAddress(options.marketId);
    this.#beforeWrite = options.beforeWrite ?? (async () => {});
  }

  async tally(at: TallyCoordinates): Promise<TallyView | null> {
    const name = tallyKeyBcs({ repository: normalizeSuiAddress(at.repositoryId), commit: Uint8Array.from(bytes(at.commit)), build_key: Uint8Array.from(bytes(at.buildKey)) });
    const content = await this.#field(this.#marketId, 'TallyKey', attestationType(this.#pkg, 'Tally'), name);
    if (content === null) return null;
    const tally = Tally.parse(content);
    return {
      commitUntilMs: Number(tally.commit_until_ms),
      revealUntilMs: Number(tally.reveal_until_ms),
      committed: tally.commitments.map((c) => c.provider),
      revealed: tally.reveals.map((r) => ({ provider: r.provider, tarSha256: hex(r.tar_sha256), manifestRoot: hex(r.manifest_root) })),
      status: statusOf(tally),
    };
  }

  async buildKeysOf(repositoryId: string): Promise<Map<string, string[]>> {
    const repository = normalizeSuiAddress(repositoryId);
    const keys = new Map<string, Set<string>>();
    let after: string | null = null;
    do {
      const page: SuiClientTypes.ListEventsResponse = await this.#client.core.listEvents({ filter: { eventType: attestationType(this.#pkg, 'BuildCommitted') }, after, limit: PAGE });
      for (const event of page.events) {
        const committed = BuildCommitted.parse(event.bcs);
        if (committed.repository !== repository) continue;
        const commit = hex(committed.commit);
        keys.set(commit, (keys.get(commit) ?? new Set()).add(hex(committed.build_key)));
      }
      after = page.hasNextPage ? page.endCursor : null;
    } while (after !== null);
    return new Map([...keys].map(([commit, set]) => [commit, [...set]]));
  }

  async reproductionRequestsAfter(cursor: string | null): Promise<{ leases: string[]; cursor: string | null }> {
    const leases: string[] = [];
    let after = cursor;
    for (;;) {
      const page: SuiClientTypes.ListEventsResponse = await this.#client.core.listEvents({ filter: { eventType: attestationType(this.#pkg, 'ReproductionRequired') }, after, limit: PAGE });
      for (const event of page.events) leases.push(ReproductionRequired.parse(event.bcs).lease);
      after = page.endCursor ?? after;
      if (!page.hasNextPage) return { leases, cursor: after };
    }
  }

  async requiredReproductions(leaseId: string): Promise<number> {
    const content = await this.#field(normalizeSuiAddress(leaseId), 'RequiredKey', 'u64', REQUIRED_KEY_BCS);
    return content === null ? 0 : Number(U64.parse(content));
  }

  async commitBuild(attester: Attester, at: TallyCoordinates, commitment: Uint8Array): Promise<TxReceipt & { commitUntilMs: number; revealUntilMs: number }> {
    const what = `committing to the build of ${at.commit} under key ${at.buildKey}`;
    const result = await this.#submit(what, (tx) => {
      tx.moveCall({
        target: `${this.#pkg}::${ATTESTATION_MODULE}::commit_build`,
        arguments: [...this.#attesterArguments(tx, attester, at), tx.pure.vector('u8', [...commitment]), tx.object(CLOCK)],
      });
    });
    const type = normalizeStructTag(attestationType(this.#pkg, 'BuildCommitted'));
    const event = result.events.find((e) => normalizeStructTag(e.eventType) === type);
    const committed = event ? BuildCommitted.parse(event.bcs) : null;
    return { digest: result.digest, commitUntilMs: Number(committed?.commit_until_ms ?? 0n), revealUntilMs: Number(committed?.reveal_until_ms ?? 0n) };
  }

  async revealBuild(attester: Attester, at: TallyCoordinates, digests: { tarSha256: string; manifestRoot: string }, nonce: Uint8Array): Promise<TxReceipt> {
    const what = `revealing the build of ${at.commit} under key ${at.buildKey}`;
    const result = await this.#submit(what, (tx) => {
      tx.moveCall({
        target: `${this.#pkg}::${ATTESTATION_MODULE}::reveal_build`,
        arguments: [
          ...this.#attesterArguments(tx, attester, at),
          tx.pure.vector('u8', bytes(digests.tarSha256)),
          tx.pure.vector('u8', bytes(digests.manifestRoot)),
          tx.pure.vector('u8', [...nonce]),
          tx.object(CLOCK),
        ],
      });
    });
    return { digest: result.digest };
  }

  async requireReproduced(leaseId: string, required: number): Promise<TxReceipt> {
    const what = `requiring ${required} reproductions on lease ${normalizeSuiAddress(leaseId)}`;
    const result = await this.#submit(what, (tx) => {
      tx.moveCall({ target: `${this.#pkg}::${ATTESTATION_MODULE}::require_reproduced`, arguments: [tx.object(leaseId), tx.pure.u64(required), tx.object(CLOCK)] });
    });
    return { digest: result.digest };
  }

  /** Admin (the signer holds the market's AdminCap): the commit and reveal windows of tallies opened from now on. */
  async setWindows(commitMs: number, revealMs: number): Promise<TxReceipt> {
    const owner = await this.#ledger.signerAddress();
    const [admin] = (await this.#client.core.listOwnedObjects({ owner, type: adminCapType(this.#pkg), limit: 1 })).objects;
    if (!admin) throw new MissingCapError(owner, "the market's AdminCap");
    const adminCapId = admin.objectId;
    const result = await this.#submit('setting the attestation windows', (tx) => {
      tx.moveCall({
        target: `${this.#pkg}::${ATTESTATION_MODULE}::set_windows`,
        arguments: [tx.object(this.#marketId), tx.object(adminCapId), tx.pure.u64(commitMs), tx.pure.u64(revealMs)],
      });
    });
    return { digest: result.digest };
  }

  #attesterArguments(tx: Transaction, attester: Attester, at: TallyCoordinates) {
    return [
      tx.object(this.#marketId),
      tx.object(attester.providerId),
      tx.object(attester.capId),
      tx.object(at.repositoryId),
      tx.pure.vector('u8', bytes(at.commit)),
      tx.pure.vector('u8', bytes(at.buildKey)),
    ];
  }

  async #submit(what: string, compose: (tx: Transaction) => void) {
    await this.#beforeWrite();
    return this.#ledger.submit(compose, what, (abort) => attestationError(what, abort));
  }

  /** The value bytes of the dynamic field `name` (of key type `key`) on object `parent`, or null when absent. */
  async #field(parent: string, key: 'TallyKey' | 'RequiredKey', valueType: string, name: Uint8Array): Promise<Uint8Array | null> {
    const keyType = attestationType(this.#pkg, key);
    const [field] = (await this.#client.core.getObjects({ objectIds: [deriveDynamicFieldID(parent, keyType, name)], include: { content: true } })).objects;
    if (field instanceof Error) return null;
    if (normalizeStructTag(field.type) !== normalizeStructTag(`0x2::dynamic_field::Field<${keyType}, ${valueType}>`)) return null;
    return field.content.slice(32 + name.length);
  }
}
