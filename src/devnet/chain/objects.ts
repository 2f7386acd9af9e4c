import { bcs, TypeTagSerializer } from '@mysten/sui/bcs';
import { normalizeStructTag, normalizeSuiAddress, toBase58, fromBase58 } from '@mysten/sui/utils';
import { blake2b } from '@noble/hashes/blake2.js';
import { concatBytes } from '../../core/bytes.ts';
import { hashTyped } from '../../light-client/digests.ts';
import { remembered } from './move-types.ts';
import { fromStoredBase64, toStoredBase64 } from './stored-base64.ts';

/**
 * Sui objects as the devnet keeps them, with ids, versions and digests computed exactly as Sui computes them, so
 * every id and digest a client sees could have come from a real network.
 */

export type Owner =
  | { $kind: 'AddressOwner'; AddressOwner: string }
  | { $kind: 'ObjectOwner'; ObjectOwner: string }
  | { $kind: 'Shared'; Shared: { initialSharedVersion: string } }
  | { $kind: 'Immutable'; Immutable: true };

export interface ChainObject {
  id: string;
  version: bigint;
  owner: Owner;
  /** Normalized struct tag, e.g. `0x…2::coin::Coin<0x…2::sui::SUI>`. */
  type: string;
  /** The Move struct's BCS (starts with the 32-byte UID). */
  contents: Uint8Array;
  hasPublicTransfer: boolean;
  /** Base58 digest of the transaction that last wrote the object. */
  previousTransaction: string;
  /** MIST refunded (99%) when the object is next written or deleted. */
  storageRebate: bigint;
}

export const SUI_FRAMEWORK = normalizeSuiAddress('0x2');
export const MOVE_STDLIB = normalizeSuiAddress('0x1');
export const CLOCK_ID = normalizeSuiAddress('0x6');
export const GAS_COIN_TYPE = normalizeStructTag('0x2::coin::Coin<0x2::sui::SUI>');
export const CLOCK_TYPE = normalizeStructTag('0x2::clock::Clock');
/** The `type` of a package object (Sui reports packages with this type string). */
export const PACKAGE_TYPE = 'package';

/** Id of the n-th object created by a transaction: blake2b256(0xf1 ‖ tx digest ‖ u64le(n)) (Sui `derive_id`). */
export function deriveObjectId(txDigest: string, creationIndex: number): string {
  const hash = blake2b.create({ dkLen: 32 });
  hash.update(new Uint8Array([0xf1]));
  hash.update(fromBase58(txDigest));
  hash.update(bcs.u64().serialize(creationIndex).toBytes());
  return normalizeSuiAddress(Buffer.from(hash.digest()).toString('hex'));
}

function moveObjectType(type: string) {
  return remembered(objectTypes, type, () => parseMoveObjectType(type));
}

/** The BCS value of each object type, as `moveObjectType` gives it (shared: read, never changed). */
const objectTypes = new Map<string, ReturnType<typeof parseMoveObjectType>>();

function parseMoveObjectType(type: string) {
  if (type === GAS_COIN_TYPE) return { GasCoin: true };
  const coin = /^0x0{63}2::coin::Coin<(.+)>$/.exec(type);
  if (coin) return { Coin: TypeTagSerializer.parseFromStr(coin[1], true) };
  const tag = TypeTagSerializer.parseFromStr(type, true);
  if (!('struct' in tag)) throw new Error(`not a struct type: ${type}`);
  return { Other: tag.struct };
}

function ownerBcs(owner: Owner) {
  switch (owner.$kind) {
    case 'AddressOwner': return { AddressOwner: owner.AddressOwner };
    case 'ObjectOwner': return { ObjectOwner: owner.ObjectOwner };
    case 'Shared': return { Shared: { initialSharedVersion: owner.Shared.initialSharedVersion } };
    case 'Immutable': return { Immutable: true };
  }
}

/**
 * The full object envelope (`bcs.Object`), as `objectBcs` and for the digest. A Move object's is put together from
 * parts kept by value (its type's encoding, its owner's, its previous transaction's digest): the SDK's serializer
 * spent most of a transaction's execution re-encoding the same addresses and type tags, a few hundred times in a
 * mirror push's ref updates. The bytes are the serializer's (objects.test.ts compares the two).
 */
