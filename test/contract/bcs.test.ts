import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bcs, toHex } from '@mysten/bcs';
import { Coin, PackEntry, Repository, eventType, layoutOf, normalizeAddress, packEntryType, repositoryType } from '../../src/contract/bcs.ts';

const PKG = `0x${'0'.repeat(60)}cafe`;

const normalize = suite('normalizeAddress');

normalize('pads, lowercases and prefixes; rejects non-hex', () => {
  assert.is(normalizeAddress('0x2'), `0x${'0'.repeat(63)}2`);
  assert.is(normalizeAddress('AB'.repeat(32)), `0x${'ab'.repeat(32)}`);
  assert.throws(() => normalizeAddress('0xzz'), /not an address/);
  assert.throws(() => normalizeAddress('1'.repeat(65)), /not an address/);
});

normalize.run();

const repository = suite('Repository');

repository('round-trips with Move field order: id, version, name, owner, writers, …, log_head, private, readers', () => {
  const value = {
    id: `0x${'01'.repeat(32)}`,
    version: 1n,
    name: 'app',
    owner: `0x${'a1'.repeat(32)}`,
    writers: { contents: [`0x${'b0'.repeat(32)}`] },
    protected: { contents: ['refs/heads/main'] },
    head: 'refs/heads/main',
    hash_len: 20,
    refs: { id: `0x${'02'.repeat(32)}`, size: 3n },
    packs: { id: `0x${'03'.repeat(32)}`, size: 2n },
    pack_count: 2n,
    live_from: 1n,
    seq: 4n,
    log_head: new Uint8Array(32).fill(9),
    private: true,
    readers: { contents: [`0x${'c0'.repeat(32)}`] },
  };
  const bytes = Repository.serialize(value).toBytes();
  // id(32) version(8) name(1+3) owner(32) writers(1+32) protected(1+1+15) head(1+15) hash_len(1) refs(40) packs(40) 3×u64 log_head(1+32)
  // private(1) readers(1+32)
  assert.is(bytes.length, 32 + 8 + 4 + 32 + 33 + 17 + 16 + 1 + 40 + 40 + 24 + 33 + 1 + 33);
  assert.is(bytes[bytes.length - 34], 1);
  assert.is(toHex(bytes.slice(-32)), 'c0'.repeat(32));
  assert.is(toHex(bytes.slice(32, 40)), '0100000000000000');
  assert.is(bytes[32 + 8 + 4 + 32 + 33 + 17 + 16], 20);
  assert.equal(Repository.parse(bytes), value);
});

repository.run();

const layout = suite('layoutOf');

layout('decodes the pure argument types of push', () => {
  const names = layoutOf(PKG, 'vector<0x1::string::String>')!;
  assert.equal(names.parse(bcs.vector(bcs.string()).serialize(['refs/heads/a']).toBytes()), ['refs/heads/a']);
  const olds = layoutOf(PKG, 'vector<0x1::option::Option<vector<u8>>>')!;
  const encoded = bcs.vector(bcs.option(bcs.byteVector())).serialize([null, new Uint8Array([1, 2])]).toBytes();
  assert.equal(olds.parse(encoded), [null, new Uint8Array([1, 2])]);
  assert.is(layoutOf(PKG, 'u64')!.parse(bcs.u64().serialize(7).toBytes()), 7n);
  assert.is(layoutOf(PKG, '0x0000000000000000000000000000000000000000000000000000000000000002::object::ID'), layoutOf(PKG, '0x2::object::ID'));
});

layout('knows our structs under the package id only', () => {
  assert.is(layoutOf(PKG, packEntryType(PKG)), PackEntry);
  assert.is(layoutOf(PKG, repositoryType(PKG)), Repository);
  assert.ok(layoutOf(PKG, eventType(PKG, 'Pushed')));
  assert.is(layoutOf(PKG, '0x99::repository::PackEntry'), undefined);
  assert.is(layoutOf(PKG, '0x2::coin::Coin<0x2::sui::SUI>'), Coin);
  assert.is(layoutOf(PKG, '0x2::bag::Bag'), undefined);
});

layout.run();
