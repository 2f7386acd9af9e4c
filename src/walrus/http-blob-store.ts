import type { BlobLifetimes, BlobStore, StoredBlob } from '../ports/blob-store.ts';
import type { Log } from '../core/log.ts';
import { silentLog } from '../core/log.ts';
import { releaseBlobIdWorkers, warmBlobIdEncoder } from '../walrus-protocol/blob-id.ts';
import { encodedBlobLength } from '../walrus-protocol/encoding.ts';
import { uploadWithLocalId } from './checked-upload.ts';
import { InvalidBlobIdError, isBlobId } from '../core/blob-id-codec.ts';
import {
  BlobBlockedError,
  BlobNotFoundError,
  BlobTooLargeError,
  NoPublisherError,
  WalrusRequestError,
  WalrusUnavailableError,
} from './errors.ts';
import { errorReasonOf, storedBlobOf } from '../walrus-protocol/publisher-api.ts';
import { DEFAULT_RETRY, withRetry } from '../core/retry.ts';
import { mapOrdered } from '../core/ordered-parallel.ts';
import type { RetryPolicy } from '../core/retry.ts';
import { connectionProblem, DEFAULT_TIMEOUT_MS, describeUnreachable } from '../core/service-unreachable.ts';

/** The Walrus services this store talks to, as its errors name them. */
export type WalrusService = 'Walrus publisher' | 'Walrus aggregator' | 'Walrus storage node';

export const DEFAULT_MAX_BLOB_SIZE = 10 * 1024 * 1024;
/** The most a Walrus network stores ahead: git history should outlive the default of one epoch by far. */
export const DEFAULT_EPOCHS = 53;

export interface HttpBlobStoreOptions {
  /** Publisher base URL (writes); without one the store only reads. */
  publisherUrl?: string;
  /** Aggregator base URL (reads). */
  aggregatorUrl: string;
  /** Shard count of the network, for the local blob id. */
  numShards: number;
  maxBlobSize?: number;
  epochs?: number;
  /** Store blobs as permanent (not deletable by their owner before they expire). Default true. */
  permanent?: boolean;
  /**
   * Address that receives the Blob object (so it can extend it, or delete a deletable one); without it the publisher
   * keeps or burns it. A function is asked at the first write (the user's key is loaded only then).
   */
  sendObjectTo?: string | (() => Promise<string>);
  fetch?: typeof fetch;
  log?: Log;
  retry?: RetryPolicy;
  /** Per-request timeout; a real publisher takes seconds per blob (it encodes and stores on every node). */
  timeoutMs?: number;
  /** How long an aggregator or storage node has to start answering (the publisher gets `timeoutMs`). */
  answerTimeoutMs?: number;
  /** What to check when a service does not answer (the settings that name its URL). */
  unreachableHelp?: (service: WalrusService) => string;
  /**
   * A storage node's base URL (`/v1/blobs/{id}/status`, `/v1/health`), for blob lifetimes; without one they are
   * unknown. The devnet serves both APIs on one origin.
   */
  storageNodeUrl?: string;
}

/**
 * A BlobStore over the Walrus publisher/aggregator HTTP API. Writes PUT the bytes while the blob id is computed
 * locally in a worker, and refuse the answer unless both ids agree. Transient failures (network errors, timeouts,
 * 429, 5xx) are retried with backoff; other answers are final and typed.
 */
export class HttpBlobStore implements BlobStore {
  readonly maxBlobSize: number;
  readonly numShards: number;
  private readonly publisherUrl: string | undefined;
  private readonly aggregatorUrl: string;
  private readonly epochs: number;
  private readonly permanent: boolean;
  private readonly sendObjectTo: string | (() => Promise<string>) | undefined;
  private readonly fetch: typeof fetch;
  private readonly log: Log;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly answerTimeoutMs: number;
  private readonly unreachableHelp: (service: WalrusService) => string;
  private readonly storageNodeUrl: string | undefined;

  constructor(options: HttpBlobStoreOptions) {
    this.publisherUrl = options.publisherUrl;
    this.aggregatorUrl = options.aggregatorUrl;
    this.numShards = options.numShards;
    this.maxBlobSize = options.maxBlobSize ?? DEFAULT_MAX_BLOB_SIZE;
    this.epochs = options.epochs ?? DEFAULT_EPOCHS;
    this.permanent = options.permanent ?? true;
    this.sendObjectTo = options.sendObjectTo;
    this.fetch = options.fetch ?? globalThis.fetch;
    this.log = options.log ?? silentLog;
    this.retry = options.retry ?? DEFAULT_RETRY;
    this.timeoutMs = options.timeoutMs ?? 300_000;
    this.answerTimeoutMs = Math.min(options.answerTimeoutMs ?? DEFAULT_TIMEOUT_MS, this.timeoutMs);
    this.unreachableHelp = options.unreachableHelp ?? (() => 'check its URL and that this machine reaches it');
    this.storageNodeUrl = options.storageNodeUrl;
  }