export function objectEnvelope(object: ChainObject): Uint8Array {
  // The devnet's packages carry no bytecode: their functions are TypeScript (packages.ts).
  if (object.type === PACKAGE_TYPE) {
    return bcs.Object.serialize({
      data: { Package: { id: object.id, version: object.version, moduleMap: new Map(), typeOriginTable: [], linkageTable: new Map() } },
      owner: ownerBcs(object.owner),
      previousTransaction: object.previousTransaction,
      storageRebate: object.storageRebate,
    }).toBytes();
  }
  const head = remembered(envelopeHeads, `${object.hasPublicTransfer ? 1 : 0}${object.type}`, () => {
    const type = bcs.MoveObjectType.serialize(moveObjectType(object.type)).toBytes();
    // `Data::Move` (variant 0), then the MoveObject's type and hasPublicTransfer.
    return Uint8Array.from([0, ...type, object.hasPublicTransfer ? 1 : 0]);
  });
  const owner = remembered(ownerEncodings, ownerKey(object.owner), () => bcs.Owner.serialize(ownerBcs(object.owner)).toBytes());
  const previous = remembered(digestEncodings, object.previousTransaction, () => bcs.ObjectDigest.serialize(object.previousTransaction).toBytes());
  const parts = [
    head,
    U64.serialize(object.version).toBytes(),
    ULEB128.serialize(object.contents.length).toBytes(),
    object.contents,
    owner,
    previous,
    U64.serialize(object.storageRebate).toBytes(),
  ];
  return concatBytes(parts);
}

const U64 = bcs.u64();
const ULEB128 = bcs.uleb128();

/** Encodings of the envelope's repeated parts, by type, owner and transaction digest (bounded as `remembered` says). */
const envelopeHeads = new Map<string, Uint8Array>();
const ownerEncodings = new Map<string, Uint8Array>();
const digestEncodings = new Map<string, Uint8Array>();

function ownerKey(owner: Owner): string {
  switch (owner.$kind) {
    case 'AddressOwner': return `a${owner.AddressOwner}`;
    case 'ObjectOwner': return `o${owner.ObjectOwner}`;
    case 'Shared': return `s${owner.Shared.initialSharedVersion}`;
    case 'Immutable': return 'i';
  }
}

/** Digests of objects already asked for: a ChainObject is never changed in place (a write makes a new one). */
const digests = new WeakMap<ChainObject, string>();

export function objectDigest(object: ChainObject): string {
  let digest = digests.get(object);
  if (digest === undefined) digests.set(object, (digest = toBase58(hashTyped('Object', objectEnvelope(object)))));
  return digest;
}

/** Owner in effects BCS form. */
export function ownerToBcsValue(owner: Owner) {
  return ownerBcs(owner);
}

export function ownerAddress(owner: Owner): string | null {
  if (owner.$kind === 'AddressOwner') return owner.AddressOwner;
  if (owner.$kind === 'ObjectOwner') return owner.ObjectOwner;
  return null;
}

export interface StoredObject {
  id: string; version: string; owner: Owner; type: string; contents: string; hasPublicTransfer: boolean;
  previousTransaction: string; storageRebate: string;
}

export function storeObject(object: ChainObject): StoredObject {
  return {
    id: object.id, version: object.version.toString(), owner: object.owner, type: object.type, contents: toStoredBase64(object.contents),
    hasPublicTransfer: object.hasPublicTransfer, previousTransaction: object.previousTransaction, storageRebate: object.storageRebate.toString(),
  };
}

export function loadObject(stored: StoredObject): ChainObject {
  return {
    id: stored.id, version: BigInt(stored.version), owner: stored.owner, type: stored.type, contents: fromStoredBase64(stored.contents),
    hasPublicTransfer: stored.hasPublicTransfer, previousTransaction: stored.previousTransaction, storageRebate: BigInt(stored.storageRebate),
  };
}

/** Contents of a `Coin<T>`: UID ‖ u64 balance. */
export const CoinContents = bcs.struct('Coin', { id: bcs.Address, balance: bcs.u64() });
export const ClockContents = bcs.struct('Clock', { id: bcs.Address, timestamp_ms: bcs.u64() });

export function coinBalance(object: ChainObject): bigint {
  return BigInt(CoinContents.parse(object.contents).balance);
}

export function withCoinBalance(object: ChainObject, balance: bigint): ChainObject {
  return { ...object, contents: CoinContents.serialize({ id: object.id, balance }).toBytes() };
}
