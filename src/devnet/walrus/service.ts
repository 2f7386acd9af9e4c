import { randomBytes } from 'node:crypto';
import { toBase58 } from '@mysten/bcs';
import { computeBlobIdOfFile } from '../../walrus-protocol/blob-id.ts';
import { encodedBlobLength, maxBlobSizeForShards } from '../../walrus-protocol/encoding.ts';
import { isBlobId } from '../../core/blob-id-codec.ts';
import { DAEMON_ERROR_DOMAIN } from '../../walrus-protocol/publisher-api.ts';
import type { AlreadyCertified, ApiErrorBody, NewlyCreated } from '../../walrus-protocol/publisher-api.ts';
import { UsageError } from '../../core/errors.ts';
import { BlobDirectory, DevnetWalrusConfigError } from './blob-dir.ts';
import type { BlobRecord, NetworkParams } from './blob-dir.ts';
import { currentEpoch, isExpired } from './epochs.ts';
import type { WalrusChain } from './chain-blobs.ts';

/**
 * The devnet's Walrus: one service answering both the publisher API (PUT /v1/blobs) and the aggregator API
 * (GET /v1/blobs/{id}, …/byte-range), with the real response shapes, status codes and error bodies, real blob ids for
 * its shard count, storage epochs with expiry, and the public publishers' body limit. Mounted by the in-process
 * front (as a fetch handler, see `serviceFetch`) and by the `git walrus devnet` server.
 */
export interface WalrusService {
  handle(request: Request): Promise<Response>;
  readonly numShards: number;
  /** The current storage epoch, once the state directory is open: what the chain's Walrus system package runs on. */
  epochClock(): Promise<() => number>;
}

export interface WalrusServiceOptions {
  /** Shard count of the devnet network; blob ids are those of a real Walrus network of this size. */
  numShards?: number;
  /** Largest PUT body; larger ones are answered 413. */
  maxBodyBytes?: number;
  epochDurationMs?: number;
  maxEpochsAhead?: number;
  now?: () => number;
  /**
   * The devnet chain, where each new store leaves a Blob object that its owner extends or deletes; without one the
   * service keeps lifetimes itself (as the stand-alone service of older state directories did).
   */
  chain?: WalrusChain;
}

/** 50 shards encode a 10 MiB blob in about 0.3 s and hold blobs up to about 40 MB. */
export const DEVNET_NUM_SHARDS = 50;
/** The body limit of the public publishers. */
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Mainnet's epoch length (two weeks): a devnet blob stored for the maximum of 53 epochs lasts about two years. */
export const DEFAULT_EPOCH_DURATION_MS = 14 * 24 * 60 * 60 * 1000;
export const MAX_EPOCHS_AHEAD = 53;

/** Devnet prices in FROST (1 WAL = 10^9 FROST) per MiB of encoded size: only the shape of `cost` matters here. */
const STORAGE_PRICE_PER_MIB_EPOCH = 100_000;
const WRITE_PRICE_PER_MIB = 20_000;

