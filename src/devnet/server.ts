import { createServer } from 'node:http';
import { IDLE_CONNECTION_MS } from './kept-connections.ts';
import type { AddressInfo } from 'node:net';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { normalizeSuiAddress, isValidSuiAddress } from '@mysten/sui/utils';
import { ChainEngine } from './chain/engine.ts';
import { jsonRpcHandler } from './chain/json-rpc.ts';
import { grpcWebHandler, isGrpcWebRequest } from './chain/grpc-web.ts';
import { FAUCET_AMOUNT } from './chain/limits.ts';
import { createWalrusService } from './walrus/service.ts';
import { engineWalrusChain } from './walrus/chain-blobs.ts';
import { WAL_FAUCET_AMOUNT } from './chain/walrus-system-package.ts';
import { WALRUS_STAKING_OBJECT_ID, WALRUS_SYSTEM_OBJECT_ID } from './chain/fixed-ids.ts';
import { MIN_STORAGE_NODES, startStorageNodes, type StorageNodes } from './walrus/storage-nodes.ts';
import { WAL_FAUCET_PATH } from '../core/devnet-protocol.ts';
import { nodeListener } from './walrus/node-listener.ts';
import { openKeyServers, type DevnetKeyServers } from './seal/key-servers.ts';
import { DEVNET_INFO_PATH } from '../core/devnet-protocol.ts';
import { DEVNET_SEAL } from '../core/devnet-protocol.ts';
import { UsageError, WalrusGitError } from '../core/errors.ts';
import { holdPidLock } from '../fs/pid-lock.ts';
import { isJsonRequest, readCappedBody } from './capped-body.ts';
import { foreignRequest } from './local-origin.ts';
import type { HeldLock, LockHolder } from '../fs/pid-lock.ts';

/**
 * The network front (`git walrus devnet`): one HTTP port on 127.0.0.1 serving the Sui gRPC API as gRPC-web
 * (POST /sui.rpc.v2.<Service>/<Method>), Sui JSON-RPC (POST /), the Sui faucet
 * API (POST /v2/gas), the Walrus publisher and aggregator API (/v1/blobs…), the three Seal key servers
 * (/seal/<n>/v1/fetch_key and /seal/<n>/v1/service, registered on chain at this address when the server starts), and
 * the devnet's own description (GET /v1/devnet), all over the same state directory the embedded network uses — so
 * several servers and in-process clients can share it.
 */

export interface DevnetServerOptions {
  dir: string;
  port?: number;
  host?: string;
  /** Seal key servers (1-based) to mark down from now on (their connections are dropped); absent: as the state directory says. */
  keyServersDown?: Iterable<number>;
  /**
   * Emulated Walrus storage nodes to run beside the publisher (0: none), each on its own port, so that the Walrus
   * SDK's direct mode writes and reads through them (walrus/storage-nodes.ts).
   */
  storageNodes?: number;
  /** Storage nodes (0-based) that start down. */
  storageNodesDown?: Iterable<number>;
  /**
   * The `host:port` each storage node registers on chain instead of its own port, one per node in order: the address
   * of a proxy in front of it (a real node registers its public address, e.g. a load balancer's). Checked by the caller
   * to be loopback or a local interface's (bind-address.ts).
   */
  storageNodeAddresses?: readonly string[];
}

export interface DevnetServer {
  url: string;
  suiRpcUrl: string;
  /** Base URL of the gRPC-web API (`SuiGrpcClient({ baseUrl })`): the same port, told apart by content type. */
  suiGrpcUrl: string;
  walrusUrl: string;
  faucetUrl: string;
  packageId: string;
  registryId: string;
  /** The Seal key servers (tests take some down with `setDown`). */
  keyServers: DevnetKeyServers;
  /** The compute market's shared Market object. */
  marketId: string;
  /** The emulated storage nodes (absent without `storageNodes`). */
  storageNodes?: StorageNodes;
  close(): Promise<void>;
}

/** A state directory another live server serves: a second server would re-register the Seal key servers at its URL. */
export class DevnetDirInUseError extends WalrusGitError {
  constructor(dir: string, holder: LockHolder) {
    const who = holder.pid > 0 ? ` (process ${holder.pid}${typeof holder.url === 'string' ? `, at ${holder.url}` : ''})` : '';
    super('DEVNET_DIR_IN_USE', `${dir} is already served by git walrus devnet${who}: point clients at that server, or give this one another --dir`, { dir, ...holder });
  }
}

export async function startDevnetServer(options: DevnetServerOptions): Promise<DevnetServer> {
  const nodes = options.storageNodes ?? 0;
  if (nodes !== 0 && !(Number.isInteger(nodes) && nodes >= MIN_STORAGE_NODES)) {
    throw new UsageError(`--storage-nodes must be 0 (none) or at least ${MIN_STORAGE_NODES}, got ${nodes}: with fewer, the Walrus SDK cannot read a blob once the node it asks first fails (a real committee has about a hundred)`, { storageNodes: nodes });
  }
  const advertised = options.storageNodeAddresses?.length ?? 0;
  if (advertised > 0 && advertised !== (options.storageNodes ?? 0)) {
    throw new UsageError(`${advertised} storage node address(es) given for ${options.storageNodes ?? 0} storage node(s): give one --storage-node-address per node of --storage-nodes, in order`);
  }
  await mkdir(options.dir, { recursive: true });
  const lock = await holdPidLock(join(options.dir, SERVER_LOCK));
  if ('holder' in lock) throw new DevnetDirInUseError(options.dir, lock.holder);
  try {
    return await serve(options, lock.held);
  } catch (error) {
    await lock.held.release();
    throw error;
  }
}

