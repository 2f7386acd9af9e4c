import { WalrusClient, BlobBlockedError as SdkBlobBlockedError, BlobNotCertifiedError, NoBlobStatusReceivedError, NoVerifiedBlobStatusReceivedError, RetryableWalrusClientError } from '@mysten/walrus';
import type { WriteBlobStep } from '@mysten/walrus';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import type { Signer } from '@mysten/sui/cryptography';
import type { BlobLifetimes, BlobStore, StoredBlob } from '../ports/blob-store.ts';
import type { Log } from '../core/log.ts';
import { silentLog } from '../core/log.ts';
import { computeBlobId, releaseBlobIdWorkers } from '../walrus-protocol/blob-id.ts';
import { assembleFromSourceColumns, sourceColumnCount } from '../walrus-protocol/source-columns.ts';
import { InvalidBlobIdError, isBlobId } from '../core/blob-id-codec.ts';
import { BlobBlockedError, BlobNotFoundError, BlobTooLargeError, ShardCountMismatchError, WalrusRequestError, WalrusUnavailableError } from './errors.ts';
import { DEFAULT_EPOCHS, DEFAULT_MAX_BLOB_SIZE } from './http-blob-store.ts';
import { withRetry, DEFAULT_RETRY } from '../core/retry.ts';
import { mapOrdered } from '../core/ordered-parallel.ts';
import type { RetryPolicy } from '../core/retry.ts';
import { messageOf } from '../core/errors.ts';
import { storageNodeFetch } from './storage-node-fetch.ts';

/** The part of `WalrusClient` this store uses: the seam where tests put a fake. */
export interface WalrusSdkClient {
  writeBlob(options: {
    blob: Uint8Array;
    deletable: boolean;
    epochs: number;
    signer: Signer;
    owner?: string;
    signal?: AbortSignal;
    onStep?: (step: WriteBlobStep) => void | Promise<void>;
    resume?: WriteBlobStep;
  }): Promise<{ blobId: string; blobObject: { storage: { end_epoch: number } } }>;
  readBlob(options: { blobId: string; signal?: AbortSignal }): Promise<Uint8Array>;
  /** The blob's metadata from one storage node (its length is what a read needs from it). */
  getBlobMetadata(options: { blobId: string; signal?: AbortSignal }): Promise<{ metadata: { V1: { unencoded_length: string | number | bigint } } }>;
  /** Secondary sliver `index` (BCS `SliverData`) from the node that holds its shard. */
  getSecondarySliver(options: { blobId: string; index: number; signal?: AbortSignal }): Promise<Uint8Array>;
  /** The blob's status as a quorum of storage nodes confirms it (what `walrus blob-status` prints). */
  getVerifiedBlobStatus(options: { blobId: string; signal?: AbortSignal }): Promise<SdkBlobStatus>;
  /** The Walrus system state on Sui: its committee's epoch is the current storage epoch. */
  systemState(): Promise<{ committee: { epoch: number; n_shards: number } }>;
}

/** The statuses `getVerifiedBlobStatus` answers (the storage nodes' `/v1/blobs/{id}/status`, tagged by `type`). */
export type SdkBlobStatus =
  | { type: 'nonexistent' }
  | { type: 'invalid' }
  | { type: 'permanent'; endEpoch: number }
  | { type: 'deletable' };

/** Blobs whose status is asked at once: each question goes to every storage node of the committee. */
const STATUS_PARALLELISM = 4;

export interface SdkBlobStoreOptions {
  client: WalrusSdkClient;
  /**
   * Pays SUI gas and WAL for storage; owns the Blob objects unless `owner` is given. A loader is called at the first
   * write, so a store that only reads never loads the key.
   */
  signer: Signer | (() => Promise<Signer>);
  numShards: number;
  maxBlobSize?: number;
  epochs?: number;
  /** Permanent by default: a pack must stay readable until it expires. */
  deletable?: boolean;
  owner?: string;
  log?: Log;
  retry?: RetryPolicy;
}

/**
 * A BlobStore over the @mysten/walrus SDK: the client encodes and writes slivers to the storage nodes itself (or
 * through an upload relay) and pays with the user's key, so it works where no publisher is offered (mainnet).
 * The blob id is the SDK's, computed here from these bytes by the same encoder the helper's own check would run: a
 * second computation (as the HTTP store makes of a publisher's answer) would only double a write's CPU. What it would
 * also check, the shard count the settings give, is compared with the network's before anything is paid.
 */
export class SdkBlobStore implements BlobStore {
  readonly maxBlobSize: number;
  readonly numShards: number;
  private readonly client: WalrusSdkClient;
  private readonly signer: () => Promise<Signer>;
  private readonly epochs: number;
  private readonly deletable: boolean;
  private readonly owner: string | undefined;
  private readonly log: Log;
  private readonly retry: RetryPolicy;

