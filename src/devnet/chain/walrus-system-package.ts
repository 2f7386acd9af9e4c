import { bcs } from '@mysten/sui/bcs';
import { blake2b } from '@noble/hashes/blake2.js';
import { normalizeSuiAddress } from '@mysten/sui/utils';
import { CoinContents, SUI_FRAMEWORK } from './objects.ts';
import { WAL_RESERVE_COIN_ID, WALRUS_SYSTEM_OBJECT_ID, WALRUS_SYSTEM_PACKAGE_ID } from './fixed-ids.ts';
import { DYNAMIC_FIELD, MoveAbortFailure, type CallContext, type MoveFunction, type MovePackage } from './packages.ts';
import { BlobLayout, StorageLayout, SystemLayout } from '../../walrus-protocol/blob-object-bcs.ts';
import { MAX_EPOCHS_AHEAD } from '../../core/blob-lifetime.ts';
import { encodedBlobLength } from '../../walrus-protocol/encoding.ts';
import { INNER_VERSION, STORAGE_PRICE_PER_UNIT, SystemStateInnerLayout, WRITE_PRICE_PER_UNIT } from './walrus-committee.ts';
import type * as Certificates from './walrus-certificate.ts';


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
const BYTES_PER_UNIT = 1024n * 1024n;

const BlobCertified = bcs.struct('BlobCertified', { epoch: bcs.u32(), blob_id: bcs.u256(), end_epoch: bcs.u32(), deletable: bcs.bool(), object_id: bcs.Address, is_extension: bcs.bool() });
const BlobRegistered = bcs.struct('BlobRegistered', { epoch: bcs.u32(), blob_id: bcs.u256(), size: bcs.u64(), encoding_type: bcs.u8(), end_epoch: bcs.u32(), deletable: bcs.bool(), object_id: bcs.Address });
const BlobDeleted = bcs.struct('BlobDeleted', { epoch: bcs.u32(), blob_id: bcs.u256(), end_epoch: bcs.u32(), object_id: bcs.Address, was_certified: bcs.bool() });

/** Abort codes of the walrus contracts. */
const BLOB = { EResourceBounds: 2n, EResourceSize: 3n, EAlreadyCertified: 5n, EInvalidBlobId: 6n, ENotCertified: 7n, EBlobNotDeletable: 8n, EInvalidBlobPersistenceType: 9n, EInvalidBlobObject: 10n } as const;
const SYSTEM_STATE_INNER = { EInvalidEpochsAhead: 2n, EInvalidIdEpoch: 3n } as const;
const ENCODING = { EInvalidEncodingType: 0n } as const;
/** RedStuff over Reed-Solomon, the one encoding type Walrus accepts. */
const RS2 = 1;
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

const storageUnits = (size: bigint) => (size + BYTES_PER_UNIT - 1n) / BYTES_PER_UNIT;

/** What `extend_blob` costs: storage units × price × epochs (`system_state_inner::process_storage_payments`). */
export function extensionCost(storageSize: bigint, epochs: number): bigint {
  return storageUnits(storageSize) * STORAGE_PRICE_PER_UNIT * BigInt(epochs);
}

/** `blob::derive_blob_id`: blake2b-256 of (encoding type, size, root hash), read as a little-endian u256. */
function deriveBlobId(rootHash: bigint, encodingType: number, size: bigint): bigint {
  const derivation = bcs.struct('BlobIdDerivation', { encoding_type: bcs.u8(), size: bcs.u64(), root_hash: bcs.u256() }).serialize({ encoding_type: encodingType, size, root_hash: rootHash }).toBytes();
  return BigInt(bcs.u256().parse(blake2b(derivation, { dkLen: 32 })));
}

/**
 * The System's inner state, a dynamic field of the System object that the devnet writes once storage nodes serve it
 * (walrus-committee.ts); borrowing it without one aborts as `dynamic_field::borrow_child_object` does.
 */
function readCommittee(ctx: CallContext) {
  const inner = ctx.tables.get(WALRUS_SYSTEM_OBJECT_ID, 'u64', bcs.u64().serialize(INNER_VERSION).toBytes());
  if (inner === null) throw new MoveAbortFailure(SUI_FRAMEWORK, DYNAMIC_FIELD.module, 'borrow_child_object', 0, DYNAMIC_FIELD.EFieldDoesNotExist);
  return SystemStateInnerLayout.parse(inner).committee;
}

