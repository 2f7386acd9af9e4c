import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { startDevnetServer, type DevnetServer } from '../../../src/devnet/server.ts';
import { WALRUS_STAKING_OBJECT_ID, WALRUS_SYSTEM_OBJECT_ID } from '../../../src/devnet/chain/fixed-ids.ts';
import { SdkBlobStore } from '../../../src/walrus/sdk-blob-store.ts';
import { WAL_FAUCET_PATH } from '../../../src/core/devnet-protocol.ts';
import { releaseBlobIdWorkers } from '../../../src/walrus-protocol/blob-id.ts';

const nodes = suite('emulated Walrus storage nodes (the SDK\'s direct mode)');

async function setup(count: number): Promise<{ server: DevnetServer; store: () => SdkBlobStore; remove: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'storage-nodes-test-'));
  const server = await startDevnetServer({ dir, storageNodes: count });
  const user = Ed25519Keypair.generate();
  await requestSuiFromFaucetV2({ host: server.faucetUrl, recipient: user.toSuiAddress() });
  const wal = await fetch(new URL(WAL_FAUCET_PATH, server.faucetUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient: user.toSuiAddress() } }) });
  assert.ok(wal.ok);
  const suiClient = new SuiGrpcClient({ baseUrl: server.suiGrpcUrl, network: 'devnet' });
  const store = () => SdkBlobStore.forDevnet({
    suiClient, signer: user, numShards: 50, epochs: 3, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    committee: { systemObjectId: WALRUS_SYSTEM_OBJECT_ID, stakingObjectId: WALRUS_STAKING_OBJECT_ID },
  });
  return { server, store, remove: async () => { await server.close(); rmSync(dir, { recursive: true, force: true }); } };
}

nodes.after(() => releaseBlobIdWorkers());

nodes('a blob written through the SDK to the nodes is certified on chain and read back from them', async () => {
  const t = await setup(4);
  try {
    const bytes = new TextEncoder().encode('a pack written sliver by sliver'.repeat(100));
    const written = await t.store().write(bytes);
    assert.is(written.size, bytes.length);
    const read = await t.store().read(written.blobId);
    assert.equal(Buffer.from(read).toString(), Buffer.from(bytes).toString());
  } finally {
    await t.remove();
  }
});

nodes('with one node of four down the write still reaches a quorum; with two down it fails and says why', async () => {
  const t = await setup(4);
  try {
    t.server.storageNodes!.setDown(1, true);
    const bytes = new TextEncoder().encode('one node is down');
    const written = await t.store().write(bytes);
    assert.equal(Buffer.from(await t.store().read(written.blobId)).toString(), 'one node is down');
    t.server.storageNodes!.setDown(2, true);
    const error = await t.store().write(new TextEncoder().encode('two nodes are down')).then(() => null, (caught: unknown) => caught as Error);
    assert.ok(error, 'the write failed');
    assert.match(error!.message, /too many failures|confirmations/i);
  } finally {
    await t.remove();
  }
});

nodes.run();
