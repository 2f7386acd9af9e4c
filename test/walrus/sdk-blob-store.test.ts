import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { BlobNotCertifiedError, BlobBlockedError as SdkBlobBlockedError, NoBlobStatusReceivedError, NotEnoughBlobConfirmationsError, WalrusClient } from '@mysten/walrus';
import { SdkBlobStore, mapSdkError } from '../../src/walrus/sdk-blob-store.ts';
import type { SdkBlobStatus, WalrusSdkClient } from '../../src/walrus/sdk-blob-store.ts';
import { blobIdWork, computeBlobId } from '../../src/walrus-protocol/blob-id.ts';
import { secondarySlivers } from '../support/encoded-slivers.ts';
import { BlobBlockedError, BlobNotFoundError, ShardCountMismatchError, BlobTooLargeError, WalrusRequestError, WalrusUnavailableError } from '../../src/walrus/errors.ts';

/**
 * The SDK talks to Sui and ~1000 storage nodes, which cannot exist here: these tests drive SdkBlobStore through
 * its seam (the two WalrusClient methods it calls) with a fake that keeps blobs in a map under their real ids.
 */
const signer = Ed25519Keypair.generate();
const fastRetry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };

// The real client satisfies the seam: if WalrusClient's signatures drift, this stops type-checking.
const realClientFits: (client: WalrusClient) => WalrusSdkClient = (client) => client;
void realClientFits;

/**
 * Recorded shapes of the SDK's answers on testnet (storage nodes' `/v1/blobs/{id}/status` as `getVerifiedBlobStatus`
 * tags them, and the part of `systemState()` the store reads), keyed by blob id in the fake below.
 */
const SYSTEM_STATE = { committee: { epoch: 30, n_shards: 1000, members: [] as unknown[] }, storage_price_per_unit_size: 100_000, write_price_per_unit_size: 20_000 };
const PERMANENT = { type: 'permanent' as const, endEpoch: 37, isCertified: true, initialCertifiedEpoch: 12, deletableCounts: { count_deletable_total: 0, count_deletable_certified: 0 }, statusEvent: { txDigest: '5JxYH3x7gLAVpzcqtn7Fn4ZbqCKXC5wXjm9uAjQWLW5c', eventSeq: '0' } };
const DELETABLE = { type: 'deletable' as const, initialCertifiedEpoch: 29, deletableCounts: { count_deletable_total: 1, count_deletable_certified: 1 } };
const INVALID = { type: 'invalid' as const, event: { txDigest: '9vWkXN4h3KqZ7R6dLr6EZbqWn4y3oQfDq4pQHn3jvE2a', eventSeq: '1' } };
const statuses = new Map<string, SdkBlobStatus>();

function fakeClient(numShards: number, overrides: Partial<WalrusSdkClient> = {}) {
  const blobs = new Map<string, Uint8Array>();
  const calls: { method: string; options: any }[] = [];
  const client: WalrusSdkClient = {
    async writeBlob(options) {
      calls.push({ method: 'writeBlob', options });
      const blobId = await computeBlobId(options.blob, numShards);
      blobs.set(blobId, options.blob.slice());
      return { blobId, blobObject: { storage: { end_epoch: 10 + options.epochs } } };
    },
    async readBlob(options) {
      calls.push({ method: 'readBlob', options });
      const bytes = blobs.get(options.blobId);
      if (bytes === undefined) throw new BlobNotCertifiedError(`The specified blob ${options.blobId} is nonexistent.`);
      return bytes;
    },
    async getBlobMetadata(options) {
      calls.push({ method: 'getBlobMetadata', options });
      const bytes = blobs.get(options.blobId);
      if (bytes === undefined) throw new BlobNotCertifiedError(`The specified blob ${options.blobId} is not certified.`);
      return { metadata: { V1: { unencoded_length: String(bytes.length) } } };
    },
    async getSecondarySliver(options) {
      calls.push({ method: 'getSecondarySliver', options });
      return secondarySlivers(blobs.get(options.blobId)!, numShards)(options.index);
    },
    async getVerifiedBlobStatus(options) {
      calls.push({ method: 'getVerifiedBlobStatus', options });
      const status = statuses.get(options.blobId);
      // What the SDK throws when a quorum of storage nodes answers 404 for the blob.
      if (status === undefined) throw new BlobNotCertifiedError('The blob does not exist.');
      return status;
    },
    async systemState() {
      calls.push({ method: 'systemState', options: {} });
      return { ...SYSTEM_STATE, committee: { ...SYSTEM_STATE.committee, n_shards: numShards } };
    },
    ...overrides,
  };
  return { client, calls, blobs };
}

const store = suite('SdkBlobStore');

