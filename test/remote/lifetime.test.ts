import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLog } from '../../src/core/log.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { extendLivePacks, expiryWarnings, LifetimesUnknownError, liveLifetimes, NotBlobOwnerError, PackExpiredError } from '../../src/remote/lifetime.ts';
import { rejected } from '../support/rejected.ts';
import { walrusOnDevnetChain as setup } from '../support/walrus-chain.ts';
import { verifyRepository } from '../../src/remote/history/verify-repository.ts';
import { computeBlobId, releaseBlobIdWorkers } from '../../src/walrus-protocol/blob-id.ts';

const BASE = 'http://walrus.devnet.invalid';

const lifetime = suite('blob lifetime (devnet Walrus, epoch clock moved forward)');

lifetime('live packs are ok, then expiring within the window (with a warning naming them), then extended on chain, then expired', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/a', ['pack a, chunk 1', 'pack a, chunk 2']);
    let lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.is(lifetimes.epoch, 1);
    assert.equal(lifetimes.packs.map((p) => [p.index, p.endEpoch, p.verdict]), [[0, 4, 'ok']]);
    assert.equal(expiryWarnings(lifetimes, 'walrus'), []);

    t.advance(2);
    lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.equal(lifetimes.packs.map((p) => [p.endEpoch, p.verdict]), [[4, 'expiring']]);
    const [warning] = expiryWarnings(lifetimes, 'walrus');
    assert.match(warning, /^live pack #0 expires at Walrus epoch 4 \(now 3: 1 epoch\(s\) left, blob \S+\); renew it with 'git walrus extend walrus'$/);

    const deps = { ledger: t.ledger, blobStore: t.blobStore, blobObjects: t.blobObjects, log: silentLog };
    const extended = await extendLivePacks(deps, t.id, 10);
    assert.equal([extended.extended, extended.kept, extended.restored, extended.notOwned, extended.endEpoch], [2, 0, 0, [], 13]);
    assert.type(extended.digest, 'string');
    // The Blob objects themselves were extended: no new ones, no bytes moved.
    const chunks = t.ledger.packs(t.id)[0].chunks;
    const owned = await t.blobObjects.owned(chunks);
    assert.equal(chunks.map((c) => owned.get(c)!.map((o) => o.endEpoch)), [[13], [13]]);
    lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.equal(lifetimes.packs.map((p) => [p.endEpoch, p.verdict]), [[13, 'ok']]);
    // Asking again for no more than is stored extends nothing.
    const again = await extendLivePacks(deps, t.id, 5);
    assert.equal([again.extended, again.kept, again.digest], [0, 2, null]);

    t.advance(10);
    lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!;
    assert.equal(lifetimes.packs.map((p) => [p.endEpoch, p.verdict]), [[null, 'expired']]);
    try {
      await extendLivePacks(deps, t.id, 10);
      assert.unreachable('an expired pack was renewed');
    } catch (error) {
      assert.instance(error, PackExpiredError);
      assert.match((error as Error).message, /^live pack #0 of 0x\S+ has expired \(blob \S+ is gone from Walrus\) and cannot be renewed/);
    }
  } finally { t.remove(); }
});

lifetime('a pack lives as long as its shortest-lived chunk; packs before live_from are not asked about', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/old', ['old pack']);
    t.advance(1);
    await t.pushPack('refs/heads/new', ['new pack, chunk 1']);
    const lifetimes = (await liveLifetimes(t.ledger, t.blobStore, t.id, 0))!;
    assert.equal(lifetimes.packs.map((p) => [p.index, p.endEpoch]), [[0, 4], [1, 5]]);
    t.ledger.repositories.get(t.id)!.live_from = 1n;
    assert.equal((await liveLifetimes(t.ledger, t.blobStore, t.id, 0))!.packs.map((p) => p.index), [1]);
  } finally { t.remove(); }
});