/**
 * `certificates` is walrus-certificate.ts, handed in by the engine once it runs Move: its BLS12-381 code is large,
 * and a process that only reads the chain never loads it.
 */
export function walrusSystemPackage(epochNow: () => number, certificates: typeof Certificates): MovePackage {
  const { certifiedBlobMessage, verifyCommitteeCertificate } = certificates;
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
  /** The coin argument's balance less `amount`, as `balance::split` leaves it (aborting when it is short). */
  const pay = (coinArg: { bcs: Uint8Array }, amount: bigint) => {
    const coin = CoinContents.parse(coinArg.bcs);
    if (BigInt(coin.balance) < amount) throw new MoveAbortFailure(SUI_FRAMEWORK, 'balance', 'split', 8, BALANCE_ENOT_ENOUGH);
    coinArg.bcs = CoinContents.serialize({ id: coin.id, balance: BigInt(coin.balance) - amount }).toBytes();
  };
  const reserveSpace: MoveFunction = {
    module: 'system', name: 'reserve_space', index: 2, visibility: 'public', isEntry: false, typeParameters: [],
    parameters: [`&mut ${SYSTEM_TYPE}`, 'u64', 'u32', `&mut ${WAL_COIN_TYPE}`, `&mut ${SUI_FRAMEWORK}::tx_context::TxContext`], returns: [STORAGE_TYPE],
    run(ctx, [, amountArg, epochsArg, paymentArg]) {
      const epoch = epochNow();
      const amount = BigInt(bcs.u64().parse(amountArg.bcs));
      const epochsAhead = bcs.u32().parse(epochsArg.bcs);
      if (epochsAhead === 0 || epochsAhead > MAX_EPOCHS_AHEAD) throw abort('system_state_inner', 'reserve_space', 6, SYSTEM_STATE_INNER.EInvalidEpochsAhead);
      // One split per epoch paid in advance (process_storage_payments); one check of the whole sum aborts alike.
      pay(paymentArg, storageUnits(amount) * STORAGE_PRICE_PER_UNIT * BigInt(epochsAhead));
      const storage = StorageLayout.serialize({ id: ctx.newId(), start_epoch: epoch, end_epoch: epoch + epochsAhead, storage_size: amount }).toBytes();
      return [{ type: STORAGE_TYPE, bcs: storage }];
    },
  };
  const registerBlob: MoveFunction = {
    module: 'system', name: 'register_blob', index: 4, visibility: 'public', isEntry: false, typeParameters: [],
    parameters: [`&mut ${SYSTEM_TYPE}`, STORAGE_TYPE, 'u256', 'u256', 'u64', 'u8', 'bool', `&mut ${WAL_COIN_TYPE}`, `&mut ${SUI_FRAMEWORK}::tx_context::TxContext`], returns: [BLOB_TYPE],
    run(ctx, [, storageArg, blobIdArg, rootHashArg, sizeArg, encodingArg, deletableArg, paymentArg]) {
      const epoch = epochNow();
      const storage = StorageLayout.parse(storageArg.bcs);
      const blobId = BigInt(bcs.u256().parse(blobIdArg.bcs));
      const rootHash = BigInt(bcs.u256().parse(rootHashArg.bcs));
      const size = BigInt(bcs.u64().parse(sizeArg.bcs));
      const encodingType = bcs.u8().parse(encodingArg.bcs);
      const deletable = bcs.bool().parse(deletableArg.bcs);
      const committee = readCommittee(ctx);
      // blob::new's checks, in its order.
      if (epoch < storage.start_epoch || epoch >= storage.end_epoch) throw abort('blob', 'new', 3, BLOB.EResourceBounds);
      if (encodingType !== RS2) throw abort('encoding', 'encoded_blob_length', 0, ENCODING.EInvalidEncodingType);
      const encodedSize = BigInt(encodedBlobLength(Number(size), committee.n_shards));
      if (encodedSize > BigInt(storage.storage_size)) throw abort('blob', 'new', 3, BLOB.EResourceSize);
      if (deriveBlobId(rootHash, encodingType, size) !== blobId) throw abort('blob', 'new', 3, BLOB.EInvalidBlobId);
      const objectId = ctx.newId();
      ctx.emit(`${pkg}::events::BlobRegistered`, BlobRegistered.serialize({ epoch, blob_id: blobId, size, encoding_type: encodingType, end_epoch: storage.end_epoch, deletable, object_id: objectId }).toBytes());
      pay(paymentArg, storageUnits(encodedSize) * WRITE_PRICE_PER_UNIT);
      const blob = BlobLayout.serialize({ id: objectId, registered_epoch: epoch, blob_id: blobId, size, encoding_type: encodingType, certified_epoch: null, storage, deletable }).toBytes();
      return [{ type: BLOB_TYPE, bcs: blob }];
    },
  };
  const certifyBlob: MoveFunction = {
    module: 'system', name: 'certify_blob', index: 5, visibility: 'public', isEntry: false, typeParameters: [],
    parameters: [`&${SYSTEM_TYPE}`, `&mut ${BLOB_TYPE}`, 'vector<u8>', 'vector<u8>', 'vector<u8>'], returns: [],
    run(ctx, [, blobArg, signatureArg, bitmapArg, messageArg]) {
      const epoch = epochNow();
      const vector = bcs.vector(bcs.u8());
      const committee = readCommittee(ctx);
      const certified = verifyCommitteeCertificate(committee, Uint8Array.from(vector.parse(signatureArg.bcs)), Uint8Array.from(vector.parse(bitmapArg.bcs)), Uint8Array.from(vector.parse(messageArg.bcs)), (module, fn, code) => abort(module, fn, 0, code));
      if (certified.epoch !== epoch) throw abort('system_state_inner', 'certify_blob', 14, SYSTEM_STATE_INNER.EInvalidIdEpoch);
      const message = certifiedBlobMessage(certified, (module, fn, code) => abort(module, fn, 0, code));
      const blob = BlobLayout.parse(blobArg.bcs);
      // blob::certify_with_certified_msg's checks, in its order.
      if (BigInt(blob.blob_id) !== message.blobId) throw abort('blob', 'certify_with_certified_msg', 6, BLOB.EInvalidBlobId);
      if (blob.certified_epoch !== null) throw abort('blob', 'certify_with_certified_msg', 6, BLOB.EAlreadyCertified);
      if (epoch >= blob.storage.end_epoch) throw abort('blob', 'certify_with_certified_msg', 6, BLOB.EResourceBounds);
      if (blob.deletable !== (message.deletableObjectId !== null)) throw abort('blob', 'certify_with_certified_msg', 6, BLOB.EInvalidBlobPersistenceType);
      if (blob.deletable && normalizeSuiAddress(message.deletableObjectId!) !== normalizeSuiAddress(blob.id)) throw abort('blob', 'certify_with_certified_msg', 6, BLOB.EInvalidBlobObject);
      blobArg.bcs = BlobLayout.serialize({ ...blob, certified_epoch: epoch }).toBytes();
      ctx.emit(`${pkg}::events::BlobCertified`, BlobCertified.serialize({ epoch, blob_id: BigInt(blob.blob_id), end_epoch: blob.storage.end_epoch, deletable: blob.deletable, object_id: blob.id, is_extension: false }).toBytes());
      return [];
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
    ['system', new Map([['extend_blob', extendBlob], ['delete_blob', deleteBlob], ['reserve_space', reserveSpace], ['register_blob', registerBlob], ['certify_blob', certifyBlob]])],
    ['staking', new Map([['stake_with_pool', stakeWithPool]])],
    ['blob', new Map()], ['storage_resource', new Map()], ['wal', new Map()], ['events', new Map()], ['staked_wal', new Map()],
  ]);
  const structs = new Set(['system::System', 'blob::Blob', 'storage_resource::Storage', 'wal::WAL', 'staking::Staking', 'staked_wal::StakedWal', 'staking_pool::StakingPool', 'system_state_inner::SystemStateInnerV1', 'staking_inner::StakingInnerV1'].map((name) => `${pkg}::${name}`));
  return { id: normalizeSuiAddress(pkg), modules, structs };
}
