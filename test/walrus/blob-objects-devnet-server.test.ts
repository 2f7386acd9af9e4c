import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { discoverDevnet } from '../../src/config/devnet-discovery.ts';
import { WAL_FAUCET_PATH } from '../../src/core/devnet-protocol.ts';
import { startDevnetServer } from '../../src/devnet/server.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import { SuiBlobObjects } from '../../src/walrus/blob-objects.ts';
import { BlobNotFoundError } from '../../src/walrus/errors.ts';
import { releaseBlobIdWorkers } from '../../src/walrus-protocol/blob-id.ts';
import { rejected } from '../support/rejected.ts';

const server = suite('Walrus Blob objects through `git walrus devnet` (gRPC, the faucet\'s WAL)');

server('a user funded by the faucets extends and deletes their Blob objects over SuiGrpcClient', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'blob-objects-server-'));
  const devnet = await startDevnetServer({ dir });
  try {
    const info = await discoverDevnet(devnet.url);
    const client = new SuiGrpcClient({ baseUrl: info.suiGrpcUrl!, network: 'localnet' });
    const user = Ed25519Keypair.generate();
    const address = user.toSuiAddress();
    await requestSuiFromFaucetV2({ host: info.faucetUrl!, recipient: address });
    const wal = await fetch(new URL(WAL_FAUCET_PATH, info.faucetUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient: address } }) });
    assert.is(wal.status, 200, await wal.clone().text());
    assert.is(((await wal.json()) as { status: string }).status, 'Success');

    const store = (permanent: boolean) => new HttpBlobStore({ publisherUrl: info.walrusUrl, aggregatorUrl: info.walrusUrl, storageNodeUrl: info.walrusUrl, numShards: info.numShards, epochs: 2, sendObjectTo: async () => address, permanent });
    const objects = new SuiBlobObjects({ client, signer: async () => user, systemObjectId: info.walrusSystemObjectId! });
    const kept = await store(true).write(new TextEncoder().encode('kept and extended'));
    const [owned] = (await objects.owned([kept.blobId])).get(kept.blobId)!;
    await objects.extend([{ objectId: owned.objectId, epochs: 10 }]);
    const lifetimes = (await store(true).lifetimes([kept.blobId]))!;
    assert.is(lifetimes.endEpochs.get(kept.blobId), lifetimes.epoch + 12);

    const dropped = await store(false).write(new TextEncoder().encode('deleted'));
    const [deletable] = (await objects.owned([dropped.blobId])).get(dropped.blobId)!;
    await objects.delete([deletable.objectId]);
    await rejected(store(false).read(dropped.blobId), (error) => error instanceof BlobNotFoundError);
  } finally {
    await devnet.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

server.after(() => releaseBlobIdWorkers());

server.run();
