import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TransactionError } from '@mysten/sui/client';
import { GrpcTypes, RpcError, SuiGrpcClient } from '@mysten/sui/grpc';
import { fromBase64, toBase64 } from '@mysten/sui/utils';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { grpcWebHandler, isGrpcWebRequest, requestMessage } from '../../../src/devnet/chain/grpc-web.ts';

const BASE = 'http://devnet.invalid';
const { GetServiceInfoRequest, GetServiceInfoResponse } = GrpcTypes;

/** A request body of one data frame holding `message`. */
function framed(message: Uint8Array, flag = 0): Uint8Array {
  const body = new Uint8Array(5 + message.length);
  body[0] = flag;
  new DataView(body.buffer).setUint32(1, message.length);
  body.set(message, 5);
  return body;
}

/** The frames of a gRPC-web response body: [flag, payload][]. */
function frames(body: Uint8Array): [number, Uint8Array][] {
  const out: [number, Uint8Array][] = [];
  for (let at = 0; at < body.length;) {
    const length = new DataView(body.buffer, body.byteOffset + at + 1, 4).getUint32(0);
    out.push([body[at], body.subarray(at + 5, at + 5 + length)]);
    at += 5 + length;
  }
  return out;
}

function post(path: string, body: Uint8Array | string, contentType = 'application/grpc-web+proto'): Request {
  return new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': contentType, 'x-grpc-web': '1' }, body });
}

type Context = { dir: string; engine: ChainEngine; handle: (request: Request) => Promise<Response>; client: SuiGrpcClient };

const handler = suite<Context>('grpcWebHandler');

handler.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'walrus-git-grpc-'));
  context.engine = await ChainEngine.open(context.dir);
  context.handle = grpcWebHandler(context.engine);
  // The SDK's own transport, its fetch answered in-process by the handler.
  context.client = new SuiGrpcClient({ baseUrl: BASE, network: 'localnet', fetch: (input, init) => context.handle(new Request(input, init)) });
});

handler.after(({ dir }) => rmSync(dir, { recursive: true, force: true }));

handler('answers a unary call in binary: one data frame, then trailers with grpc-status 0', async ({ engine, handle }) => {
  const response = await handle(post('/sui.rpc.v2.LedgerService/GetServiceInfo', framed(GetServiceInfoRequest.toBinary({}))));
  assert.is(response.status, 200);
  assert.is(response.headers.get('content-type'), 'application/grpc-web+proto');
  const [[dataFlag, data], [trailerFlag, trailer], ...rest] = frames(new Uint8Array(await response.arrayBuffer()));
  assert.equal([dataFlag, trailerFlag, rest.length], [0x00, 0x80, 0]);
  assert.is(GetServiceInfoResponse.fromBinary(data).chainId, engine.genesis.chainId);
  assert.match(new TextDecoder().decode(trailer), /^grpc-status:0\r\n/);
});

handler('answers grpc-web-text in base64, as it was asked', async ({ engine, handle }) => {
  const body = toBase64(framed(GetServiceInfoRequest.toBinary({})));
  const response = await handle(post('/sui.rpc.v2.LedgerService/GetServiceInfo', body, 'application/grpc-web-text'));
  assert.is(response.headers.get('content-type'), 'application/grpc-web-text');
  const [[, data], [flag]] = frames(fromBase64(await response.text()));
  assert.is(flag, 0x80);
  assert.is(GetServiceInfoResponse.fromBinary(data).chainId, engine.genesis.chainId);
});

handler('SuiGrpcClient reads the chain through it, in binary and in text format', async ({ engine, client, handle }) => {
  assert.is((await client.core.getChainIdentifier()).chainIdentifier, engine.genesis.chainId);
  const text = new SuiGrpcClient({ baseUrl: BASE, network: 'localnet', format: 'text', fetch: (input, init) => handle(new Request(input, init)) });
  const { objects: [registry] } = await text.core.getObjects({ objectIds: [engine.genesis.registryId] });
  assert.not.instance(registry, Error);
  assert.is((registry as { objectId: string }).objectId, engine.genesis.registryId);
});

