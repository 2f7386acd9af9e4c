import { bcs } from '@mysten/sui/bcs';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { CoinContents, SUI_FRAMEWORK } from './objects.ts';
import { WAL_RESERVE_COIN_ID, WALRUS_SYSTEM_OBJECT_ID, WALRUS_SYSTEM_PACKAGE_ID } from './fixed-ids.ts';
import { MoveAbortFailure, type MoveFunction, type MovePackage } from './packages.ts';
import { BlobLayout, StorageLayout, SystemLayout } from '../../walrus-protocol/blob-object-bcs.ts';
import { MAX_EPOCHS_AHEAD } from '../../core/blob-lifetime.ts';


/**
 * The slice of Walrus's Move package (`walrus::system`, `walrus::blob`, `wal::wal`) the devnet runs, so that a
 * pack's Blob object lives on the devnet chain as on Sui: owned by whoever stored it (the publisher, or the address
 * given as `send_object_to`), extended by its owner with `system::extend_blob` paid in WAL, deleted by its owner with
 * `system::delete_blob` when it is deletable. Layouts, argument order and abort codes are those of the walrus
 * contracts (`contracts/walrus/sources/system/{blob,system_state_inner}.move`); `staking::stake_with_pool` is
 * declared only so that clients find the WAL type where the Walrus SDK looks for it. The storage epoch is the devnet
 * Walrus service's (its clock lives in the Walrus state directory), handed in by whoever wires both together.
 */

export const WAL_TYPE = `${WALRUS_SYSTEM_PACKAGE_ID}::wal::WAL`;
export const BLOB_TYPE = `${WALRUS_SYSTEM_PACKAGE_ID}::blob::Blob`;
export const STORAGE_TYPE = `${WALRUS_SYSTEM_PACKAGE_ID}::storage_resource::Storage`;
export const SYSTEM_TYPE = `${WALRUS_SYSTEM_PACKAGE_ID}::system::System`;
const WAL_COIN_TYPE = `${SUI_FRAMEWORK}::coin::Coin<${WAL_TYPE}>`;
/** FROST (10^-9 WAL) the faucet holds, and sends per request. */
export const WAL_RESERVE = 1_000_000_000n * 1_000_000_000n;
export const WAL_FAUCET_AMOUNT = 100n * 1_000_000_000n;
/** Devnet storage price in FROST per MiB of encoded size and epoch (the service's publisher charges the same). */
export const STORAGE_PRICE_PER_UNIT = 100_000n;
const BYTES_PER_UNIT = 1024n * 1024n;

const BlobCertified = bcs.struct('BlobCertified', { epoch: bcs.u32(), blob_id: bcs.u256(), end_epoch: bcs.u32(), deletable: bcs.bool(), object_id: bcs.Address, is_extension: bcs.bool() });
const BlobDeleted = bcs.struct('BlobDeleted', { epoch: bcs.u32(), blob_id: bcs.u256(), end_epoch: bcs.u32(), object_id: bcs.Address, was_certified: bcs.bool() });

/** Abort codes of the walrus contracts. */
const BLOB = { EResourceBounds: 2n, ENotCertified: 7n, EBlobNotDeletable: 8n } as const;
const SYSTEM_STATE_INNER = { EInvalidEpochsAhead: 2n } as const;
/** `sui::balance::split` on too small a balance. */
const BALANCE_ENOT_ENOUGH = 2n;

export function systemObjectContents(): Uint8Array {
  return SystemLayout.serialize({ id: WALRUS_SYSTEM_OBJECT_ID, version: 1n, package_id: WALRUS_SYSTEM_PACKAGE_ID, new_package_id: null }).toBytes();
}

export function walReserveContents(): Uint8Array {
  return CoinContents.serialize({ id: WAL_RESERVE_COIN_ID, balance: WAL_RESERVE }).toBytes();
}

export function walCoinType(): string {
  return WAL_COIN_TYPE;
}

/** A certified Blob object's contents, as `register_blob` + `certify_blob` leave it. */
export function blobObjectContents(blob: { objectId: string; storageId: string; blobIdValue: bigint; size: number; encodedLength: number; epoch: number; endEpoch: number; deletable: boolean }): Uint8Array {
  return BlobLayout.serialize({
    id: blob.objectId, registered_epoch: blob.epoch, blob_id: blob.blobIdValue, size: BigInt(blob.size), encoding_type: 1, certified_epoch: blob.epoch,
    storage: { id: blob.storageId, start_epoch: blob.epoch, end_epoch: blob.endEpoch, storage_size: BigInt(blob.encodedLength) }, deletable: blob.deletable,
  }).toBytes();
}

/** What `extend_blob` costs: storage units × price × epochs (`system_state_inner::process_storage_payments`). */
export function extensionCost(storageSize: bigint, epochs: number): bigint {
  return ((storageSize + BYTES_PER_UNIT - 1n) / BYTES_PER_UNIT) * STORAGE_PRICE_PER_UNIT * BigInt(epochs);
}

