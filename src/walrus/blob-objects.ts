import type { ClientWithCoreApi, SuiClientTypes } from '@mysten/sui/client';
import { SimulationError } from '@mysten/sui/client';
import type { Signer } from '@mysten/sui/cryptography';
import { Transaction } from '@mysten/sui/transactions';
import { normalizeStructTag, normalizeSuiAddress, parseStructTag } from '@mysten/sui/utils';
import { WalrusGitError, messageOf } from '../core/errors.ts';
import { u256ToBlobId } from '../core/blob-id-codec.ts';
import type { BlobObjects, OwnedBlob } from '../ports/blob-objects.ts';
import { BlobLayout, SystemLayout } from '../walrus-protocol/blob-object-bcs.ts';

/** The user holds no WAL, which storage is paid in. */
export class NoWalError extends WalrusGitError {
  constructor(address: string, walType: string) {
    super('NO_WAL', `${address} holds no WAL (${walType}) to pay Walrus storage with; get WAL (on testnet: 'walrus get-wal'; on the devnet its faucet gives it) and retry`, { address, walType });
  }
}

/**
 * Walrus refused a Blob-object transaction (an abort of the walrus package, or the chain's own check).
 * What to do: check the signer's WAL and SUI balances and that it owns the Blob objects named, then run the command again.
 */
export class BlobObjectTransactionError extends WalrusGitError {
  constructor(what: string, detail: string, data: Record<string, unknown> = {}) {
    super('BLOB_TRANSACTION_FAILED', `${what} failed: ${detail}`, { detail, ...data });
  }
}

export interface SuiBlobObjectsOptions {
  client: ClientWithCoreApi;
  signer: () => Promise<Signer>;
  /** The Walrus System object of the network (the Walrus SDK's `systemObjectId`). */
  systemObjectId: string;
  /** One transaction at a time per address, across processes (they spend the same gas coins). */
  exclusive?: <T>(address: string, submit: () => Promise<T>) => Promise<T>;
  /** Runs before a transaction: the devnet's faucet tops up SUI there. */
  beforeWrite?: () => Promise<void>;
  /** Where a faucet gives WAL (the devnet): called when the owner holds less than WAL_TOP_UP_BELOW before paying. */
  walFaucet?: (address: string) => Promise<void>;
}

/** FROST below which a network with a WAL faucet tops the payer up (10 WAL: thousands of devnet extensions). */
const WAL_TOP_UP_BELOW = 10n * 1_000_000_000n;

interface WalrusPackage {
  /** The package that defines the types (the System object's type names it). */
  originalId: string;
  /** The package to call. */
  currentId: string;
  systemInitialVersion: string;
  walType: string;
}

/**
 * Blob objects through `client.core` and the walrus package's own functions, the same calls the Walrus SDK and CLI
 * make (`system::extend_blob`, `system::delete_blob`), on every network: the package, its current version and the
 * WAL type are read from the System object and the package's `staking::stake_with_pool` signature, as the SDK does.
 */
export class SuiBlobObjects implements BlobObjects {
  readonly #options: SuiBlobObjectsOptions;
  #package: Promise<WalrusPackage> | null = null;

  constructor(options: SuiBlobObjectsOptions) {
    this.#options = options;
  }

