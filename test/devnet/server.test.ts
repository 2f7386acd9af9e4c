import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request as httpRequest } from 'node:http';
import { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { startDevnetServer, type DevnetServer } from '../../src/devnet/server.ts';
import { IDLE_CONNECTION_MS } from '../../src/devnet/kept-connections.ts';
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

/** A request sent with node:http (fetch will not set Host), its body streamed in 64 KiB chunks until the answer comes. */
function rawRequest(url: string, options: { method?: string; path: string; headers: Record<string, string>; bodyBytes?: number }): Promise<{ status: number; text: string; sent: number }> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = httpRequest(`${url}${options.path}`, { method: options.method ?? 'POST', headers: options.headers }, (response) => {
      answered = true;
      let text = '';
      response.setEncoding('utf8').on('data', (d: string) => { text += d; }).on('end', () => { resolve({ status: response.statusCode!, text, sent }); request.destroy(); });
    });
    request.on('error', (error) => { if (!answered) reject(error); });
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    const write = () => {
      while (!answered && sent < (options.bodyBytes ?? 0)) {
        sent += chunk.length;
        if (!request.write(chunk)) { request.once('drain', write); return; }
      }
      if (!answered) request.end();
    };
    write();
  });
}

server('refuses requests for another Host or from a web page of another origin, before any coin is minted', async ({ server: s }) => {
  const address = Ed25519Keypair.generate().toSuiAddress();
  const body = JSON.stringify({ FixedAmountRequest: { recipient: address } });
  const port = new URL(s.url).port;
  // What a page on another site can send without a CORS preflight: a text/plain POST.
  const page = await fetch(`${s.faucetUrl}/v2/gas`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'text/plain' }, body });
  assert.is(page.status, 403);
  assert.match(await page.text(), 'this devnet does not answer web pages of other origins (Origin "https://evil.example")');
  // DNS rebinding: the page's own name resolves to 127.0.0.1, so the Host is the page's.
  const rebound = await rawRequest(s.url, { path: '/v2/gas', headers: { host: `evil.example:${port}`, 'content-type': 'application/json' } });
  assert.equal([rebound.status, rebound.text], [403, `this devnet answers requests for 127.0.0.1, localhost, [::1] only, not Host "evil.example:${port}"`]);
  const client = new SuiJsonRpcClient({ url: s.suiRpcUrl, network: 'localnet' });
  assert.is((await client.core.getBalance({ owner: address })).balance.balance, '0');
  // The server's own names pass, with or without an Origin of its own.
  const own = await fetch(`${s.url}/v1/devnet`, { headers: { origin: `http://localhost:${port}` } });
  assert.is(own.status, 200);
  assert.is((await rawRequest(s.url, { method: 'GET', path: '/v1/devnet', headers: { host: `localhost:${port}` } })).status, 200);
});

server('JSON-RPC and the faucet parse JSON only when told it is JSON, and a method named after Object\'s prototype is not found', async ({ server: s }) => {
  const plain = await fetch(s.suiRpcUrl, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sui_getChainIdentifier', params: [] }) });
  assert.equal([plain.status, await plain.text()], [415, 'Supplied content type is not allowed. Content-Type: application/json is required']);
  const faucet = await fetch(`${s.faucetUrl}/v2/gas`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"FixedAmountRequest":{"recipient":"0x1"}}' });
  assert.equal([faucet.status, await faucet.text()], [415, 'Expected request with `Content-Type: application/json`']);
  for (const method of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const answer = await fetch(s.suiRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params: [] }) });
    assert.is(answer.status, 200, method);
    assert.equal(await answer.json(), { jsonrpc: '2.0', id: 9, error: { code: -32601, message: `Method not found: ${method}` } });
  }
});

server('bodies are read as they arrive up to each service\'s limit and answered 413 long before a 64 MB body ends', async ({ server: s }) => {
  const huge = 64 * 1024 * 1024;
  const json = { 'content-type': 'application/json' };
  const rpc = await rawRequest(s.url, { path: '/', headers: json, bodyBytes: huge });
  assert.equal([rpc.status, JSON.parse(rpc.text)], [413, { jsonrpc: '2.0', id: null, error: { code: -32007, message: 'Request is too big' } }]);
  assert.ok(rpc.sent < huge / 2, `${rpc.sent} bytes sent before the answer`);
  const faucet = await rawRequest(s.url, { path: '/v2/gas', headers: json, bodyBytes: huge });
  assert.equal([faucet.status, faucet.text], [413, 'Failed to buffer the request body: length limit exceeded']);
  assert.ok(faucet.sent < huge / 2, `${faucet.sent} bytes sent before the answer`);
  const seal = await rawRequest(s.url, { path: '/seal/1/v1/fetch_key', headers: { ...json, 'client-sdk-type': 'typescript', 'client-sdk-version': '1.0.0' }, bodyBytes: huge });
  assert.is(seal.status, 413);
  assert.ok(seal.sent < huge / 2, `${seal.sent} bytes sent before the answer`);
  const grpc = await rawRequest(s.url, { path: '/sui.rpc.v2.LedgerService/GetServiceInfo', headers: { 'content-type': 'application/grpc-web+proto' }, bodyBytes: huge });
  assert.is(grpc.status, 200);
  assert.ok(grpc.sent < huge / 2, `${grpc.sent} bytes sent before the answer`);
  // The server is still itself afterwards.
  assert.is((await fetch(`${s.url}/v1/devnet`)).status, 200);
});

server('an idle client connection is kept for a minute, not Node\'s 5 s: the Keep-Alive header says so, and a second request reuses the socket', async ({ server: s }) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const ask = () => new Promise<{ header: string; port: number | undefined }>((resolve, reject) => {
      const req = httpRequest(`${s.url}/nothing-here`, { agent }, (res) => {
        res.resume();
        res.once('end', () => resolve({ header: String(res.headers['keep-alive']), port: req.socket?.localPort }));
      });
      req.once('error', reject).end();
    });
    const first = await ask();
    assert.is(first.header, `timeout=${IDLE_CONNECTION_MS / 1000}`);
    assert.is((await ask()).port, first.port);
  } finally {
    agent.destroy();
  }
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
