import type { ClientWithCoreApi } from '@mysten/sui/client';
import { deriveDynamicFieldID, normalizeStructTag, normalizeSuiAddress } from '@mysten/sui/utils';
import { blobIdToU256, u256ToBlobId } from '../core/blob-id-codec.ts';
import { LeaseSecretsRefusedError } from '../core/lease-secrets.ts';
import { LEASE_SECRETS_MODULE, SECRETS_KEY_BCS, Secrets, leaseSecretsAbortName, secretsKeyType, secretsType } from '../contract/lease-secrets-model.ts';
import type { TxReceipt } from '../ports/ledger.ts';
import type { SecretsPointer } from '../ports/market.ts';
import type { ModuleAbort, TransactionSubmitter } from './transactions.ts';

const CLOCK = '0x6';
/** Object ids one `getObjects` takes (Sui's limit for multi-get). */
const MAX_OBJECTS_PER_READ = 50;

/** The typed error for an abort of `lease_secrets`, or undefined for another module's. */
export function leaseSecretsError(what: string, abort: ModuleAbort): Error | undefined {
  if (abort.module !== LEASE_SECRETS_MODULE) return undefined;
  const name = leaseSecretsAbortName(abort.code);
  return name ? new LeaseSecretsRefusedError(what, name, { abortCode: abort.code, functionName: abort.functionName, digest: abort.digest }) : undefined;
}

/**
 * A lease's pointer to its sealed secrets over `client.core`: read from the Lease's dynamic field (derived like Sui
 * does, so an absent field is an absent object, not an error), written with `lease_secrets::set_secrets` through the
 * ledger (same signer, same gas lock).
 */
export class SuiLeaseSecrets {
  readonly #client: ClientWithCoreApi;
  readonly #ledger: TransactionSubmitter;
  readonly #pkg: string;

  constructor(options: { client: ClientWithCoreApi; ledger: TransactionSubmitter; packageId: string }) {
    this.#client = options.client;
    this.#ledger = options.ledger;
    this.#pkg = normalizeSuiAddress(options.packageId);
  }

  /** The lease's current secrets, or null before any. */
  async current(leaseId: string): Promise<SecretsPointer | null> {
    return (await this.currentOf([leaseId])).get(normalizeSuiAddress(leaseId)) ?? null;
  }

  /**
   * The current secrets of each lease (keyed by its normalized id; null before any), in one read per
   * MAX_OBJECTS_PER_READ leases.
   */
  async currentOf(leaseIds: readonly string[]): Promise<Map<string, SecretsPointer | null>> {
    const ids = leaseIds.map((id) => normalizeSuiAddress(id));
    const fieldType = normalizeStructTag(`0x2::dynamic_field::Field<${secretsKeyType(this.#pkg)}, ${secretsType(this.#pkg)}>`);
    const out = new Map<string, SecretsPointer | null>();
    for (let start = 0; start < ids.length; start += MAX_OBJECTS_PER_READ) {
      const batch = ids.slice(start, start + MAX_OBJECTS_PER_READ);
      const objectIds = batch.map((id) => deriveDynamicFieldID(id, secretsKeyType(this.#pkg), SECRETS_KEY_BCS));
      const { objects } = await this.#client.core.getObjects({ objectIds, include: { content: true } });
      batch.forEach((leaseId, i) => {
        const field = objects[i]!;
        // An absent field is an absent object: that lease has no secrets yet.
        if (field instanceof Error || normalizeStructTag(field.type) !== fieldType) {
          out.set(leaseId, null);
          return;
        }
        const value = Secrets.parse(field.content.slice(32 + SECRETS_KEY_BCS.length));
        out.set(leaseId, { blobId: u256ToBlobId(value.blob_id), version: value.version, setAtMs: value.set_at_ms });
      });
    }
    return out;
  }

  /** Points the lease at `version` of its secrets, sealed in Walrus blob `blobId` (tenant only). */
  async set(leaseId: string, blobId: string, version: bigint): Promise<TxReceipt> {
    const what = `setting version ${version} of the secrets of lease ${normalizeSuiAddress(leaseId)}`;
    const result = await this.#ledger.submit(
      (tx) => {
        tx.moveCall({
          target: `${this.#pkg}::${LEASE_SECRETS_MODULE}::set_secrets`,
          arguments: [tx.object(leaseId), tx.pure.u256(blobIdToU256(blobId)), tx.pure.u64(version), tx.object(CLOCK)],
        });
      },
      what,
      (abort) => leaseSecretsError(what, abort),
    );
    return { digest: result.digest };
  }
}