  async write(bytes: Uint8Array, options: { epochs?: number; signal?: AbortSignal } = {}): Promise<StoredBlob> {
    if (bytes.byteLength > this.maxBlobSize) throw new BlobTooLargeError(bytes.byteLength, this.maxBlobSize);
    if (this.publisherUrl === undefined) throw new NoPublisherError();
    const url = endpoint(this.publisherUrl, 'v1/blobs');
    url.searchParams.set('epochs', String(options.epochs ?? this.epochs));
    if (this.permanent) url.searchParams.set('permanent', 'true');
    const sendTo = typeof this.sendObjectTo === 'function' ? await this.sendObjectTo() : this.sendObjectTo;
    if (sendTo !== undefined) url.searchParams.set('send_object_to', sendTo);

    const stored = await uploadWithLocalId(bytes, this.numShards, () => withRetry(async (attempt) => {
      const init: RequestInit = { method: 'PUT', body: streamOf(bytes), duplex: 'half', headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.byteLength) } };
      const response = await this.request(url, init, options.signal, { service: 'Walrus publisher', attempt });
      if (!response.ok) throw await failure(response, { size: bytes.byteLength, maxBlobSize: this.maxBlobSize });
      const answer = await readJson(response);
      const blob = storedBlobOf(answer);
      if (blob !== undefined) return blob;
      if (typeof answer === 'object' && answer !== null && 'error' in answer) {
        throw new WalrusUnavailableError(`the Walrus publisher could not store the blob: ${JSON.stringify((answer as { error: unknown }).error)}`, { url: url.href });
      }
      throw new WalrusRequestError(`the Walrus publisher answered neither newlyCreated nor alreadyCertified: ${JSON.stringify(answer).slice(0, 300)}`, { url: url.href });
    }, this.retryOptions('store', options.signal)));
    this.log.debug(`walrus: ${stored.created ? 'stored' : 'already certified'} ${stored.blobId} (${bytes.byteLength} bytes, until epoch ${stored.endEpoch})`);
    return {
      blobId: stored.blobId, size: bytes.byteLength, endEpoch: Number.isFinite(stored.endEpoch) ? stored.endEpoch : undefined,
      encodedSize: encodedBlobLength(bytes.byteLength, this.numShards),
    };
  }

  prepareWrites(): void {
    warmBlobIdEncoder(this.numShards);
  }

  release(): Promise<void> {
    return releaseBlobIdWorkers();
  }

  async read(blobId: string, options: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    if (!isBlobId(blobId)) throw new InvalidBlobIdError(blobId);
    const url = endpoint(this.aggregatorUrl, `v1/blobs/${blobId}`);
    return withRetry(async (attempt) => {
      const response = await this.request(url, { method: 'GET' }, options.signal, { service: 'Walrus aggregator', attempt });
      if (!response.ok) throw await failure(response, { blobId });
      try {
        return await bodyBytes(response);
      } catch (error) {
        throw new WalrusUnavailableError(`reading blob ${blobId} from the Walrus aggregator was interrupted: ${messageOf(error)}`, { url: url.href }, error);
      }
    }, this.retryOptions('read', options.signal));
  }

  async lifetimes(blobIds: readonly string[], options: { signal?: AbortSignal } = {}): Promise<BlobLifetimes | null> {
    const node = this.storageNodeUrl;
    if (node === undefined) return null;
    const ask = (path: string) => withRetry(async (attempt) => {
      const url = endpoint(node, path);
      const response = await this.request(url, { method: 'GET' }, options.signal, { service: 'Walrus storage node', attempt });
      if (!response.ok) throw await failure(response, {});
      return ((await readJson(response)) as { success?: { data?: unknown } }).success?.data;
    }, this.retryOptions('status', options.signal));
    for (const blobId of blobIds) if (!isBlobId(blobId)) throw new InvalidBlobIdError(blobId);
    // The epoch and the statuses are asked side by side: each is a round trip to the node of its own.
    const healthAnswer = ask('v1/health');
    healthAnswer.catch(() => {}); // awaited below, after the statuses, which may fail first
    const endEpochs = new Map<string, number | null | undefined>();
    const unique = [...new Set(blobIds)];
    const statuses = mapOrdered(unique, STATUS_REQUESTS_IN_FLIGHT, (blobId) => ask(`v1/blobs/${blobId}/status`));
    let index = 0;
    for await (const answer of statuses) {
      const status = answer as 'nonexistent' | { permanent?: { endEpoch: number }; deletable?: unknown; invalid?: unknown };
      endEpochs.set(unique[index++]!, status === 'nonexistent' || typeof status !== 'object' || status.invalid ? null : status.permanent?.endEpoch);
    }
    const health = (await healthAnswer) as { epoch?: unknown } | undefined;
    if (typeof health?.epoch !== 'number') throw new WalrusRequestError(`the Walrus storage node's health answer names no epoch: ${JSON.stringify(health).slice(0, 200)}`, { url: node });
    return { epoch: health.epoch, endEpochs };
  }

  private retryOptions(what: string, signal: AbortSignal | undefined) {
    return {
      policy: this.retry,
      signal,
      onRetry: (error: unknown, attempt: number, delayMs: number) => this.log.debug(`walrus: ${what} attempt ${attempt} failed (${messageOf(error)}); retrying in ${Math.round(delayMs)} ms`),
    };
  }

  /**
   * One HTTP exchange; network failures and timeouts become retryable errors, the caller's abort stays an abort. The
   * answer must start within the service's deadline (a publisher's, `timeoutMs`, is long: it stores before it
   * answers); the whole exchange, body included, within `timeoutMs`.
   */
  private async request(url: URL, init: RequestInit, signal: AbortSignal | undefined, { service, attempt }: { service: WalrusService; attempt: number }): Promise<Response> {
    const answerMs = service === 'Walrus publisher' ? this.timeoutMs : this.answerTimeoutMs;
    const answer = new AbortController();
    const timer = setTimeout(() => answer.abort(), answerMs);
    const signals = [answer.signal, AbortSignal.timeout(this.timeoutMs), ...(signal ? [signal] : [])];
    try {
      return await this.fetch(url, { ...init, signal: AbortSignal.any(signals) });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      const problem = answer.signal.aborted ? { problem: 'timeout' as const } : connectionProblem(error);
      const unreachable = { service: `the ${service}`, url: url.origin, timeoutMs: answerMs, attempts: attempt, help: this.unreachableHelp(service), ...problem };
      throw new WalrusUnavailableError(`${describeUnreachable(unreachable, `${init.method === 'PUT' ? 'storing' : 'reading'} ${url.pathname}`)}`, { ...unreachable, url: url.href }, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Blob statuses asked of the storage node at once (`lifetimes`): one small GET each. */
const STATUS_REQUESTS_IN_FLIGHT = 8;

/** Pieces of a request body: small, so what the HTTP client buffers or copies of a 10 MiB chunk stays small. */
const BODY_PIECE = 256 * 1024;

/**
 * The bytes as a request body that the HTTP client reads in place: fetch copies a buffer body whole (and refuses one
 * in shared memory), which would double the memory of every chunk in flight.
 */
function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + BODY_PIECE));
      offset += BODY_PIECE;
    },
  });
}