/** Held by the one server of a state directory while it runs (pid and URL); in-process networks do not take it. */
const SERVER_LOCK = 'server.lock';

async function serve({ dir, port = 0, host = '127.0.0.1', keyServersDown, storageNodes: nodeCount = 0, storageNodesDown, storageNodeAddresses }: DevnetServerOptions, lock: HeldLock): Promise<DevnetServer> {
  const engine = await ChainEngine.open(join(dir, 'chain'));
  const walrus = createWalrusService(join(dir, 'walrus'), { chain: engineWalrusChain(engine) });
  const epochNow = await walrus.epochClock();
  await engine.attachWalrus(epochNow);
  const storageNodes = nodeCount > 0
    ? await startStorageNodes({ dir: join(dir, 'walrus'), engine, count: nodeCount, numShards: walrus.numShards, epochNow, down: storageNodesDown, host, advertise: storageNodeAddresses?.length ? storageNodeAddresses : undefined })
    : undefined;
  const keyServers = await openKeyServers(dir, engine, { down: keyServersDown });
  const rpc = jsonRpcHandler(engine);
  const grpc = grpcWebHandler(engine);
  const { packageId, registryId } = engine.genesis;
  const marketId = engine.genesis.marketId!;

  const handle = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (isGrpcWebRequest(request)) return grpc(request);
    if (pathname === '/' && request.method === 'POST') return rpc(request);
    if (pathname === '/v2/gas' && request.method === 'POST') return faucetV2(engine, request, 'SUI');
    if (pathname === WAL_FAUCET_PATH && request.method === 'POST') return faucetV2(engine, request, 'WAL');
    if (pathname === DEVNET_INFO_PATH && request.method === 'GET') {
      return Response.json({
        packageId, registryId, marketId, numShards: walrus.numShards, suiRpcUrl: '/', suiGrpcUrl: '/', walrusUrl: '/', faucetUrl: '/', seal: DEVNET_SEAL, walrusSystemObjectId: WALRUS_SYSTEM_OBJECT_ID,
        ...(storageNodes ? { walrusStakingObjectId: WALRUS_STAKING_OBJECT_ID, storageNodes: storageNodes.addresses.length } : {}),
      });
    }
    if (pathname.startsWith('/seal/')) return keyServers.handle(request);
    if (pathname.startsWith('/v1/')) return walrus.handle(request);
    return new Response('not found', { status: 404 });
  };

  const listener = nodeListener(handle);
  const server = createServer({ keepAliveTimeout: IDLE_CONNECTION_MS }, (req, res) => {
    const refusal = foreignRequest({ host: req.headers.host, origin: req.headers.origin }, host);
    if (refusal) {
      res.writeHead(refusal.status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(refusal.message);
      return;
    }
    // A key server that is down answers nothing: the connection drops, as with a dead process behind the address.
    if (keyServers.isDown(new URL(req.url ?? '/', 'http://devnet').pathname)) req.socket.destroy();
    else listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  await lock.describe({ url });
  await keyServers.register(url);
  return {
    url,
    suiRpcUrl: url,
    suiGrpcUrl: url,
    walrusUrl: url,
    faucetUrl: url,
    packageId,
    registryId,
    keyServers,
    marketId,
    ...(storageNodes ? { storageNodes } : {}),
    close: async () => {
      await storageNodes?.close();
      await new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      await lock.release();
    },
  };
}

const FAUCET_MAX_BODY_BYTES = 2 * 1024 * 1024;

function parsedJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

/**
 * `POST /v2/gas` as the Sui faucet speaks it (`requestSuiFromFaucetV2`); `POST /v2/wal` the same way for WAL, which
 * Walrus storage is paid in (on testnet, `walrus get-wal` exchanges SUI for it).
 */
async function faucetV2(engine: ChainEngine, request: Request, coin: 'SUI' | 'WAL'): Promise<Response> {
  // The faucet is an axum service: its JSON extractor's content-type check and default body limit (2 MB).
  if (!isJsonRequest(request)) {
    await request.body?.cancel().catch(() => {});
    return new Response('Expected request with `Content-Type: application/json`', { status: 415, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
  const bytes = await readCappedBody(request, FAUCET_MAX_BODY_BYTES);
  if (bytes === null) return new Response('Failed to buffer the request body: length limit exceeded', { status: 413, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const body = parsedJson(bytes) as { FixedAmountRequest?: { recipient?: unknown } } | null;
  const recipient = body?.FixedAmountRequest?.recipient;
  if (typeof recipient !== 'string' || !isValidSuiAddress(normalizeSuiAddress(recipient))) {
    return Response.json({ status: { Failure: { internal: 'request body must be {"FixedAmountRequest":{"recipient":"0x…"}}' } }, coins_sent: null }, { status: 400 });
  }
  try {
    const record = coin === 'SUI' ? await engine.faucet(recipient) : await engine.faucetWal(recipient);
    const owner = normalizeSuiAddress(recipient);
    const sent = Object.keys(record.objectTypes).find((id) => engine.object(id)?.owner.$kind === 'AddressOwner' && engine.ownedObjects(owner).some((o) => o.id === id));
    return Response.json({ status: 'Success', coins_sent: [{ amount: Number(coin === 'SUI' ? FAUCET_AMOUNT : WAL_FAUCET_AMOUNT), id: sent, transferTxDigest: record.digest }] });
  } catch (error) {
    return Response.json({ status: { Failure: { internal: (error as Error).message } }, coins_sent: null }, { status: 500 });
  }
}