store('writes with the signer, permanent and the configured epochs; reads back', async () => {
  const { client, calls } = fakeClient(50);
  const s = new SdkBlobStore({ client, signer, numShards: 50, epochs: 12 });
  const bytes = new TextEncoder().encode('pack chunk');
  const stored = await s.write(bytes);
  assert.equal(stored, { blobId: await computeBlobId(bytes, 50), size: bytes.length, endEpoch: 22 });
  const options = calls.find((call) => call.method === 'writeBlob')!.options;
  assert.equal({ deletable: options.deletable, epochs: options.epochs, signer: options.signer === signer }, { deletable: false, epochs: 12, signer: true });
  assert.equal(await s.read(stored.blobId), bytes);
});

store('a signer loader runs at the first write only, once; reads never call it', async () => {
  const { client, calls } = fakeClient(50);
  let loads = 0;
  const s = new SdkBlobStore({ client, signer: async () => { loads++; return signer; }, numShards: 50 });
  const first = new TextEncoder().encode('first chunk');
  const stored = await s.write(first);
  assert.equal(await s.read(stored.blobId), first);
  await s.write(new TextEncoder().encode('second chunk'));
  assert.is(loads, 1);
  assert.ok(calls.filter((call) => call.method === 'writeBlob').every((call) => call.options.signer === signer));
  const reader = new SdkBlobStore({ client, signer: async () => { loads++; return signer; }, numShards: 50 });
  assert.equal(await reader.read(stored.blobId), first);
  assert.is(loads, 1);
});

store('reads a blob from its source columns, without the SDK\'s decoding read; a column that fails or does not fit falls back to it', async () => {
  const { client, calls } = fakeClient(10);
  const s = new SdkBlobStore({ client, signer, numShards: 10 });
  const bytes = new TextEncoder().encode('a pack chunk of a few rows of symbols '.repeat(9));
  const { blobId } = await s.write(bytes);
  assert.equal(await s.read(blobId), bytes);
  assert.equal(calls.filter((call) => call.method === 'getSecondarySliver').map((call) => call.options.index), [0, 1, 2, 3, 4, 5, 6]);
  assert.is(calls.filter((call) => call.method === 'readBlob').length, 0);
  const down = fakeClient(10, { getSecondarySliver: async () => { throw new TypeError('fetch failed'); } });
  const fallback = new SdkBlobStore({ client: down.client, signer, numShards: 10 });
  await fallback.write(bytes);
  assert.equal(await fallback.read(blobId), bytes);
  assert.is(down.calls.filter((call) => call.method === 'readBlob').length, 1);
});

store('bytes from the columns are proven by their blob id unless the caller checks them: a flipped byte falls back to the SDK\'s read', async () => {
  const bytes = new TextEncoder().encode('one node serves a flipped byte '.repeat(9));
  const tampered = fakeClient(10, {
    async getSecondarySliver(options) {
      const sliver = secondarySlivers(bytes, 10)(options.index).slice();
      if (options.index === 2) sliver[3]! ^= 0x40;
      return sliver;
    },
  });
  const s = new SdkBlobStore({ client: tampered.client, signer, numShards: 10 });
  const { blobId } = await s.write(bytes);
  assert.equal(await s.read(blobId), bytes, 'the SDK\'s read, whose id check the fake stands for, answers');
  assert.is(tampered.calls.filter((call) => call.method === 'readBlob').length, 1);
  const unchecked = await s.read(blobId, { contentChecked: true });
  assert.not.equal(unchecked, bytes, 'a caller that checks a digest gets the bytes as served, and refuses them itself');
  assert.is(tampered.calls.filter((call) => call.method === 'readBlob').length, 1);
});

store('refuses to write to a network of another shard count than the settings say, before anything is paid', async () => {
  const { client, calls } = fakeClient(10); // the SDK's network has 10 shards, the store believes 50
  const s = new SdkBlobStore({ client, signer, numShards: 50, retry: fastRetry });
  const refused = await s.write(new Uint8Array(100)).then(() => null, (e: unknown) => e);
  assert.instance(refused, ShardCountMismatchError);
  assert.is((refused as ShardCountMismatchError).message, 'the Walrus network has 10 shards, but the settings say 50; nothing was stored (check the network settings)');
  assert.is(calls.filter((call) => call.method === 'writeBlob').length, 0);
});

store('the blob id of a write is the SDK\'s own, computed once: the blob-id worker does not compute it again', async () => {
  const { client } = fakeClient(10);
  const s = new SdkBlobStore({ client, signer, numShards: 10 });
  const bytes = new Uint8Array(5000).map((_, i) => i % 251);
  const before = blobIdWork.count;
  const { blobId } = await s.write(bytes);
  assert.is(blobIdWork.count - before, 1, 'one id computed: the one the fake SDK computes for itself');
  assert.is(blobId, await computeBlobId(bytes, 10));
});

