import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { newDataKey, newPackIdentity, PackEncryptor } from '../../../src/core/pack-cipher.ts';
import { checkPack, packLabel, packPlaces } from '../../../src/remote/history/verify-packs.ts';
import { buildHistory, chunk, fakeBlobId, mapBlobStore, oid } from './fixture.ts';

const history = () =>
  buildHistory([
    { updates: [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], chunks: [chunk('first pack')] },
    { updates: [{ name: 'refs/heads/x', old: null, new: oid(1), force: false }] },
    { updates: [{ name: 'refs/heads/main', old: oid(1), new: oid(2), force: false }], chunks: [chunk('second pack, chunk one;'), chunk(' chunk two')] },
  ]);

// ---
const PackPlaces = suite('packPlaces');
PackPlaces('maps each pack index to the push that stored it', () => {
  assert.equal([...packPlaces(history().events)], [[0, 1], [1, 3]]);
});
PackPlaces.run();

// ---
const PackLabel = suite('packLabel');
PackLabel('names the push when known', () => {
  assert.is(packLabel({ index: 4, seq: 7 }), 'push 7, pack #4');
  assert.is(packLabel({ index: 4, seq: null }), 'pack #4');
});
PackLabel.run();

// ---
const CheckPack = suite('checkPack');

CheckPack('accepts intact chunks and returns the whole pack when asked', async () => {
  const { packs, blobs } = history();
  const check = await checkPack(mapBlobStore(blobs), fakeBlobId, packs[1]!, { index: 1, seq: 3 }, { keepBytes: true });
  assert.equal(check.findings, []);
  assert.is(new TextDecoder().decode(check.bytes!), 'second pack, chunk one; chunk two');
  assert.is((await checkPack(mapBlobStore(blobs), fakeBlobId, packs[1]!, { index: 1, seq: 3 })).bytes, null);
});

CheckPack('altered bytes: the blob id of what is served and the pack sha256 differ', async () => {
  const { packs, blobs } = history();
  const [first, second] = packs[1]!.chunks;
  const tampered = chunk('second pack, chunk ONE;');
  blobs.set(first!, tampered);
  const { findings } = await checkPack(mapBlobStore(blobs), fakeBlobId, packs[1]!, { index: 1, seq: 3 });
  assert.equal(findings.map((f) => [f.code, f.seq, f.blobId]), [['BLOB_ID_MISMATCH', 3, first], ['PACK_SHA256_MISMATCH', 3, undefined]]);
  assert.is(findings[0]!.message, `push 3, pack #1, blob ${first} (chunk 1 of 2): the 23 bytes Walrus serves have blob id ${fakeBlobId(tampered)}`);
  assert.match(findings[1]!.message, new RegExp(`^push 3, pack #1: the bytes Walrus serves have sha256 [0-9a-f]{64}, the chain records ${packs[1]!.sha256}$`));
  assert.ok(second);
});

CheckPack('a truncated chunk also shows as a size difference', async () => {
  const { packs, blobs } = history();
  const id = packs[0]!.chunks[0]!;
  blobs.set(id, chunk('first'));
  const codes = (await checkPack(mapBlobStore(blobs), fakeBlobId, packs[0]!, { index: 0, seq: 1 })).findings.map((f) => f.code);
  assert.equal(codes, ['BLOB_ID_MISMATCH', 'PACK_SIZE_MISMATCH', 'PACK_SHA256_MISMATCH']);
});

CheckPack('a missing or expired blob is a named finding, and no bytes are returned', async () => {
  const { packs, blobs } = history();
  const id = packs[0]!.chunks[0]!;
  blobs.delete(id);
  const check = await checkPack(mapBlobStore(blobs), fakeBlobId, packs[0]!, { index: 0, seq: 1 }, { keepBytes: true });
  assert.is(check.bytes, null);
  assert.equal(check.findings, [{
    code: 'BLOB_UNAVAILABLE',
    seq: 1,
    blobId: id,
    message: `push 1, pack #0, blob ${id}: Walrus blob ${id} is not available: it was never stored or its storage epochs have ended`,
  }]);
});

CheckPack('a transient store fault is thrown, not reported as a finding', async () => {
  const { packs } = history();
  const store = { ...mapBlobStore(new Map()), read: async () => { throw Object.assign(new Error('503'), { code: 'WALRUS_UNAVAILABLE', retryable: true }); } };
  try {
    await checkPack(store, fakeBlobId, packs[0]!, { index: 0, seq: 1 });
    assert.unreachable();
  } catch (error) {
    assert.is((error as { code: string }).code, 'WALRUS_UNAVAILABLE');
  }
});

CheckPack('a pack with a sealed key must be stored encrypted: plaintext is a finding anyone can make', async () => {
  const { packs, blobs } = history();
  const plaintext = { ...packs[0]!, sealedKey: 'ab' };
  const leaked = await checkPack(mapBlobStore(blobs), fakeBlobId, plaintext, { index: 0, seq: 1 });
  assert.equal(leaked.findings.map((f) => f.code), ['PACK_NOT_ENCRYPTED']);
  assert.match(leaked.findings[0]!.message, /^push 1, pack #0, blob .*: the pack of a private repository is not stored encrypted/);
  const encryptor = new PackEncryptor(newDataKey(), newPackIdentity(`0x${'1'.repeat(64)}`));
  const stored = Buffer.concat([encryptor.header, encryptor.frame(new Uint8Array(5), true)]);
  const blobId = fakeBlobId(stored);
  const sealed = { chunks: [blobId], size: stored.length, sha256: createHash('sha256').update(stored).digest('hex'), sealedKey: 'ab' };
  assert.equal((await checkPack(mapBlobStore(new Map([[blobId, stored]])), fakeBlobId, sealed, { index: 0, seq: 1 })).findings, []);
});

CheckPack.run();