  async owner(): Promise<string> {
    return (await this.#options.signer()).toSuiAddress();
  }

  async owned(blobIds: readonly string[]): Promise<Map<string, OwnedBlob[]>> {
    const wanted = new Set(blobIds);
    const { originalId } = await this.#walrus();
    const owner = await this.owner();
    const found = new Map<string, OwnedBlob[]>();
    let cursor: string | null = null;
    do {
      const page: SuiClientTypes.ListOwnedObjectsResponse<{ content: true }> = await this.#options.client.core.listOwnedObjects({ owner, type: `${originalId}::blob::Blob`, include: { content: true }, cursor, limit: 50 });
      for (const object of page.objects) {
        const blob = BlobLayout.parse(object.content);
        const blobId = u256ToBlobId(BigInt(blob.blob_id));
        if (!wanted.has(blobId) || blob.certified_epoch === null) continue;
        const list = found.get(blobId) ?? [];
        list.push({ objectId: normalizeSuiAddress(object.objectId), blobId, endEpoch: blob.storage.end_epoch, deletable: blob.deletable, storageSize: Number(blob.storage.storage_size) });
        found.set(blobId, list);
      }
      cursor = page.hasNextPage ? page.cursor : null;
    } while (cursor !== null);
    return found;
  }

  async extend(extensions: readonly { objectId: string; epochs: number }[]): Promise<{ digest: string }> {
    const walrus = await this.#walrus();
    const owner = await this.owner();
    if (this.#options.walFaucet !== undefined) {
      const { balance } = await this.#options.client.core.getBalance({ owner, coinType: walrus.walType });
      if (BigInt(balance.balance) < WAL_TOP_UP_BELOW) await this.#options.walFaucet(owner);
    }
    return this.#execute('extending Walrus blobs', async (tx) => {
      const coins = await this.#walCoins(owner, walrus.walType);
      const [payment, ...rest] = coins.map((coin) => tx.objectRef(coin));
      if (rest.length > 0) tx.mergeCoins(payment, rest);
      const system = tx.sharedObjectRef({ objectId: this.#options.systemObjectId, initialSharedVersion: walrus.systemInitialVersion, mutable: true });
      for (const { objectId, epochs } of extensions) {
        tx.moveCall({ target: `${walrus.currentId}::system::extend_blob`, arguments: [system, tx.object(objectId), tx.pure.u32(epochs), payment] });
      }
    });
  }

  async delete(objectIds: readonly string[]): Promise<{ digest: string }> {
    const walrus = await this.#walrus();
    const owner = await this.owner();
    return this.#execute('deleting Walrus blobs', async (tx) => {
      const system = tx.sharedObjectRef({ objectId: this.#options.systemObjectId, initialSharedVersion: walrus.systemInitialVersion, mutable: false });
      // The storage resources come back to the owner, who may reuse them (as `walrus delete` leaves them).
      const storages = objectIds.map((objectId) => tx.moveCall({ target: `${walrus.currentId}::system::delete_blob`, arguments: [system, tx.object(objectId)] }));
      tx.transferObjects(storages, tx.pure.address(owner));
    });
  }

  async #walCoins(owner: string, walType: string): Promise<{ objectId: string; version: string; digest: string }[]> {
    const coins: { objectId: string; version: string; digest: string }[] = [];
    let cursor: string | null = null;
    do {
      const page: SuiClientTypes.ListCoinsResponse = await this.#options.client.core.listCoins({ owner, coinType: walType, cursor, limit: 50 });
      coins.push(...page.objects.filter((coin) => BigInt(coin.balance) > 0n).map((coin) => ({ objectId: coin.objectId, version: coin.version, digest: coin.digest })));
      cursor = page.hasNextPage ? page.cursor : null;
    } while (cursor !== null);
    if (coins.length === 0) throw new NoWalError(owner, walType);
    return coins;
  }

  #walrus(): Promise<WalrusPackage> {
    return (this.#package ??= (async () => {
      const { client, systemObjectId } = this.#options;
      const { object } = await client.core.getObject({ objectId: systemObjectId, include: { content: true } });
      const system = SystemLayout.parse(object.content);
      const originalId = normalizeSuiAddress(parseStructTag(object.type).address);
      const owner = object.owner as { $kind: string; Shared?: { initialSharedVersion: string } };
      if (owner.$kind !== 'Shared') throw new BlobObjectTransactionError('reading the Walrus system object', `${systemObjectId} is not shared`);
      // Where the Walrus SDK finds the WAL type: the coin `staking::stake_with_pool` takes.
      const { function: stake } = await client.core.getMoveFunction({ packageId: originalId, moduleName: 'staking', name: 'stake_with_pool' });
      const coin = stake.parameters[1]?.body;
      const wal = coin?.$kind === 'datatype' ? coin.datatype.typeParameters[0] : undefined;
      if (wal?.$kind !== 'datatype') throw new BlobObjectTransactionError('reading the Walrus package', 'staking::stake_with_pool names no WAL coin');
      return { originalId, currentId: normalizeSuiAddress(system.package_id), systemInitialVersion: String(owner.Shared!.initialSharedVersion), walType: normalizeStructTag(wal.datatype.typeName) };
    })());
  }

  async #execute(what: string, compose: (tx: Transaction) => Promise<void>): Promise<{ digest: string }> {
    const signer = await this.#options.signer();
    const address = signer.toSuiAddress();
    await this.#options.beforeWrite?.();
    const exclusive = this.#options.exclusive ?? ((_address, submit) => submit());
    return exclusive(address, async () => {
      const tx = new Transaction();
      tx.setSender(address);
      await compose(tx);
      let result;
      try {
        result = await this.#options.client.core.signAndExecuteTransaction({ transaction: tx, signer, include: { effects: true } });
      } catch (error) {
        // The SDK simulates first to estimate gas: an abort found then never reaches the chain.
        if (error instanceof SimulationError && error.executionError) throw new BlobObjectTransactionError(what, error.executionError.message, { kind: error.executionError.$kind });
        throw new BlobObjectTransactionError(what, messageOf(error));
      }
      if (result.$kind === 'FailedTransaction') {
        throw new BlobObjectTransactionError(what, result.FailedTransaction.status.error?.message ?? 'the transaction failed', { digest: result.FailedTransaction.digest });
      }
      await this.#options.client.core.waitForTransaction({ result });
      return { digest: result.Transaction.digest };
    });
  }
}
