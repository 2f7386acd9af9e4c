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
import { CONNECTIONS_PER_STORAGE_NODE } from '../../../src/walrus/storage-node-fetch.ts';
import { createWalrusService } from '../../../src/devnet/walrus/service.ts';
import { WAL_FAUCET_PATH } from '../../../src/core/devnet-protocol.ts';
import { releaseBlobIdWorkers } from '../../../src/walrus-protocol/blob-id.ts';
import { StakingPoolLayout, storageNodeId } from '../../../src/devnet/chain/walrus-committee.ts';
import { UsageError } from '../../../src/core/errors.ts';
import { WalrusRequestError } from '../../../src/walrus/errors.ts';
import { alterSlivers } from '../../support/altered-slivers.ts';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

const nodes = suite('emulated Walrus storage nodes (the SDK\'s direct mode)');

async function setup(count: number, storageNodeAddresses?: string[], numShards = 50): Promise<{ dir: string; server: DevnetServer; suiClient: SuiGrpcClient; store: () => SdkBlobStore; remove: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'storage-nodes-test-'));
  // A devnet's shard count is fixed when its Walrus state is first created.
  await createWalrusService(join(dir, 'walrus'), { numShards }).epochClock();
  const server = await startDevnetServer({ dir, storageNodes: count, storageNodeAddresses });
  const user = Ed25519Keypair.generate();
  await requestSuiFromFaucetV2({ host: server.faucetUrl, recipient: user.toSuiAddress() });
  const wal = await fetch(new URL(WAL_FAUCET_PATH, server.faucetUrl), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient: user.toSuiAddress() } }) });
  assert.ok(wal.ok);
  const suiClient = new SuiGrpcClient({ baseUrl: server.suiGrpcUrl, network: 'devnet' });
  const store = () => SdkBlobStore.forDevnet({
    suiClient, signer: user, numShards, epochs: 3, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 },
    committee: { systemObjectId: WALRUS_SYSTEM_OBJECT_ID, stakingObjectId: WALRUS_STAKING_OBJECT_ID },
  });
  return { dir, server, suiClient, store, remove: async () => { await server.close(); rmSync(dir, { recursive: true, force: true }); } };
}

nodes.after(() => releaseBlobIdWorkers());

