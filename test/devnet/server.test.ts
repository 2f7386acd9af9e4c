import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { startDevnetServer, type DevnetServer } from '../../src/devnet/server.ts';
import { openLocalNetwork } from '../../src/devnet/local-network.ts';
import { discoverDevnet } from '../../src/config/devnet-discovery.ts';
import { DEVNET_SEAL } from '../../src/core/devnet-protocol.ts';
import { WALRUS_SYSTEM_OBJECT_ID } from '../../src/devnet/chain/fixed-ids.ts';

interface Context { dir: string; server: DevnetServer }
const server = suite<Context>('startDevnetServer');

server.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'walrus-git-server-'));
  context.server = await startDevnetServer({ dir: context.dir, port: 0 });
});
server.after(async ({ server: s, dir }) => {
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

server('listens on 127.0.0.1 and describes itself for discovery', async ({ server: s }) => {
  assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const info = await discoverDevnet(s.url);
  assert.equal(info, { packageId: s.packageId, registryId: s.registryId, marketId: s.marketId, numShards: info.numShards, suiRpcUrl: s.suiRpcUrl, suiGrpcUrl: s.suiGrpcUrl, walrusUrl: s.walrusUrl, faucetUrl: s.faucetUrl, seal: DEVNET_SEAL, walrusSystemObjectId: WALRUS_SYSTEM_OBJECT_ID });
  assert.ok(info.numShards >= 4);
  // Our package is an object at version 1 (Seal's SDK checks it), on this front too.
  const { object } = await new SuiJsonRpcClient({ url: s.suiRpcUrl, network: 'localnet' }).core.getObject({ objectId: s.packageId });
  assert.equal([object.version, object.type], ['1', 'package']);
  assert.is((await fetch(`${s.url}/nothing-here`)).status, 404);
});

server('the faucet speaks the Sui faucet v2 API and funds through a real transaction', async ({ server: s }) => {
  const address = Ed25519Keypair.generate().toSuiAddress();
  const answer = await requestSuiFromFaucetV2({ host: s.faucetUrl, recipient: address });
  assert.is(answer.status, 'Success');
  const client = new SuiJsonRpcClient({ url: s.suiRpcUrl, network: 'localnet' });
  const { balance } = await client.core.getBalance({ owner: address });
  assert.is(balance.balance, String(answer.coins_sent![0].amount));
  const tx = await client.core.getTransaction({ digest: answer.coins_sent![0].transferTxDigest, include: { balanceChanges: true } });
  assert.equal(tx.Transaction!.balanceChanges!.find((c) => c.address === address)?.amount, balance.balance);
  const bad = await fetch(`${s.faucetUrl}/v2/gas`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"FixedAmountRequest":{}}' });
  assert.is(bad.status, 400);
});

server('JSON-RPC errors use the protocol\'s codes', async ({ server: s }) => {
  const call = async (method: string, params: unknown[]) =>
    (await (await fetch(s.suiRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) })).json()) as { id: number; error?: { code: number; message: string } };
  const unknown = await call('sui_noSuchMethod', []);
  assert.equal([unknown.id, unknown.error?.code], [7, -32601]);
  const missing = await call('sui_getTransactionBlock', ['11111111111111111111111111111111', {}]);
  assert.is(missing.error?.code, -32602);
  const rejected = await call('sui_executeTransactionBlock', ['AAAA', []]);
  assert.is(rejected.error?.code, -32002);
});

server('a client\'s malformed request is answered as the client\'s error, saying what is wrong', async ({ server: s }) => {
  const post = async (body: string) => {
    const response = await fetch(s.suiRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: response.status, body: (await response.json()) as { id: unknown; error?: { code: number; message: string } } };
  };
  for (const body of ['null', '42', '"sui_getObject"', '{"jsonrpc":"2.0","id":1}']) {
    const answer = await post(body);
    assert.is(answer.status, 200, body);
    assert.is(answer.body.error?.code, -32600, body);
  }
  const wrongTypes = await post(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'sui_getObject', params: [123, 'x'] }));
  assert.equal([wrongTypes.body.id, wrongTypes.body.error?.code], [3, -32602]);
  assert.match(wrongTypes.body.error!.message, 'parameter 1 (object_id) must be a string, got 123');
  assert.not.match(wrongTypes.body.error!.message, /TypeError|Cannot read/);
  const wrongOptions = await post(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'sui_getObject', params: [s.packageId, 'x'] }));
  assert.match(wrongOptions.body.error!.message, 'parameter 2 (options) must be an object, got "x"');
  const notAnArray = await post(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'sui_multiGetObjects', params: ['0x1'] }));
  assert.equal([notAnArray.body.error?.code, notAnArray.body.error?.message], [-32602, 'Invalid params: parameter 1 (object_ids) must be an array of strings, got "0x1"']);
  // A blob id whose %-escapes are no UTF-8 is a bad request, not a server fault.
  const malformed = await fetch(`${s.walrusUrl}/v1/blobs/%E0%A4%A`);
  assert.is(malformed.status, 400);
  assert.match(await malformed.text(), 'Cannot parse `%E0%A4%A` as a blob id');
});

server('serves the Walrus API over the same state directory as the embedded network', async ({ server: s, dir }) => {
  const body = new TextEncoder().encode('a pack, more or less');
  const stored = await fetch(`${s.walrusUrl}/v1/blobs?epochs=2`, { method: 'PUT', body });
  assert.is(stored.status, 200);
  const answer = (await stored.json()) as { newlyCreated?: { blobObject: { blobId: string } } };
  const blobId = answer.newlyCreated!.blobObject.blobId;
  const read = await fetch(`${s.walrusUrl}/v1/blobs/${blobId}`);
  assert.equal(new Uint8Array(await read.arrayBuffer()), body);
  const local = await openLocalNetwork(dir);
  const viaLocal = await local.walrusFetch(`${local.walrusUrl}/v1/blobs/${blobId}`);
  assert.equal(new Uint8Array(await viaLocal.arrayBuffer()), body);
  assert.equal([local.packageId, local.registryId], [s.packageId, s.registryId]);
});

server('close() stops listening', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-server-'));
  const other = await startDevnetServer({ dir });
  await other.close();
  try {
    await fetch(`${other.url}/v1/devnet`);
    assert.unreachable('still listening');
  } catch (error) {
    assert.instance(error, TypeError);
  }
  rmSync(dir, { recursive: true, force: true });
});

server.run();