  constructor(options: SdkBlobStoreOptions) {
    this.client = options.client;
    const signer = options.signer;
    let loaded: Promise<Signer> | null = null;
    this.signer = typeof signer === 'function' ? () => (loaded ??= signer()) : async () => signer;
    this.numShards = options.numShards;
    this.maxBlobSize = options.maxBlobSize ?? DEFAULT_MAX_BLOB_SIZE;
    this.epochs = options.epochs ?? DEFAULT_EPOCHS;
    this.deletable = options.deletable ?? false;
    this.owner = options.owner;
    this.log = options.log ?? silentLog;
    this.retry = options.retry ?? DEFAULT_RETRY;
  }

  /**
   * The store for testnet or mainnet: `WalrusClient` over the given Sui client, writing through the upload relay
   * when one is given (one HTTP upload instead of ~2200 storage-node requests); storage-node requests (reads, and
   * writes without a relay) go over a few kept-alive connections per node (storage-node-fetch.ts).
   */
  static forNetwork(options: Omit<SdkBlobStoreOptions, 'client'> & { suiClient: ClientWithCoreApi; network: 'testnet' | 'mainnet'; uploadRelayUrl?: string; maxTipMist?: number }): SdkBlobStore {
    const client = new WalrusClient({
      suiClient: options.suiClient,
      network: options.network,
      storageNodeClientOptions: { fetch: storageNodeFetch() },
      ...(options.uploadRelayUrl === undefined ? {} : { uploadRelay: { host: options.uploadRelayUrl, sendTip: { max: options.maxTipMist ?? 10_000_000 } } }),
    });
    return new SdkBlobStore({ ...options, client });
  }

  /**
   * The store for a devnet that emulates storage nodes (`git walrus devnet --storage-nodes N`): the SDK's direct mode
   * over the committee its System and Staking objects name, reached over plain HTTP on 127.0.0.1.
   */
  static forDevnet(options: Omit<SdkBlobStoreOptions, 'client'> & { suiClient: ClientWithCoreApi; committee: { systemObjectId: string; stakingObjectId: string } }): SdkBlobStore {
    const client = new WalrusClient({
      suiClient: options.suiClient,
      packageConfig: { systemObjectId: options.committee.systemObjectId, stakingPoolId: options.committee.stakingObjectId },
      storageNodeUrlScheme: 'http',
      storageNodeClientOptions: { fetch: storageNodeFetch() },
    });
    return new SdkBlobStore({ ...options, client });
  }

  async write(bytes: Uint8Array, options: { epochs?: number; signal?: AbortSignal } = {}): Promise<StoredBlob> {
    if (bytes.byteLength > this.maxBlobSize) throw new BlobTooLargeError(bytes.byteLength, this.maxBlobSize);
    // A retry resumes from the last completed step, so a blob registered (and paid for) is not registered again.
    let lastStep: WriteBlobStep | undefined;
    const signer = await this.signer();
    const written = await withRetry(async () => {
      try {
        const { committee } = await this.client.systemState();
        if (committee.n_shards !== this.numShards) throw new ShardCountMismatchError(committee.n_shards, this.numShards);
        return await this.client.writeBlob({
          blob: bytes,
          deletable: this.deletable,
          epochs: options.epochs ?? this.epochs,
          signer,
          owner: this.owner,
          signal: options.signal,
          resume: lastStep,
          onStep: (step) => {
            lastStep = step;
          },
        });
      } catch (error) {
        throw mapSdkError(error, undefined, options.signal);
      }
    }, { policy: this.retry, signal: options.signal, onRetry: (error, attempt) => this.log.debug(`walrus sdk: store attempt ${attempt} failed: ${(error as Error).message}`) });
    return { blobId: written.blobId, size: bytes.byteLength, endEpoch: written.blobObject.storage.end_epoch };
  }

  /** The network's state the SDK's write starts from, read while git packs. */
  prepareWrites(): void {
    this.client.systemState().catch(() => {});
  }

  release(): Promise<void> {
    return releaseBlobIdWorkers();
  }