export function walrusSystemPackage(epochNow: () => number): MovePackage {
  const pkg = WALRUS_SYSTEM_PACKAGE_ID;
  const abort = (module: string, fn: string, index: number, code: bigint) => new MoveAbortFailure(pkg, module, fn, index, code);
  const extendBlob: MoveFunction = {
    module: 'system', name: 'extend_blob', index: 9, visibility: 'public', isEntry: false, typeParameters: [],
    parameters: [`&mut ${SYSTEM_TYPE}`, `&mut ${BLOB_TYPE}`, 'u32', `&mut ${WAL_COIN_TYPE}`], returns: [],
    run(ctx, [, blobArg, epochsArg, paymentArg]) {
      const epoch = epochNow();
      const blob = BlobLayout.parse(blobArg.bcs);
      const epochs = bcs.u32().parse(epochsArg.bcs);
      if (blob.certified_epoch === null) throw abort('blob', 'assert_certified_not_expired', 9, BLOB.ENotCertified);
      if (epoch >= blob.storage.end_epoch) throw abort('blob', 'assert_certified_not_expired', 9, BLOB.EResourceBounds);
      const endOffset = blob.storage.end_epoch - epoch + epochs;
      if (epochs === 0 || endOffset > MAX_EPOCHS_AHEAD) throw abort('system_state_inner', 'extend_blob', 15, SYSTEM_STATE_INNER.EInvalidEpochsAhead);
      const coin = CoinContents.parse(paymentArg.bcs);
      const cost = extensionCost(BigInt(blob.storage.storage_size), epochs);
      if (BigInt(coin.balance) < cost) throw new MoveAbortFailure(SUI_FRAMEWORK, 'balance', 'split', 8, BALANCE_ENOT_ENOUGH);
      paymentArg.bcs = CoinContents.serialize({ id: coin.id, balance: BigInt(coin.balance) - cost }).toBytes();
      const endEpoch = blob.storage.end_epoch + epochs;
      blobArg.bcs = BlobLayout.serialize({ ...blob, storage: { ...blob.storage, end_epoch: endEpoch } }).toBytes();
      ctx.emit(`${pkg}::events::BlobCertified`, BlobCertified.serialize({ epoch: blob.certified_epoch, blob_id: BigInt(blob.blob_id), end_epoch: endEpoch, deletable: blob.deletable, object_id: blob.id, is_extension: true }).toBytes());
      return [];
    },
  };
  const deleteBlob: MoveFunction = {
    module: 'system', name: 'delete_blob', index: 8, visibility: 'public', isEntry: false, typeParameters: [],
    parameters: [`&${SYSTEM_TYPE}`, BLOB_TYPE], returns: [STORAGE_TYPE],
    run(ctx, [, blobArg]) {
      const epoch = epochNow();
      const blob = BlobLayout.parse(blobArg.bcs);
      if (!blob.deletable) throw abort('blob', 'delete', 12, BLOB.EBlobNotDeletable);
      if (blob.storage.end_epoch <= epoch) throw abort('blob', 'delete', 12, BLOB.EResourceBounds);
      ctx.emit(`${pkg}::events::BlobDeleted`, BlobDeleted.serialize({ epoch, blob_id: BigInt(blob.blob_id), end_epoch: blob.storage.end_epoch, object_id: blob.id, was_certified: blob.certified_epoch !== null }).toBytes());
      return [{ type: STORAGE_TYPE, bcs: StorageLayout.serialize(blob.storage).toBytes() }];
    },
  };
  const stakeWithPool: MoveFunction = {
    module: 'staking', name: 'stake_with_pool', index: 20, visibility: 'public', isEntry: false, typeParameters: [],
    parameters: [`&mut ${pkg}::staking::Staking`, WAL_COIN_TYPE, `${SUI_FRAMEWORK}::object::ID`, `&mut ${SUI_FRAMEWORK}::tx_context::TxContext`],
    returns: [`${pkg}::staked_wal::StakedWal`],
    run() {
      // The devnet has no staking: a call reaches no committee.
      throw abort('staking', 'stake_with_pool', 20, 0n);
    },
  };
  const modules = new Map<string, Map<string, MoveFunction>>([
    ['system', new Map([['extend_blob', extendBlob], ['delete_blob', deleteBlob]])],
    ['staking', new Map([['stake_with_pool', stakeWithPool]])],
    ['blob', new Map()], ['storage_resource', new Map()], ['wal', new Map()], ['events', new Map()], ['staked_wal', new Map()],
  ]);
  const structs = new Set(['system::System', 'blob::Blob', 'storage_resource::Storage', 'wal::WAL', 'staking::Staking', 'staked_wal::StakedWal'].map((name) => `${pkg}::${name}`));
  return { id: normalizeSuiAddress(pkg), modules, structs };
}
