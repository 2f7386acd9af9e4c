import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { IDLE_CONNECTION_MS } from '../kept-connections.ts';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { writeFileAtomic } from '../../fs/atomic.ts';
import { join } from 'node:path';
import { bcs } from '@mysten/sui/bcs';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { blobIdToU256, isBlobId } from '../../core/blob-id-codec.ts';
import { shardOfSliverPair, sliverPairOfShard } from '../../walrus-protocol/encoding.ts';
import { BlobLayout } from '../../walrus-protocol/blob-object-bcs.ts';
import type { ChainEngine } from '../chain/engine.ts';
import { normalizeType } from '../chain/move-types.ts';
import { BLOB_TYPE } from '../chain/walrus-system-package.ts';
import { committeeObjects } from '../chain/walrus-committee.ts';
import { blobConfirmationMessage } from '../chain/walrus-certificate.ts';
import { readCappedBody } from '../capped-body.ts';
import { nodeListener } from './node-listener.ts';

/**
 * Emulated Walrus storage nodes: N HTTP servers on 127.0.0.1, one port each, forming the devnet's storage committee
 * (their addresses, BLS keys and shards are written to the chain's Walrus System and Staking objects, where the
 * Walrus SDK finds them). Each serves the storage-node REST API the SDK's direct mode calls (`/v1/blobs/{id}/…`:
 * metadata and sliver PUT/GET and their status, the blob's status, and the signed storage confirmation), answers in
 * the nodes' JSON envelope (`{success: {code, data}}` or `{error: {code, status, message, details}}`), and keeps its
 * slivers under `<walrus dir>/nodes/<n>/`. A node takes a blob's metadata only once the blob is registered on chain
 * and confirms (a BLS signature over the `StorageConfirmation` message of the current epoch) only once it holds both
 * slivers of every pair its shards are assigned; the blob's status comes from its Blob objects on chain.
 * Not emulated: a node does not check slivers against the metadata's hashes (nor the metadata against the blob id),
 * does not recover missing slivers from other nodes, and the committee never changes.
 */

/**
 * The fewest storage nodes the devnet runs. Real committees have about a hundred; `@mysten/walrus` reads a blob's
 * metadata from one node and, when that one fails, from the others in groups of a tenth of them, which with ten
 * nodes or fewer is a group size of 0 and a RangeError ("Invalid array length") instead of a read from the rest.
 */
export const MIN_STORAGE_NODES = 11;

export interface StorageNodesOptions {
  /** The devnet Walrus state directory. */
  dir: string;
  engine: ChainEngine;
  count: number;
  numShards: number;
  epochNow: () => number;
  /** Nodes (0-based) that drop every connection from the start, as a dead process behind the address would. */
  down?: Iterable<number>;
  host?: string;
  /**
   * The `host:port` each node registers in the committee, in order (absent: the address it listens on): what a real
   * node does behind a proxy or load balancer, whose address is the one clients must use. One per node.
   */
  advertise?: readonly string[];
}

export interface StorageNodes {
  /** Each node's `host:port` as the committee names it, in committee order. */
  readonly addresses: string[];
  /** Each node's `host:port` it listens on (the same as `addresses` unless they were advertised otherwise). */
  readonly listening: string[];
  /** Takes a node down (its connections dropped) or brings it back. */
  setDown(index: number, down: boolean): void;
  close(): Promise<void>;
}

/** Largest sliver or metadata body a node takes: a sliver of the largest blob a 50-shard devnet holds is ~0.3 MB. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

interface NodeKey { secretKey: Uint8Array; publicKey: Uint8Array }

/** A node's BLS key, the same on every devnet (the devnet's keys are no secret: nothing of value rests on them). */
function nodeKey(index: number): NodeKey {
  const seed = createHash('sha384').update(`walrus devnet storage node ${index}`).digest();
  const { secretKey, publicKey } = bls12_381.longSignatures.keygen(seed);
  return { secretKey, publicKey: publicKey.toBytes(true) };
}

/** Contiguous runs of shards, as even as the count allows (Walrus apportions shards by stake; the devnet's is equal). */
export function assignShards(count: number, numShards: number): number[][] {
  return Array.from({ length: count }, (_, index) => {
    const start = Math.floor((index * numShards) / count);
    const end = Math.floor(((index + 1) * numShards) / count);
    return Array.from({ length: end - start }, (_, offset) => start + offset);
  });
}

