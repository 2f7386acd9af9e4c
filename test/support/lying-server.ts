/**
 * The lying RPC as a server on 127.0.0.1: the four ledger calls of certified reads are answered from an honest
 * devnet server with one lie told (lying-rpc.ts); every other request (the rest of the gRPC API, the faucet, Walrus,
 * `/v1/devnet`, whose URLs are relative) is passed to that server unchanged. So its URL serves both as an extra RPC
 * (GIT_WALRUS_CERTIFIED_RPCS) and as the network's own node (GIT_WALRUS_DEVNET_URL): a compromised node that lies
 * only where a proof is asked for.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SuiGrpcClient, type GrpcTypes } from '@mysten/sui/grpc';
import { grpcWebServer } from '../../src/devnet/chain/grpc-web.ts';
import { nodeListener } from '../../src/devnet/walrus/node-listener.ts';
import { lyingLedger, type Lie } from './lying-rpc.ts';

const LIED_CALLS = new Set(['GetObject', 'GetTransaction', 'GetCheckpoint', 'GetEpoch'].map((method) => `sui.rpc.v2.LedgerService/${method}`));

export async function startLyingServer(honestUrl: string, lie: Lie, stale?: GrpcTypes.GetObjectResponse): Promise<{ url: string; close(): Promise<void> }> {
  const ledger = lyingLedger(new SuiGrpcClient({ baseUrl: honestUrl, network: 'localnet' }).ledgerService, lie, stale);
  const lying = grpcWebServer({
    'sui.rpc.v2.LedgerService/GetObject': async (request) => (await ledger.getObject(request)).response,
    'sui.rpc.v2.LedgerService/GetTransaction': async (request) => (await ledger.getTransaction(request)).response,
    'sui.rpc.v2.LedgerService/GetCheckpoint': async (request) => (await ledger.getCheckpoint(request)).response,
    'sui.rpc.v2.LedgerService/GetEpoch': async (request) => (await ledger.getEpoch(request)).response,
  });
  const handler = async (request: Request): Promise<Response> => {
    const { pathname, search } = new URL(request.url);
    if (LIED_CALLS.has(pathname.slice(1))) return lying(request);
    const headers = new Headers(request.headers);
    headers.delete('host');
    const answer = await fetch(new URL(pathname + search, honestUrl), { method: request.method, headers, body: request.body, duplex: 'half' } as RequestInit);
    // fetch has decoded the body: its encoding and length headers no longer describe it.
    const passed = new Headers(answer.headers);
    for (const name of ['content-encoding', 'content-length', 'transfer-encoding']) passed.delete(name);
    return new Response(answer.body, { status: answer.status, headers: passed });
  };
  const server = createServer(nodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