store('maps SDK errors: not certified = not found, blocked; retryable faults are retried from the last step', async () => {
  const { client } = fakeClient(50);
  const s = new SdkBlobStore({ client, signer, numShards: 50, retry: fastRetry });
  const id = await computeBlobId(new Uint8Array(3), 50);
  await s.read(id).then(() => assert.unreachable(), (e) => assert.instance(e, BlobNotFoundError));
  let attempts = 0;
  const resumedFrom: (string | undefined)[] = [];
  const flaky = fakeClient(50, {
    async writeBlob(options) {
      attempts++;
      resumedFrom.push(options.resume?.step);
      if (attempts === 1) await options.onStep?.({ step: 'registered', blobId: 'x', blobObjectId: '0x1', txDigest: 'd' });
      if (attempts < 3) throw new NotEnoughBlobConfirmationsError('too few nodes answered');
      return { blobId: await computeBlobId(options.blob, 50), blobObject: { storage: { end_epoch: 5 } } };
    },
  });
  const retried = new SdkBlobStore({ client: flaky.client, signer, numShards: 50, retry: fastRetry });
  assert.is((await retried.write(new Uint8Array(7))).endEpoch, 5);
  assert.is(attempts, 3);
  assert.equal(resumedFrom, [undefined, 'registered', 'registered'], 'retries resume after the paid registration');
  // A quorum of nodes answering 451 for the metadata, where the SDK's read asks first.
  const blocked = fakeClient(50, { getBlobMetadata: async () => { throw new SdkBlobBlockedError('blocked'); } });
  await new SdkBlobStore({ client: blocked.client, signer, numShards: 50 }).read(id).then(() => assert.unreachable(), (e) => assert.instance(e, BlobBlockedError));
});

store('checks the size limit before calling the SDK', async () => {
  const { client, calls } = fakeClient(50);
  await new SdkBlobStore({ client, signer, numShards: 50, maxBlobSize: 10 }).write(new Uint8Array(11)).then(() => assert.unreachable(), (e) => assert.instance(e, BlobTooLargeError));
  assert.is(calls.length, 0);
});

store('lifetimes: verified statuses of the storage nodes and the system epoch; gone, invalid and deletable-only blobs told apart', async () => {
  const ids = await Promise.all(['permanent', 'deletable', 'invalid', 'gone'].map((text) => computeBlobId(new TextEncoder().encode(text), 50)));
  const [permanent, deletable, invalid, gone] = ids;
  statuses.set(permanent, PERMANENT);
  statuses.set(deletable, DELETABLE);
  statuses.set(invalid, INVALID);
  const { client, calls } = fakeClient(50);
  const s = new SdkBlobStore({ client, signer: async () => { throw new Error('reads need no key'); }, numShards: 50, retry: fastRetry });
  const answer = await s.lifetimes([permanent, deletable, invalid, gone, permanent]);
  assert.is(answer.epoch, 30);
  assert.equal([...answer.endEpochs], [[permanent, 37], [deletable, undefined], [invalid, null], [gone, null]]);
  // One status per distinct blob, one system read.
  assert.is(calls.filter((c) => c.method === 'getVerifiedBlobStatus').length, 4);
  assert.is(calls.filter((c) => c.method === 'systemState').length, 1);
});

store('lifetimes: a storage-node outage is retried, then reported as Walrus being unavailable', async () => {
  const blobId = await computeBlobId(new TextEncoder().encode('permanent'), 50);
  statuses.set(blobId, PERMANENT);
  let failures = 0;
  const { client } = fakeClient(50, {
    async getVerifiedBlobStatus() {
      failures++;
      throw new NoBlobStatusReceivedError('Not enough statuses were retrieved to achieve quorum.');
    },
  });
  const s = new SdkBlobStore({ client, signer, numShards: 50, retry: fastRetry });
  try {
    await s.lifetimes([blobId]);
    assert.unreachable('an outage was taken for an answer');
  } catch (error) {
    assert.instance(error, WalrusUnavailableError);
  }
  assert.is(failures, fastRetry.attempts);
});

store.run();

const map = suite('mapSdkError');

map('keeps the retryable distinction of the SDK and the abort reason of the caller', () => {
  assert.instance(mapSdkError(new NotEnoughBlobConfirmationsError('x'), undefined), WalrusUnavailableError);
  assert.instance(mapSdkError(new TypeError('fetch failed'), 'id'), WalrusUnavailableError);
  assert.instance(mapSdkError(new Error('insufficient WAL balance'), undefined), WalrusRequestError);
  const controller = new AbortController();
  controller.abort(new Error('user pressed ^C'));
  assert.is((mapSdkError(new Error('aborted'), 'id', controller.signal) as Error).message, 'user pressed ^C');
});

map.run();