handler('a malformed frame is INTERNAL, answered trailers-only', async ({ handle }) => {
  const truncated = framed(new Uint8Array(4)).subarray(0, 7); // announces 4 bytes, carries 2
  const response = await handle(post('/sui.rpc.v2.LedgerService/GetServiceInfo', truncated));
  assert.is(response.status, 200);
  assert.is(response.headers.get('grpc-status'), '13');
  assert.match(response.headers.get('grpc-message')!, /malformed gRPC-web request/);
  assert.is((await response.arrayBuffer()).byteLength, 0);
});

handler('an unknown method is UNIMPLEMENTED', async ({ handle }) => {
  const response = await handle(post('/sui.rpc.v2.LedgerService/NoSuchMethod', framed(new Uint8Array())));
  assert.is(response.headers.get('grpc-status'), '12');
  const unserved = await handle(post('/sui.rpc.v2.NameService/LookupName', framed(new Uint8Array())));
  assert.is(unserved.headers.get('grpc-status'), '12');
});

handler('a service the devnet does not serve reaches the SDK as RpcError UNIMPLEMENTED', async ({ client }) => {
  try {
    await client.nameService.lookupName({ name: 'example.sui' });
    assert.unreachable('lookupName answered');
  } catch (error) {
    assert.instance(error, RpcError);
    assert.is((error as RpcError).code, 'UNIMPLEMENTED');
  }
});

handler('an unknown transaction is NOT_FOUND in the headers, which the SDK maps to TransactionError notFound', async ({ handle, client }) => {
  const digest = '11111111111111111111111111111111';
  const request = GrpcTypes.GetTransactionRequest.toBinary({ digest });
  const response = await handle(post('/sui.rpc.v2.LedgerService/GetTransaction', framed(request)));
  assert.equal([response.headers.get('grpc-status'), (await response.arrayBuffer()).byteLength], ['5', 0]);
  try {
    await client.core.getTransaction({ digest });
    assert.unreachable('getTransaction answered');
  } catch (error) {
    assert.instance(error, TransactionError);
  }
});

handler('a status message outside printable ASCII is percent-encoded and decoded back by the SDK', async ({ client }) => {
  try {
    await client.core.getMoveFunction({ packageId: '0x2', moduleName: 'coin', name: 'nö_such_function' });
    assert.unreachable('getMoveFunction answered');
  } catch (error) {
    assert.instance(error, RpcError);
    assert.is((error as RpcError).code, 'NOT_FOUND');
    assert.match((error as Error).message, /nö_such_function/);
  }
});

handler.run();

const message = suite('requestMessage');

message('returns the payload of exactly one data frame', () => {
  assert.equal([...requestMessage(framed(new Uint8Array([1, 2, 3])))], [1, 2, 3]);
});

message('refuses a compressed frame (UNIMPLEMENTED), a short header and trailing bytes (INTERNAL)', () => {
  const codeOf = (body: Uint8Array) => {
    try {
      requestMessage(body);
      return 'accepted';
    } catch (error) {
      return (error as { code: number }).code;
    }
  };
  assert.is(codeOf(framed(new Uint8Array([1]), 1)), 12);
  assert.is(codeOf(new Uint8Array([0, 0, 0])), 13);
  assert.is(codeOf(new Uint8Array([...framed(new Uint8Array([1])), 9])), 13);
});

message.run();

const detect = suite('isGrpcWebRequest');

detect('tells gRPC-web POSTs from JSON-RPC and the Walrus API', () => {
  assert.ok(isGrpcWebRequest(post('/sui.rpc.v2.LedgerService/GetEpoch', '')));
  assert.ok(isGrpcWebRequest(post('/sui.rpc.v2.LedgerService/GetEpoch', '', 'application/grpc-web-text')));
  assert.not.ok(isGrpcWebRequest(post('/', '{}', 'application/json')));
  assert.not.ok(isGrpcWebRequest(new Request(`${BASE}/v1/blobs/x`, { headers: { 'content-type': 'application/grpc-web' } })));
});

detect.run();