export async function startStorageNodes(options: StorageNodesOptions): Promise<StorageNodes> {
  const host = options.host ?? '127.0.0.1';
  const shards = assignShards(options.count, options.numShards);
  const keys = shards.map((_, index) => nodeKey(index));
  const down = new Set(options.down ?? []);
  const servers: Server[] = [];
  const listening: string[] = [];
  for (const [index, nodeShards] of shards.entries()) {
    const node = storageNode({ ...options, index, key: keys[index], shards: new Set(nodeShards), root: join(options.dir, 'nodes', String(index)) });
    const listener = nodeListener(node);
    const server = createServer({ keepAliveTimeout: IDLE_CONNECTION_MS }, (req, res) => {
      if (down.has(index)) req.socket.destroy();
      else listener(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    servers.push(server);
    listening.push(`${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`);
  }
  const addresses = options.advertise ? [...options.advertise] : listening;
  const totalAggregatedKey = bls12_381.longSignatures.aggregatePublicKeys(keys.map((key) => key.publicKey)).toBytes(true);
  const objects = committeeObjects(shards.map((nodeShards, index) => ({ networkAddress: addresses[index], publicKey: keys[index].publicKey, shards: nodeShards })), {
    epoch: options.epochNow(), numShards: options.numShards, totalAggregatedKey,
  });
  await options.engine.putSystemObjects(objects.map((object) => ({ ...object, hasPublicTransfer: false })));
  return {
    addresses,
    listening,
    setDown(index, isDown) {
      if (isDown) down.add(index);
      else down.delete(index);
    },
    async close() {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })));
    },
  };
}

type NodeContext = StorageNodesOptions & { index: number; key: NodeKey; shards: Set<number>; root: string };

const ROUTE = /^\/v1\/blobs\/([A-Za-z0-9_-]{43})\/(metadata(?:\/status)?|status|slivers\/(\d+)\/(primary|secondary)(\/status)?|confirmation\/permanent|confirmation\/deletable\/(0x[0-9a-fA-F]{1,64}))$/;

function ok(data: unknown): Response {
  return Response.json({ success: { code: 200, data } });
}

/** The storage nodes' error envelope (a google.rpc.Status with an ErrorInfo whose reason the SDK reads). */
function failure(code: number, status: string, message: string, reason?: string): Response {
  const details = reason === undefined ? [] : [{ '@type': 'ErrorInfo', reason, domain: 'daemon.walrus.space' }];
  return Response.json({ error: { code, status, message, details } }, { status: code });
}

const notRegistered = () => failure(400, 'FAILED_PRECONDITION', 'the requested blob has not been registered or has already expired', 'NOT_REGISTERED');

interface LiveBlob { objectId: string; certifiedEpoch: number | null; endEpoch: number; deletable: boolean; txDigest: string }

/** The blob's live Blob objects on chain (registered, not expired, not deleted). */
async function liveBlobs(engine: ChainEngine, blobId: string, epoch: number): Promise<LiveBlob[]> {
  await engine.refresh();
  const wanted = blobIdToU256(blobId);
  const type = normalizeType(BLOB_TYPE);
  const found: LiveBlob[] = [];
  for (const object of engine.store.objects.values()) {
    if (object.type !== type) continue;
    const blob = BlobLayout.parse(object.contents);
    if (BigInt(blob.blob_id) !== wanted || blob.storage.end_epoch <= epoch) continue;
    found.push({ objectId: blob.id, certifiedEpoch: blob.certified_epoch, endEpoch: blob.storage.end_epoch, deletable: blob.deletable, txDigest: object.previousTransaction });
  }
  return found;
}

/** `/status` as a node reports it: the strongest of the blob's live Blob objects, with counts of deletable ones. */
function blobStatus(blobs: LiveBlob[]): unknown {
  if (blobs.length === 0) return 'nonexistent';
  const deletable = blobs.filter((blob) => blob.deletable);
  const certifiedEpochs = blobs.flatMap((blob) => (blob.certifiedEpoch === null ? [] : [blob.certifiedEpoch]));
  const initialCertifiedEpoch = certifiedEpochs.length ? Math.min(...certifiedEpochs) : undefined;
  const deletableCounts = { countDeletableTotal: deletable.length, countDeletableCertified: deletable.filter((blob) => blob.certifiedEpoch !== null).length };
  const permanent = blobs.filter((blob) => !blob.deletable).sort((a, b) => Number(b.certifiedEpoch !== null) - Number(a.certifiedEpoch !== null) || b.endEpoch - a.endEpoch);
  if (permanent.length === 0) return { deletable: { deletableCounts, ...(initialCertifiedEpoch === undefined ? {} : { initialCertifiedEpoch }) } };
  const [strongest] = permanent;
  return {
    permanent: {
      endEpoch: strongest.endEpoch, isCertified: strongest.certifiedEpoch !== null,
      statusEvent: { txDigest: strongest.txDigest, eventSeq: '0' }, deletableCounts,
      ...(initialCertifiedEpoch === undefined ? {} : { initialCertifiedEpoch }),
    },
  };
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(() => true, () => false);
}