lifetime('verify fails on an expired live pack, naming it, and reports the expiring ones', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/a', ['pack a']);
    t.advance(2);
    const deps = { ledger: t.ledger, blobStore: t.blobStore, blobIdOf: (bytes: Uint8Array) => computeBlobId(bytes, t.blobStore.numShards), log: silentLog };
    const expiring = await verifyRepository(deps, t.id, { expiryWarningEpochs: 2 });
    assert.equal(expiring.findings.filter((f) => f.code === 'PACK_EXPIRED'), []);
    assert.equal(expiring.lifetimes!.packs.map((p) => p.verdict), ['expiring']);
    t.advance(1);
    const expired = await verifyRepository(deps, t.id, { expiryWarningEpochs: 2 });
    const [finding] = expired.findings.filter((f) => f.code === 'PACK_EXPIRED');
    assert.match(finding.message, /^push 1, pack #0: blob \S+ is gone from Walrus \(now epoch 4\); the pack is lost unless its objects are pushed again$/);
    assert.is(finding.blobId, t.ledger.packs(t.id)[0].chunks[0]);
  } finally { t.remove(); }
});

lifetime('a pack held by Blob objects of someone else is reported, not extended; --restore stores it again under the user\'s key', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/mine', ['my pack']);
    await t.pushPack('refs/heads/theirs', ['their pack, held by the publisher'], t.storeOf());
    const deps = { ledger: t.ledger, blobStore: t.blobStore, blobObjects: t.blobObjects, log: silentLog };
    const partial = await extendLivePacks(deps, t.id, 10);
    const theirs = t.ledger.packs(t.id)[1].chunks[0];
    assert.equal([partial.extended, partial.notOwned, partial.endEpoch], [1, [{ index: 1, blobId: theirs }], null]);
    const message = new NotBlobOwnerError(t.id, '0xabc', partial.notOwned).message;
    assert.match(message, /^1 blob\(s\) of live pack\(s\) #1 are held by Walrus Blob objects that 0xabc does not own .* 'git walrus extend --restore'/);

    const restored = await extendLivePacks(deps, t.id, 10, { restore: true });
    assert.equal([restored.extended, restored.kept, restored.restored, restored.notOwned, restored.endEpoch], [0, 1, 1, [], 11]);
    assert.equal((await t.blobObjects.owned([theirs])).get(theirs)!.map((o) => o.endEpoch), [11]);
    // From now on it is the user's to extend in place.
    const inPlace = await extendLivePacks(deps, t.id, 20);
    assert.equal([inPlace.extended, inPlace.restored, inPlace.endEpoch], [2, 0, 21]);
  } finally { t.remove(); }
});

lifetime('extending without known lifetimes is refused, unless every pack is stored again', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/a', ['pack a']);
    const blind = new HttpBlobStore({ publisherUrl: BASE, aggregatorUrl: BASE, numShards: 50, fetch: t.walrusFetch });
    await rejected(extendLivePacks({ ledger: t.ledger, blobStore: blind, log: silentLog }, t.id, 10), (error) => error instanceof LifetimesUnknownError);
    await t.pushPack('refs/heads/b', ['pack b, chunk 1', 'pack b, chunk 2']);
    const restored = await extendLivePacks({ ledger: t.ledger, blobStore: blind, log: silentLog }, t.id, 10, { restore: true });
    assert.equal([restored.extended, restored.kept, restored.restored, restored.notOwned, restored.endEpoch], [0, 0, 3, [], 11]);
    // Every chunk of every live pack now lives until the epoch asked for, as the storage nodes report it.
    assert.equal((await liveLifetimes(t.ledger, t.blobStore, t.id, 1))!.packs.map((p) => [p.index, p.endEpoch, p.verdict]), [[0, 11, 'ok'], [1, 11, 'ok']]);
  } finally { t.remove(); }
});

lifetime('a store that cannot ask storage nodes reports no lifetimes', async () => {
  const t = await setup();
  try {
    const blind = new HttpBlobStore({ aggregatorUrl: BASE, numShards: 50 });
    assert.is(await liveLifetimes(t.ledger, blind, t.id, 5), null);
  } finally { t.remove(); }
});

lifetime.after(() => releaseBlobIdWorkers());

lifetime.run();
