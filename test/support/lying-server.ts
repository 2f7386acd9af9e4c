/**
 * The lying RPC as a server: a gRPC-web endpoint on 127.0.0.1 that answers the four ledger calls of certified reads
 * from an honest devnet server, with one lie told (lying-rpc.ts). Give its URL to git and `git walrus` as an extra
 * RPC (GIT_WALRUS_CERTIFIED_RPCS).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SuiGrpcClient, type GrpcTypes } from '@mysten/sui/grpc';
import { grpcWebServer } from '../../src/devnet/chain/grpc-web.ts';
import { nodeListener } from '../../src/devnet/walrus/node-listener.ts';
import { lyingLedger, type Lie } from './lying-rpc.ts';

export async function startLyingServer(honestUrl: string, lie: Lie, stale?: GrpcTypes.GetObjectResponse): Promise<{ url: string; close(): Promise<void> }> {
  const ledger = lyingLedger(new SuiGrpcClient({ baseUrl: honestUrl, network: 'localnet' }).ledgerService, lie, stale);
  const handler = grpcWebServer({
    'sui.rpc.v2.LedgerService/GetObject': async (request) => (await ledger.getObject(request)).response,
    'sui.rpc.v2.LedgerService/GetTransaction': async (request) => (await ledger.getTransaction(request)).response,
    'sui.rpc.v2.LedgerService/GetCheckpoint': async (request) => (await ledger.getCheckpoint(request)).response,
    'sui.rpc.v2.LedgerService/GetEpoch': async (request) => (await ledger.getEpoch(request)).response,
  });
  const server = createServer(nodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
