import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bcs, TypeTagSerializer } from '@mysten/sui/bcs';
import { normalizeStructTag, normalizeSuiAddress, toBase58 } from '@mysten/sui/utils';
import { GAS_COIN_TYPE, PACKAGE_TYPE, objectDigest, objectEnvelope, type ChainObject, type Owner } from '../../../src/devnet/chain/objects.ts';

// objectEnvelope assembles a Move object's bytes from cached parts; these are the SDK serializer's bytes.
function sdkEnvelope(object: ChainObject): Uint8Array {
  const owner = object.owner.$kind === 'AddressOwner' ? { AddressOwner: object.owner.AddressOwner }
    : object.owner.$kind === 'ObjectOwner' ? { ObjectOwner: object.owner.ObjectOwner }
      : object.owner.$kind === 'Shared' ? { Shared: { initialSharedVersion: object.owner.Shared.initialSharedVersion } }
        : { Immutable: true as const };
  const coin = /^0x0{63}2::coin::Coin<(.+)>$/.exec(object.type);
  const type = object.type === GAS_COIN_TYPE ? { GasCoin: true as const }
    : coin ? { Coin: TypeTagSerializer.parseFromStr(coin[1]!, true) }
      : { Other: (TypeTagSerializer.parseFromStr(object.type, true) as { struct: Parameters<typeof bcs.StructTag.serialize>[0] }).struct };
  return bcs.Object.serialize({
    data: { Move: { type, hasPublicTransfer: object.hasPublicTransfer, version: object.version, contents: object.contents } },
    owner,
    previousTransaction: object.previousTransaction,
    storageRebate: object.storageRebate,
  }).toBytes();
}

const digestOf = (seed: number) => toBase58(Uint8Array.from({ length: 32 }, (_, i) => (seed * 31 + i * 7) & 0xff));
const address = (seed: number) => normalizeSuiAddress(`0x${seed.toString(16)}`);
const owners: Owner[] = [
  { $kind: 'AddressOwner', AddressOwner: address(0xa11ce) },
  { $kind: 'ObjectOwner', ObjectOwner: address(0x7ab1e) },
  { $kind: 'Shared', Shared: { initialSharedVersion: '7' } },
  { $kind: 'Immutable', Immutable: true },
];
const types = [
  GAS_COIN_TYPE,
  normalizeStructTag(`0x2::coin::Coin<${address(0xbeef)}::wal::WAL>`),
  normalizeStructTag(`0x2::dynamic_field::Field<0x1::string::String, vector<u8>>`),
  normalizeStructTag(`${address(0xc0de)}::repository::Repository`),
];

test('a Move object envelope is the SDK serializer\'s bytes, whatever its owner, type, size and numbers', () => {
  let compared = 0;
  for (const [o, owner] of owners.entries()) {
    for (const [t, type] of types.entries()) {
      // Lengths on both sides of ULEB128's one- and two-byte boundary, and a large one.
      for (const size of [32, 127, 128, 16_385]) {
        for (const transfer of [false, true]) {
          const object: ChainObject = {
            id: address(o * 100 + t), version: BigInt(size) * 1_000_003n + 2n ** 40n, owner, type,
            contents: Uint8Array.from({ length: size }, (_, i) => (i * 13 + o) & 0xff), hasPublicTransfer: transfer,
            previousTransaction: digestOf(o + t + size), storageRebate: BigInt(size) * 988_000n,
          };
          assert.equal(objectEnvelope(object), sdkEnvelope(object), `${owner.$kind} ${type} ${size} bytes`);
          compared++;
        }
      }
    }
  }
  assert.is(compared, owners.length * types.length * 4 * 2);
});

test('parts kept from one object never leak into another of the same type with other numbers', () => {
  const base: ChainObject = {
    id: address(1), version: 5n, owner: owners[0]!, type: types[2]!, contents: new Uint8Array(40).fill(1),
    hasPublicTransfer: false, previousTransaction: digestOf(1), storageRebate: 10n,
  };
  const next = { ...base, version: 6n, owner: owners[1]!, previousTransaction: digestOf(2), storageRebate: 11n, contents: new Uint8Array(41).fill(2) };
  assert.equal(objectEnvelope(base), sdkEnvelope(base));
  assert.equal(objectEnvelope(next), sdkEnvelope(next));
  assert.is.not(objectDigest(base), objectDigest(next));
});

test('a package object still takes the serializer\'s own path', () => {
  const pkg: ChainObject = {
    id: address(0x9), version: 1n, owner: { $kind: 'Immutable', Immutable: true }, type: PACKAGE_TYPE, contents: new Uint8Array(),
    hasPublicTransfer: false, previousTransaction: digestOf(9), storageRebate: 0n,
  };
  const expected = bcs.Object.serialize({
    data: { Package: { id: pkg.id, version: 1n, moduleMap: new Map(), typeOriginTable: [], linkageTable: new Map() } },
    owner: { Immutable: true }, previousTransaction: pkg.previousTransaction, storageRebate: 0n,
  }).toBytes();
  assert.equal(objectEnvelope(pkg), expected);
});

test.run();