  /**
   * The blobs' lifetimes as the storage nodes confirm them (a verified quorum per blob) and the epoch of the system
   * object on Sui. A deletable-only blob has no end the nodes report (its Blob objects say it: BlobObjects).
   */
  async lifetimes(blobIds: readonly string[], options: { signal?: AbortSignal } = {}): Promise<BlobLifetimes> {
    for (const blobId of blobIds) if (!isBlobId(blobId)) throw new InvalidBlobIdError(blobId);
    const unique = [...new Set(blobIds)];
    const ask = <T>(what: () => Promise<T>, blobId?: string) => withRetry(async () => {
      try {
        return await what();
      } catch (error) {
        throw mapSdkError(error, blobId, options.signal);
      }
    }, { policy: this.retry, signal: options.signal });
    const { committee } = await ask(() => this.client.systemState());
    const endEpochs = new Map<string, number | null | undefined>();
    const statuses = mapOrdered(unique, STATUS_PARALLELISM, (blobId) => ask(() => this.client.getVerifiedBlobStatus({ blobId, signal: options.signal }), blobId).catch((error: unknown) => {
      // A quorum of nodes that know nothing of the blob: gone (expired, deleted) or never stored.
      if (error instanceof BlobNotFoundError) return { type: 'nonexistent' } as const;
      throw error;
    }));
    let index = 0;
    for await (const status of statuses) {
      endEpochs.set(unique[index++]!, status.type === 'permanent' ? status.endEpoch : status.type === 'deletable' ? undefined : null);
    }
    return { epoch: committee.epoch, endEpochs };
  }

  /**
   * The blob from its source columns (source-columns.ts): no Reed-Solomon decoding, which at 1000 shards costs
   * seconds of CPU as soon as one source sliver is missing from the SDK's random choice. The bytes are proven by
   * their blob id, computed in the blob-id worker (off this thread), unless the caller checks them against a digest
   * the chain records (`contentChecked`, a pack's sha256). A column that does not come (a node down) or does not fit,
   * or bytes whose id differs, fall back to the SDK's own read: any third of the slivers, decoded, and the id
   * recomputed (InconsistentBlobError, a WalrusRequestError here, when they do not match).
   */
  async read(blobId: string, options: { signal?: AbortSignal; contentChecked?: boolean } = {}): Promise<Uint8Array> {
    if (!isBlobId(blobId)) throw new InvalidBlobIdError(blobId);
    const { signal } = options;
    return withRetry(async () => {
      try {
        const fromColumns = await this.readSourceColumns(blobId, signal);
        if (fromColumns !== null && (options.contentChecked === true || (await computeBlobId(fromColumns.bytes, fromColumns.numShards)) === blobId)) return fromColumns.bytes;
        if (fromColumns !== null) this.log.debug(`walrus sdk: blob ${blobId} read from its source columns has another id; reading it through the SDK`);
        return await this.client.readBlob({ blobId, signal });
      } catch (error) {
        throw mapSdkError(error, blobId, signal);
      }
    }, { policy: this.retry, signal });
  }

  /** The blob's bytes and the network's shard count, or null when a source column cannot be had as it should be. */
  private async readSourceColumns(blobId: string, signal: AbortSignal | undefined): Promise<{ bytes: Uint8Array; numShards: number } | null> {
    // A blob no quorum of nodes knows, or a blocked one, is answered here as the SDK's read would.
    const [{ metadata }, { committee }] = await Promise.all([this.client.getBlobMetadata({ blobId, signal }), this.client.systemState()]);
    const numShards = committee.n_shards;
    const stop = new AbortController();
    const either = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
    try {
      const columns = await Promise.all(Array.from({ length: sourceColumnCount(numShards) }, (_, index) => this.client.getSecondarySliver({ blobId, index, signal: either })));
      const bytes = assembleFromSourceColumns(columns, Number(metadata.V1.unencoded_length), numShards);
      if (bytes === null) this.log.debug(`walrus sdk: a source column of blob ${blobId} is malformed; reading it through the SDK`);
      return bytes === null ? null : { bytes, numShards };
    } catch (error) {
      signal?.throwIfAborted();
      stop.abort();
      this.log.debug(`walrus sdk: a source column of blob ${blobId} did not come (${messageOf(error)}); reading it through the SDK`);
      return null;
    }
  }
}

/** SDK errors to ours: a missing blob is final; the SDK's retryable class stays retryable; the rest is a refusal. */
export function mapSdkError(error: unknown, blobId: string | undefined, signal?: AbortSignal): unknown {
  if (signal?.aborted) return signal.reason;
  if (error instanceof ShardCountMismatchError) return error;
  const message = messageOf(error);
  // The SDK reports a blob that no storage node knows (never stored, or expired) as "not certified".
  if (blobId !== undefined && error instanceof BlobNotCertifiedError) return new BlobNotFoundError(blobId, message);
  if (error instanceof SdkBlobBlockedError) return new BlobBlockedError(blobId ?? 'being stored');
  // Too few storage nodes answered a status (or agreed on one): an outage, not an answer.
  if (error instanceof RetryableWalrusClientError || error instanceof NoBlobStatusReceivedError || error instanceof NoVerifiedBlobStatusReceivedError) {
    return new WalrusUnavailableError(`Walrus storage nodes: ${message}`, { blobId }, error);
  }
  if (error instanceof TypeError) return new WalrusUnavailableError(`Walrus is unreachable: ${message}`, { blobId }, error);
  return new WalrusRequestError(`Walrus refused the operation: ${message}`, { blobId }, error);
}