/**
 * A response body read into one buffer of the announced length: collecting it first and joining at the end (what
 * `arrayBuffer()` does) holds each blob twice.
 */
async function bodyBytes(response: Response): Promise<Uint8Array> {
  const announced = Number(response.headers.get('content-length'));
  // A compressed body is decoded on the way, so its content-length does not give the size.
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  if (response.body === null || encoded || !Number.isSafeInteger(announced) || announced <= 0) return new Uint8Array(await response.arrayBuffer());
  const bytes = new Uint8Array(announced);
  let filled = 0;
  for await (const piece of response.body as AsyncIterable<Uint8Array>) {
    if (filled + piece.byteLength > announced) throw new Error(`the body is longer than its content-length ${announced}`);
    bytes.set(piece, filled);
    filled += piece.byteLength;
  }
  if (filled !== announced) throw new Error(`the body ended after ${filled} of ${announced} bytes`);
  return bytes;
}

function endpoint(base: string, path: string): URL {
  return new URL(path, base.endsWith('/') ? base : `${base}/`);
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new WalrusRequestError(`the Walrus service answered with something other than JSON: ${text.slice(0, 200)}`, { url: response.url });
  }
}

/** Maps an unsuccessful HTTP answer to the typed error the caller can act on. */
async function failure(response: Response, context: { blobId?: string; size?: number; maxBlobSize?: number }): Promise<Error> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const message = (body as { error?: { message?: string } } | undefined)?.error?.message ?? text.slice(0, 300);
  const data = { status: response.status, reason: errorReasonOf(body), url: response.url };
  if (response.status === 404 && context.blobId !== undefined) return new BlobNotFoundError(context.blobId);
  if (response.status === 413) return new BlobTooLargeError(context.size ?? 0, context.maxBlobSize ?? 0, true);
  if (response.status === 451) return new BlobBlockedError(context.blobId ?? 'being stored');
  if (response.status === 429 || response.status === 408 || response.status >= 500) {
    return new WalrusUnavailableError(`the Walrus service answered ${response.status}: ${message || response.statusText}`, data);
  }
  return new WalrusRequestError(`the Walrus service refused the request (${response.status}): ${message || response.statusText}`, data);
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
  }
  return String(error);
}
