import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { silentLog } from '../../src/core/log.ts';
import { reclaimReplacedPacks } from '../../src/remote/reclaim.ts';
import { BlobNotFoundError } from '../../src/walrus/errors.ts';
import { releaseBlobIdWorkers } from '../../src/walrus-protocol/blob-id.ts';
import { rejected } from '../support/rejected.ts';
import { walrusOnDevnetChain as setup } from '../support/walrus-chain.ts';

const reclaim = suite('deleting the packs a gc replaced (devnet Walrus and chain)');

reclaim('deletes the user\'s deletable Blob objects below live_from; keeps live chunks, permanent blobs and others\' objects', async () => {
  const t = await setup();
  try {
    const deletable = t.storeOf(t.user.toSuiAddress(), false);
    await t.pushPack('refs/heads/a', ['old pack a', 'a chunk the live pack shares'], deletable);
    await t.pushPack('refs/heads/b', ['old pack b'], deletable);
    await t.pushPack('refs/heads/c', ['old pack c, permanent']);
    await t.pushPack('refs/heads/d', ['old pack d, the publisher\'s'], t.storeOf());
    await t.pushPack('refs/heads/gc', ['the consolidated pack', 'a chunk the live pack shares'], deletable);
    // The gc's repack: live_from moves to the consolidated pack.
    t.ledger.repositories.get(t.id)!.live_from = 4n;
    const [a, b, c, d, live] = t.ledger.packs(t.id).map((p) => p.chunks);
    const before = await t.blobObjects.owned([a[0], b[0]]);

    const deps = { ledger: t.ledger, blobStore: t.blobStore, blobObjects: t.blobObjects, log: silentLog };
    const result = await reclaimReplacedPacks(deps, t.id);
    assert.equal([result.deleted, result.permanent, result.notOwned], [2, 1, 1]);
    assert.is(result.bytes, before.get(a[0])![0].storageSize + before.get(b[0])![0].storageSize);
    assert.type(result.digest, 'string');

    // Deleted blobs answer as Walrus does; everything else is still served.
    for (const gone of [a[0], b[0]]) {
      await rejected(t.blobStore.read(gone), (error) => error instanceof BlobNotFoundError);
      assert.is((await t.blobStore.lifetimes([gone]))!.endEpochs.get(gone), null);
    }
    for (const kept of [c[0], d[0], ...live]) assert.ok((await t.blobStore.read(kept)).byteLength > 0);
    assert.is(live[1], a[1], 'the shared chunk is one blob');

    // Nothing left to delete the second time.
    assert.equal([(await reclaimReplacedPacks(deps, t.id)).deleted], [0]);
  } finally { t.remove(); }
});

reclaim('nothing below live_from: nothing to do, no transaction', async () => {
  const t = await setup();
  try {
    await t.pushPack('refs/heads/a', ['only pack'], t.storeOf(t.user.toSuiAddress(), false));
    const result = await reclaimReplacedPacks({ ledger: t.ledger, blobStore: t.blobStore, blobObjects: t.blobObjects, log: silentLog }, t.id);
    assert.equal(result, { deleted: 0, bytes: 0, permanent: 0, notOwned: 0, digest: null });
  } finally { t.remove(); }
});

reclaim.after(() => releaseBlobIdWorkers());

reclaim.run();