export function createWalrusService(dir: string, options: WalrusServiceOptions = {}): WalrusService {
  const blobs = new BlobDirectory(dir);
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxEpochsAhead = options.maxEpochsAhead ?? MAX_EPOCHS_AHEAD;
  const stored = blobs.storedParams();
  const wanted: NetworkParams = {
    numShards: options.numShards ?? stored?.numShards ?? DEVNET_NUM_SHARDS,
    genesisMs: stored?.genesisMs ?? now(),
    epochDurationMs: options.epochDurationMs ?? stored?.epochDurationMs ?? DEFAULT_EPOCH_DURATION_MS,
  };
  if (maxBodyBytes > maxBlobSizeForShards(wanted.numShards)) {
    throw new UsageError(`a devnet of ${wanted.numShards} shards cannot hold ${maxBodyBytes}-byte blobs (at most ${maxBlobSizeForShards(wanted.numShards)}); raise numShards`, { numShards: wanted.numShards, maxBodyBytes });
  }
  const ready = blobs.initialize(wanted).then((inForce) => {
    for (const field of ['numShards', 'epochDurationMs'] as const) {
      if (inForce[field] !== wanted[field]) throw new DevnetWalrusConfigError(dir, field, inForce[field], wanted[field]);
    }
    return inForce;
  });
  ready.catch(() => {}); // reported by every request instead

  const epochNow = (params: NetworkParams) => currentEpoch(params, now());
  const chain = options.chain;

  /**
   * How long a blob lives now: as long as its longest-lived Blob object (deleted ones no longer count), permanent
   * when one of them is; undefined when it is gone.
   */
  async function lifeOf(record: BlobRecord | undefined, epoch: number): Promise<{ endEpoch: number; deletable: boolean; permanentEnd: number | undefined; objects: string[] } | undefined> {
    if (record === undefined) return undefined;
    if (chain === undefined || record.objects === undefined) {
      if (isExpired(record.endEpoch, epoch)) return undefined;
      return { endEpoch: record.endEpoch, deletable: record.deletable, permanentEnd: record.deletable ? undefined : record.endEpoch, objects: [] };
    }
    const states = await Promise.all(record.objects.map(async (id) => ({ id, state: await chain.blobObject(id) })));
    const live = states.filter((s) => s.state !== null && !isExpired(s.state.endEpoch, epoch)).map((s) => ({ id: s.id, ...s.state! }));
    if (live.length === 0) return undefined;
    const permanent = live.filter((s) => !s.deletable).map((s) => s.endEpoch);
    return {
      endEpoch: Math.max(...live.map((s) => s.endEpoch)),
      deletable: permanent.length === 0,
      permanentEnd: permanent.length === 0 ? undefined : Math.max(...permanent),
      objects: live.map((s) => s.id),
    };
  }

  async function put(request: Request, params: NetworkParams): Promise<Response> {
    const query = parseStoreQuery(new URL(request.url).searchParams, maxEpochsAhead);
    if ('problem' in query) return statusError(400, 'INVALID_ARGUMENT', 'MALFORMED_REQUEST', `the request is malformed: ${query.problem}`);
    const declared = Number(request.headers.get('content-length') ?? '0');
    if (declared > maxBodyBytes) return payloadTooLarge(request);
    const received = await blobs.receive(request.body, maxBodyBytes);
    if (received === undefined) return payloadTooLarge(request);

    const blobId = await computeBlobIdOfFile(received.path, received.size, params.numShards);
    const epoch = epochNow(params);
    const endEpoch = epoch + query.epochs;
    const encodedLength = encodedBlobLength(received.size, params.numShards);
    const before = await blobs.record(blobId);
    const life = await lifeOf(before, epoch);
    if (before !== undefined && life !== undefined && life.endEpoch >= endEpoch && !query.force && (query.deletable || !life.deletable)) {
      await blobs.discard(received.path);
      const answer: AlreadyCertified = { alreadyCertified: { blobId, event: before.event, endEpoch: life.endEpoch } };
      return Response.json(answer);
    }
    // A new store leaves a Blob object on the chain, owned by `send_object_to` or else by the publisher.
    const objectId = chain === undefined
      ? randomObjectId()
      : await chain.createBlob({ blobId, size: received.size, encodedLength, epoch, endEpoch, deletable: query.deletable }, query.sendObjectTo);
    const body = await blobs.commit<NewlyCreated>(blobId, received.path, (current) => {
      const alive = current !== undefined && (chain !== undefined ? life !== undefined : !isExpired(current.endEpoch, epoch)) ? current : undefined;
      const record: BlobRecord = {
        blobId,
        size: received.size,
        encodedLength,
        certifiedEpoch: alive?.certifiedEpoch ?? epoch,
        endEpoch: Math.max(alive?.endEpoch ?? 0, endEpoch),
        deletable: (chain === undefined ? alive?.deletable ?? true : life?.deletable ?? true) && query.deletable,
        event: alive?.event ?? { txDigest: toBase58(randomBytes(32)), eventSeq: '0' },
        ...(chain === undefined ? {} : { objects: [...(current?.objects ?? []).filter((id) => life?.objects.includes(id) ?? false), objectId] }),
      };
      const units = Math.ceil(encodedLength / (1024 * 1024));
      const answer: NewlyCreated = {
        newlyCreated: {
          blobObject: {
            id: objectId,
            registeredEpoch: epoch,
            blobId,
            size: received.size,
            encodingType: 'RS2',
            certifiedEpoch: epoch,
            storage: { id: randomObjectId(), startEpoch: epoch, endEpoch, storageSize: encodedLength },
            deletable: query.deletable,
          },
          resourceOperation: { registerFromScratch: { encodedLength, epochsAhead: query.epochs } },
          cost: units * (STORAGE_PRICE_PER_MIB_EPOCH * query.epochs + WRITE_PRICE_PER_MIB),
          ...(query.share ? { sharedBlobObject: randomObjectId() } : {}),
        },
      };
      return { record, result: answer };
    });
    return Response.json(body);
  }

  /**
   * A storage node's answers, which the devnet serves on the same origin: `GET /v1/blobs/{id}/status` (the blob's
   * lifetime as the nodes know it) and `GET /v1/health` (the current epoch). Shapes as @mysten/walrus reads them.
   */
  async function blobStatus(blobId: string, params: NetworkParams): Promise<Response> {
    const record = await blobs.record(blobId);
    const life = await lifeOf(record, epochNow(params));
    if (record === undefined || life === undefined) return Response.json({ success: { code: 200, data: 'nonexistent' } });
    const deletables = life.deletable ? Math.max(1, life.objects.length) : 0;
    const counts = { count_deletable_total: deletables, count_deletable_certified: deletables };
    const data = life.permanentEnd === undefined
      ? { deletable: { deletableCounts: counts, initialCertifiedEpoch: record.certifiedEpoch } }
      : { permanent: { deletableCounts: counts, endEpoch: life.permanentEnd, isCertified: true, statusEvent: record.event, initialCertifiedEpoch: record.certifiedEpoch } };
    return Response.json({ success: { code: 200, data } });
  }

  async function get(blobId: string, range: { start: number; length: number } | 'whole', request: Request, params: NetworkParams): Promise<Response> {
    const epoch = epochNow(params);
    const record = await blobs.record(blobId);
    if (record === undefined) return blobNotFound();
    if (record.objects !== undefined && chain !== undefined) {
      // Deleted or expired Blob objects: gone, as on Walrus (the data stays on disk for a later store of the same bytes).
      if ((await lifeOf(record, epoch)) === undefined) return blobNotFound();
    } else if (isExpired(record.endEpoch, epoch)) {
      await blobs.remove(blobId, (r) => isExpired(r.endEpoch, epochNow(params)));
      return blobNotFound();
    }
    let start = 0;
    let length = record.size;
    let status = 200;
    const headers = new Headers({ 'content-type': 'application/octet-stream', 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=86400, stale-while-revalidate=3600', etag: blobId });
    if (range !== 'whole') {
      if (range.length === 0) return statusError(400, 'INVALID_ARGUMENT', 'INVALID_BYTE_RANGE', 'invalid byte range parameters: length must be greater than 0');
      if (range.start + range.length > record.size) return statusError(400, 'INVALID_ARGUMENT', 'INVALID_BYTE_RANGE', `invalid byte range parameters: the range ${range.start}..${range.start + range.length} is outside the blob of ${record.size} bytes`);
      ({ start, length } = range);
      headers.set('etag', `${blobId}-${start}-${length}`);
    } else {
      const header = request.headers.get('range');
      if (header !== null) {
        const parsed = /^\s*bytes=(\d+)-(\d+)\s*$/.exec(header);
        if (parsed === null || Number(parsed[1]) > Number(parsed[2]) || Number(parsed[2]) >= record.size) {
          return statusError(416, 'RANGE_NOT_SATISFIABLE', 'INVALID_BYTE_RANGE', `invalid byte range parameters: unsupported or unsatisfiable range '${header}'`);
        }
        start = Number(parsed[1]);
        length = Number(parsed[2]) - start + 1;
        status = 206;
        headers.set('content-range', `bytes ${start}-${start + length - 1}/${record.size}`);
      }
    }
    const handle = await blobs.openData(blobId);
    if (handle === undefined) return blobNotFound();
    headers.set('content-length', String(length));
    return new Response(BlobDirectory.stream(handle, start, length), { status, headers });
  }

  async function handle(request: Request): Promise<Response> {
    const params = await ready;
    const url = new URL(request.url);
    const path = url.pathname.replace(/\/+$/, '');
    if (path === '/v1/blobs') {
      if (request.method !== 'PUT') return methodNotAllowed('PUT');
      return put(request, params);
    }
    if (path === '/v1/api' || path === '/status') {
      if (request.method !== 'GET') return methodNotAllowed('GET');
      return path === '/status' ? new Response('OK') : Response.json(openApi(maxBodyBytes, maxEpochsAhead));
    }
    if (path === '/v1/health') {
      if (request.method !== 'GET') return methodNotAllowed('GET');
      return Response.json({ success: { code: 200, data: { epoch: epochNow(params), nodeStatus: 'Active' } } });
    }
    const match = /^\/v1\/blobs\/([^/]+)(\/byte-range|\/status)?$/.exec(path);
    if (match === null) return new Response(null, { status: 404 });
    if (request.method !== 'GET') return methodNotAllowed('GET');
    const blobId = decodedSegment(match[1]!);
    if (blobId === undefined || !isBlobId(blobId)) return new Response(`Invalid URL: Cannot parse \`${blobId ?? match[1]}\` as a blob id`, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    if (match[2] === undefined) return get(blobId, 'whole', request, params);
    if (match[2] === '/status') return blobStatus(blobId, params);
    const start = url.searchParams.get('start');
    const length = url.searchParams.get('length');
    if (start === null || length === null || !/^\d+$/.test(start) || !/^\d+$/.test(length)) {
      return new Response('Failed to deserialize query string: `start` and `length` must be non-negative integers', { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    }
    return get(blobId, { start: Number(start), length: Number(length) }, request, params);
  }

  return { handle, numShards: wanted.numShards, epochClock: async () => { const params = await ready; return () => epochNow(params); } };
}

/**
 * A `fetch` that hands requests straight to `service` (no socket): what the in-process front gives the HTTP blob
 * store. Requests must target `baseUrl`; anything else is a programming error, answered as a network failure.
 */
export function serviceFetch(service: WalrusService, baseUrl: string): typeof fetch {
  const base = new URL(baseUrl);
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (new URL(request.url).origin !== base.origin) throw new TypeError(`fetch failed: ${request.url} is not served by the devnet Walrus at ${base.origin}`);
    return service.handle(request);
  }) as typeof fetch;
}

interface StoreQuery {
  epochs: number;
  deletable: boolean;
  force: boolean;
  share: boolean;
  sendObjectTo?: string;
}

function parseStoreQuery(params: URLSearchParams, maxEpochsAhead: number): StoreQuery | { problem: string } {
  const flag = (name: string): boolean | undefined | 'bad' => {
    const value = params.get(name);
    if (value === null) return undefined;
    if (value === 'true' || value === 'false') return value === 'true';
    return 'bad';
  };
  const epochsText = params.get('epochs') ?? '1';
  if (!/^\d+$/.test(epochsText) || Number(epochsText) < 1) return { problem: `epochs must be a positive integer, got '${epochsText}'` };
  const epochs = Number(epochsText);
  if (epochs > maxEpochsAhead) return { problem: `epochs ${epochs} exceeds the maximum of ${maxEpochsAhead} epochs ahead` };
  const permanent = flag('permanent');
  const deletable = flag('deletable');
  const force = flag('force');
  const share = flag('share');
  for (const [name, value] of Object.entries({ permanent, deletable, force, share })) {
    if (value === 'bad') return { problem: `${name} must be true or false` };
  }
  if (permanent === true && deletable === true) return { problem: 'a blob cannot be both deletable and permanent' };
  const sendObjectTo = params.get('send_object_to') ?? undefined;
  if (sendObjectTo !== undefined && !/^0x[0-9a-fA-F]{1,64}$/.test(sendObjectTo)) return { problem: `send_object_to is not a Sui address: '${sendObjectTo}'` };
  if (sendObjectTo !== undefined && share === true) return { problem: 'send_object_to and share cannot be combined' };
  const encoding = params.get('encoding_type');
  if (encoding !== null && encoding !== 'RS2') return { problem: `unsupported encoding_type '${encoding}'` };
  // Since Walrus v1.33 blobs are deletable unless `permanent=true`.
  return { epochs, deletable: permanent !== true, force: force === true, share: share === true, sendObjectTo };
}

function statusError(code: number, status: string, reason: string, message: string): Response {
  const body: ApiErrorBody = { error: { code, status, message, details: [{ '@type': 'ErrorInfo', reason, domain: DAEMON_ERROR_DOMAIN, metadata: {} }] } };
  return Response.json(body, { status: code });
}

function blobNotFound(): Response {
  return statusError(404, 'NOT_FOUND', 'BLOB_NOT_FOUND', 'the requested blob ID does not exist on Walrus, ensure that it was entered correctly');
}

/** The publishers' body limit answers as axum's does: plain text 413, without reading the rest of the body. */
function payloadTooLarge(request: Request): Response {
  request.body?.cancel().catch(() => {});
  return new Response('Failed to buffer the request body: length limit exceeded', { status: 413, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

function methodNotAllowed(allow: string): Response {
  return new Response(null, { status: 405, headers: { allow } });
}

function randomObjectId(): string {
  return `0x${randomBytes(32).toString('hex')}`;
}

function openApi(maxBodyBytes: number, maxEpochsAhead: number): unknown {
  return {
    openapi: '3.0.3',
    info: { title: 'Walrus publisher and aggregator (git-remote-walrus devnet)', version: '1' },
    paths: {
      '/v1/blobs': { put: { summary: `Store a blob (body at most ${maxBodyBytes} bytes, epochs 1..${maxEpochsAhead})`, parameters: ['epochs', 'permanent', 'deletable', 'send_object_to', 'share', 'force', 'encoding_type'].map((name) => ({ name, in: 'query' })) } },
      '/v1/blobs/{blob_id}': { get: { summary: 'Read a blob (a `Range: bytes=a-b` header answers 206)' } },
      '/v1/blobs/{blob_id}/byte-range': { get: { summary: 'Read a byte range of a blob', parameters: [{ name: 'start', in: 'query' }, { name: 'length', in: 'query' }] } },
    },
  };
}

/** A path segment with its %-escapes decoded, or undefined where they are no UTF-8 (the client's error). */
function decodedSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