function storageNode(node: NodeContext): (request: Request) => Promise<Response> {
  return async (request) => {
    const match = ROUTE.exec(new URL(request.url).pathname);
    if (!match || !isBlobId(match[1])) return failure(404, 'NOT_FOUND', 'no such endpoint');
    const [, blobId, what, pairText, sliverType, sliverStatus, deletableObject] = match;
    const blobIdBytes = bcs.u256().serialize(blobIdToU256(blobId)).toBytes();
    const blobDir = join(node.root, blobId);
    const metadataPath = join(blobDir, 'metadata');
    const epoch = node.epochNow();
    const method = request.method;

    if (what === 'status' && method === 'GET') return ok(blobStatus(await liveBlobs(node.engine, blobId, epoch)));
    if (what === 'metadata/status' && method === 'GET') return ok((await exists(metadataPath)) ? 'Stored' : 'Nonexistent');
    if (what === 'metadata' && method === 'GET') {
      const metadata = await readFile(metadataPath).catch(() => null);
      if (metadata === null) return failure(404, 'NOT_FOUND', 'the requested metadata was not found');
      return new Response(Buffer.concat([blobIdBytes, metadata]), { headers: { 'content-type': 'application/octet-stream' } });
    }
    if (what === 'metadata' && method === 'PUT') {
      if ((await liveBlobs(node.engine, blobId, epoch)).length === 0) {
        await request.body?.cancel().catch(() => {});
        return notRegistered();
      }
      const body = await readCappedBody(request, MAX_BODY_BYTES);
      if (body === null) return failure(413, 'INVALID_ARGUMENT', 'the metadata is too large');
      await mkdir(blobDir, { recursive: true });
      await writeFileAtomic(metadataPath, body);
      return ok('metadata successfully stored');
    }
    if (pairText !== undefined) {
      const pairIndex = Number(pairText);
      if (pairIndex >= node.numShards) return failure(400, 'INVALID_ARGUMENT', `sliver pair index ${pairIndex} is out of range for ${node.numShards} shards`);
      const shard = shardOfSliverPair(pairIndex, blobIdBytes, node.numShards);
      if (!node.shards.has(shard)) return failure(421, 'FAILED_PRECONDITION', `shard ${shard} of sliver pair ${pairIndex} is not assigned to this storage node in epoch ${epoch}`);
      const sliverPath = join(blobDir, `${pairIndex}.${sliverType}`);
      if (sliverStatus !== undefined && method === 'GET') return ok((await exists(sliverPath)) ? 'Stored' : 'Nonexistent');
      if (method === 'GET') {
        const sliver = await readFile(sliverPath).catch(() => null);
        if (sliver === null) return failure(404, 'NOT_FOUND', 'the requested sliver was not found');
        return new Response(sliver, { headers: { 'content-type': 'application/octet-stream' } });
      }
      if (method === 'PUT' && sliverStatus === undefined) {
        if (!(await exists(metadataPath))) {
          await request.body?.cancel().catch(() => {});
          return failure(400, 'FAILED_PRECONDITION', 'the metadata of the blob must be stored before its slivers');
        }
        const body = await readCappedBody(request, MAX_BODY_BYTES);
        if (body === null) return failure(413, 'INVALID_ARGUMENT', 'the sliver is too large');
        await writeFileAtomic(sliverPath, body);
        return ok('sliver stored successfully');
      }
    }
    if (what.startsWith('confirmation/') && method === 'GET') {
      const blobs = await liveBlobs(node.engine, blobId, epoch);
      const objectId = deletableObject ?? null;
      const registered = objectId === null ? blobs.some((blob) => !blob.deletable) : blobs.some((blob) => blob.deletable && BigInt(blob.objectId) === BigInt(objectId));
      if (!registered) return notRegistered();
      if (!(await holdsEverySliver(node, blobDir, blobIdBytes))) return failure(400, 'FAILED_PRECONDITION', 'the blob has not been fully stored at this storage node');
      const message = blobConfirmationMessage(epoch, blobIdToU256(blobId), objectId);
      const sigs = bls12_381.longSignatures;
      const signature = sigs.Signature.toBytes(sigs.sign(sigs.hash(message), node.key.secretKey));
      return ok({ signed: { serializedMessage: Buffer.from(message).toString('base64'), signature: Buffer.from(signature).toString('base64') } });
    }
    await request.body?.cancel().catch(() => {});
    return failure(405, 'INVALID_ARGUMENT', `${method} is not served here`);
  };
}

/** Both slivers of every pair whose shard this node holds, and the metadata. */
async function holdsEverySliver(node: NodeContext, blobDir: string, blobIdBytes: Uint8Array): Promise<boolean> {
  if (!(await exists(join(blobDir, 'metadata')))) return false;
  for (const shard of node.shards) {
    const pairIndex = sliverPairOfShard(shard, blobIdBytes, node.numShards);
    for (const type of ['primary', 'secondary']) if (!(await exists(join(blobDir, `${pairIndex}.${type}`)))) return false;
  }
  return true;
}
