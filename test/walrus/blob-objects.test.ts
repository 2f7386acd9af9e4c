import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { ChainEngine } from '../../src/devnet/chain/engine.ts';
import { DevnetCoreClient } from '../../src/devnet/chain/core-client.ts';
import { extensionCost, WAL_FAUCET_AMOUNT, WAL_TYPE } from '../../src/devnet/chain/walrus-system-package.ts';
import { WALRUS_SYSTEM_OBJECT_ID } from '../../src/devnet/chain/fixed-ids.ts';
import { DEVNET_PUBLISHER_ADDRESS, engineWalrusChain } from '../../src/devnet/walrus/chain-blobs.ts';
import { createWalrusService, serviceFetch } from '../../src/devnet/walrus/service.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { BlobObjectTransactionError, NoWalError, SuiBlobObjects } from '../../src/walrus/blob-objects.ts';
import { BlobNotFoundError } from '../../src/walrus/errors.ts';
import { releaseBlobIdWorkers } from '../../src/walrus-protocol/blob-id.ts';
import { rejected } from '../support/rejected.ts';

const BASE = 'http://walrus.devnet.invalid';
const EPOCH_MS = 1000;

/** A devnet chain with the devnet Walrus beside it (its epoch clock moved by the test), and a funded user. */
async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'blob-objects-test-'));
  const clock = { now: 1_000_000 };
  const engine = await ChainEngine.open(join(dir, 'chain'));
  const service = createWalrusService(join(dir, 'walrus'), { epochDurationMs: EPOCH_MS, now: () => clock.now, chain: engineWalrusChain(engine) });
  await engine.attachWalrus(await service.epochClock());
  const client = new DevnetCoreClient(engine);
  const user = Ed25519Keypair.generate();
  await engine.faucet(user.toSuiAddress());
  const store = (options: { sendObjectTo?: string; permanent?: boolean } = {}) =>
    new HttpBlobStore({ publisherUrl: BASE, aggregatorUrl: BASE, storageNodeUrl: BASE, numShards: service.numShards, fetch: serviceFetch(service, BASE), epochs: 3, ...options });
  const objects = (key: Ed25519Keypair) => new SuiBlobObjects({ client, signer: async () => key, systemObjectId: WALRUS_SYSTEM_OBJECT_ID });
  const advance = (epochs: number) => { clock.now += epochs * EPOCH_MS; };
  return { dir, engine, client, user, store, objects, advance, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const blobObjects = suite('Walrus Blob objects on the devnet chain');

blobObjects('a store sent to the user leaves a Blob object the user extends in WAL; the nodes then report the new end', async () => {
  const t = await setup();
  try {
    const store = t.store({ sendObjectTo: t.user.toSuiAddress() });
    const { blobId } = await store.write(new TextEncoder().encode('a pack chunk'));
    const mine = t.objects(t.user);
    const [owned] = (await mine.owned([blobId])).get(blobId)!;
    assert.equal([owned.endEpoch, owned.deletable], [4, false]);

    await rejected(mine.extend([{ objectId: owned.objectId, epochs: 5 }]), (error: unknown) => error instanceof NoWalError);
    await t.engine.faucetWal(t.user.toSuiAddress());
    await mine.extend([{ objectId: owned.objectId, epochs: 5 }]);
    assert.is((await mine.owned([blobId])).get(blobId)![0].endEpoch, 9);
    assert.is(t.engine.balance(t.user.toSuiAddress(), WAL_TYPE), WAL_FAUCET_AMOUNT - extensionCost(BigInt(owned.storageSize), 5));
    assert.is((await store.lifetimes([blobId]))!.endEpochs.get(blobId), 9);

    // Past its first end, the blob is still served: the extension holds it.
    t.advance(5);
    assert.equal(new TextDecoder().decode(await store.read(blobId)), 'a pack chunk');
    t.advance(4);
    await rejected(store.read(blobId), (error: unknown) => error instanceof BlobNotFoundError);
    assert.is((await store.lifetimes([blobId]))!.endEpochs.get(blobId), null);
    // An expired Blob object cannot be extended (walrus::blob EResourceBounds).
    await rejected(mine.extend([{ objectId: owned.objectId, epochs: 1 }]), (error: unknown) => error instanceof BlobObjectTransactionError && /blob/.test(error.message));
  } finally { t.remove(); }
});

blobObjects('the WAL faucet pays from its richest WAL coin: after funding its own address it still gives every requester its amount', async () => {
  const t = await setup();
  try {
    const faucet = await t.engine.faucetAddress();
    for (let i = 0; i < 5; i++) await t.engine.faucetWal(faucet);
    for (let i = 0; i < 3; i++) {
      const address = Ed25519Keypair.generate().toSuiAddress();
      await t.engine.faucetWal(address);
      assert.is(t.engine.balance(address, WAL_TYPE), WAL_FAUCET_AMOUNT, `request ${i}`);
    }
  } finally { t.remove(); }
});

blobObjects('only the owner extends a Blob object; the publisher keeps the ones not sent to anyone; more than 53 epochs ahead aborts', async () => {
  const t = await setup();
  try {
    const { blobId } = await t.store().write(new TextEncoder().encode('kept by the publisher'));
    assert.equal((await t.objects(t.user).owned([blobId])).get(blobId), undefined);
    const [held] = t.engine.ownedObjects(DEVNET_PUBLISHER_ADDRESS).filter((o) => o.type.endsWith('::blob::Blob'));
    await t.engine.faucetWal(t.user.toSuiAddress());
    await rejected(t.objects(t.user).extend([{ objectId: held.id, epochs: 1 }]), (error: unknown) =>
      error instanceof BlobObjectTransactionError && /is owned by account address 0x[0-9a-f]+, but given owner\/signer address is/.test(error.message));

    const own = await t.store({ sendObjectTo: t.user.toSuiAddress() }).write(new TextEncoder().encode('mine'));
    const [owned] = (await t.objects(t.user).owned([own.blobId])).get(own.blobId)!;
    await rejected(t.objects(t.user).extend([{ objectId: owned.objectId, epochs: 51 }]), (error: unknown) =>
      error instanceof BlobObjectTransactionError && /system_state_inner/.test(error.message));
  } finally { t.remove(); }
});

blobObjects('a deletable Blob object is deleted by its owner and the blob is gone; a permanent one refuses (EBlobNotDeletable)', async () => {
  const t = await setup();
  try {
    const deletable = t.store({ sendObjectTo: t.user.toSuiAddress(), permanent: false });
    const { blobId } = await deletable.write(new TextEncoder().encode('replaced by a gc'));
    const [owned] = (await t.objects(t.user).owned([blobId])).get(blobId)!;
    assert.is(owned.deletable, true);
    await t.objects(t.user).delete([owned.objectId]);
    assert.equal((await t.objects(t.user).owned([blobId])).get(blobId), undefined);
    await rejected(deletable.read(blobId), (error: unknown) => error instanceof BlobNotFoundError);
    assert.is((await deletable.lifetimes([blobId]))!.endEpochs.get(blobId), null);
    // Its storage resource came back to the owner.
    assert.ok(t.engine.ownedObjects(t.user.toSuiAddress()).some((o) => o.type.endsWith('::storage_resource::Storage')));

    const permanent = await t.store({ sendObjectTo: t.user.toSuiAddress() }).write(new TextEncoder().encode('permanent'));
    const [kept] = (await t.objects(t.user).owned([permanent.blobId])).get(permanent.blobId)!;
    await rejected(t.objects(t.user).delete([kept.objectId]), (error: unknown) => error instanceof BlobObjectTransactionError && /blob/.test(error.message) && /8/.test(error.message));
  } finally { t.remove(); }
});

blobObjects.after(() => releaseBlobIdWorkers());

blobObjects.run();