nodes('a blob written through the SDK to the nodes is certified on chain and read back from them', async () => {
  const t = await setup(11);
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

nodes('with one node of eleven down the write reaches a quorum and reads come back whichever node is asked first; with five down it fails and says why', async () => {
  const t = await setup(11);
  try {
    t.server.storageNodes!.setDown(1, true);
    const bytes = new TextEncoder().encode('one node is down');
    const written = await t.store().write(bytes);
    // The SDK asks a random node for the metadata first; when that is the down one it asks the others.
    for (let read = 0; read < 20; read++) assert.equal(Buffer.from(await t.store().read(written.blobId)).toString(), 'one node is down');
    for (const index of [2, 3, 4, 5]) t.server.storageNodes!.setDown(index, true);
    const error = await t.store().write(new TextEncoder().encode('five nodes are down')).then(() => null, (caught: unknown) => caught as Error);
    assert.ok(error, 'the write failed');
    assert.match(error!.message, /too many failures|confirmations/i);
  } finally {
    await t.remove();
  }
});

nodes('altered slivers: the source columns read back are refused by their blob id and the blob read from the other slivers; with every sliver altered the read is refused', async () => {
  const t = await setup(11);
  try {
    const bytes = new TextEncoder().encode('a pack whose slivers a node alters'.repeat(200));
    const { blobId } = await t.store().write(bytes);
    assert.is(alterSlivers(join(t.dir, 'walrus'), 'secondary', blobId), 50);
    assert.equal(Buffer.from(await t.store().read(blobId)).toString(), Buffer.from(bytes).toString());
    // A pack's chunk is read for a fetch that checks its sha256 (which these bytes fail: src/remote/fetch.ts).
    assert.is.not(Buffer.from(await t.store().read(blobId, { contentChecked: true })).toString(), Buffer.from(bytes).toString());
    assert.is(alterSlivers(join(t.dir, 'walrus'), 'primary', blobId), 50);
    const refused = await t.store().read(blobId).then(() => null, (caught: unknown) => caught as Error);
    assert.instance(refused, WalrusRequestError);
    assert.match(refused!.message, /encoded incorrectly/);
  } finally {
    await t.remove();
  }
});

/** A TCP relay on a port of its own to a target known only later (a node's port, chosen when it starts). */
async function relay(): Promise<{ address: string; connections: number; target?: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const [host, port] = state.target!.split(':');
    const upstream = connect({ host, port: Number(port) });
    state.connections++;
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => { client.destroy(); upstream.destroy(); });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state = {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`, connections: 0, target: undefined as string | undefined,
    close: () => new Promise<void>((resolve) => { for (const socket of sockets) socket.destroy(); server.close(() => resolve()); }),
  };
  return state;
}

nodes('nodes advertised at other addresses (proxies in front of them): the staking pools carry those, and the SDK writes through them', async () => {
  const relays = await Promise.all(Array.from({ length: 11 }, () => relay()));
  const t = await setup(11, relays.map((r) => r.address));
  try {
    assert.equal(t.server.storageNodes!.addresses, relays.map((r) => r.address));
    assert.is.not(t.server.storageNodes!.listening[0], relays[0].address);
    for (const [index, r] of relays.entries()) r.target = t.server.storageNodes!.listening[index];
    const { objects } = await t.suiClient.core.getObjects({ objectIds: relays.map((_, index) => storageNodeId(index)), include: { content: true } });
    assert.equal(objects.map((object) => (object instanceof Error ? object.message : StakingPoolLayout.parse(object.content!).node_info.network_address)), relays.map((r) => r.address));

    const bytes = new TextEncoder().encode('through the advertised addresses'.repeat(50));
    const written = await t.store().write(bytes);
    assert.equal(Buffer.from(await t.store().read(written.blobId)).toString(), Buffer.from(bytes).toString());
    for (const r of relays) assert.ok(r.connections > 0, `node at ${r.address} reached through its relay`);
  } finally {
    await t.remove();
    await Promise.all(relays.map((r) => r.close()));
  }
});

nodes('a node\'s requests share a few kept-alive connections: a blob of 200 shards (~36 slivers a node, sent at once) opens at most ten per node', async () => {
  const relays = await Promise.all(Array.from({ length: 11 }, () => relay()));
  const t = await setup(11, relays.map((r) => r.address), 200);
  try {
    for (const [index, r] of relays.entries()) r.target = t.server.storageNodes!.listening[index];
    const store = t.store();
    const opened = async (action: () => Promise<unknown>) => {
      const before = relays.map((r) => r.connections);
      await action();
      return relays.map((r, index) => r.connections - before[index]!);
    };
    let blobId = '';
    for (const text of ['the first pack', 'the second pack']) {
      const perNode = await opened(async () => { blobId = (await store.write(new TextEncoder().encode(text.repeat(400)))).blobId; });
      // Every node took its metadata and slivers (without the bound each opened one connection per sliver: ~36).
      for (const [index, count] of perNode.entries()) assert.ok(count <= CONNECTIONS_PER_STORAGE_NODE, `writing ${text}: node ${index} took ${count} connections`);
    }
    const perNode = await opened(async () => assert.equal(Buffer.from(await store.read(blobId)).toString(), 'the second pack'.repeat(400)));
    for (const [index, count] of perNode.entries()) assert.ok(count <= CONNECTIONS_PER_STORAGE_NODE, `reading: node ${index} took ${count} connections`);
  } finally {
    await t.remove();
    await Promise.all(relays.map((r) => r.close()));
  }
});

nodes('storage node addresses must be one per node, and a committee has at least eleven nodes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'storage-nodes-test-'));
  try {
    const error = await startDevnetServer({ dir, storageNodes: 11, storageNodeAddresses: ['127.0.0.1:9101'] }).then(() => null, (caught: unknown) => caught as Error);
    assert.instance(error, UsageError);
    assert.match(error!.message, /1 storage node address\(es\) given for 11 storage node\(s\)/);
    const few = await startDevnetServer({ dir, storageNodes: 4 }).then(() => null, (caught: unknown) => caught as Error);
    assert.instance(few, UsageError);
    assert.match(few!.message, /--storage-nodes must be 0 \(none\) or at least 11, got 4: with fewer, the Walrus SDK cannot read a blob/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

nodes.run();
