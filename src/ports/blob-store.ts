/**
 * Immutable blob storage (Walrus). Blobs are pack chunks of at most `maxBlobSize` bytes, so a caller never holds
 * more than one chunk per concurrent transfer in memory. Implemented by src/walrus/ (publisher/aggregator HTTP API,
 * or the @mysten/walrus SDK).
 */
export interface BlobStore {
  /** Largest body the store accepts (10 MiB on public publishers). */
  readonly maxBlobSize: number;
  /**
   * Stores `bytes` for `epochs` storage epochs. The blob id is computed locally while the upload runs and compared
   * with the service's answer; a difference throws BlobIdMismatchError and nothing is recorded.
   */
  write(bytes: Uint8Array, options?: { epochs?: number; signal?: AbortSignal }): Promise<StoredBlob>;
  /**
   * Sets up what writes need (the local blob-id encoder) in the background, for a caller that writes soon but has
   * other work first. Optional.
   */
  prepareWrites?(): void;
  /**
   * Frees what writes keep between calls (the local blob-id encoders, tens of MB), for a caller done writing for
   * now; the next write sets them up again. Optional: a store that keeps nothing has none.
   */
  release?(): Promise<void>;
  /**
   * How long blobs stay stored, as Walrus's storage nodes confirm it, with the current Walrus epoch. Optional, and
   * null where the store cannot ask (a public aggregator serves no blob status).
   */
  lifetimes?(blobIds: readonly string[], options?: { signal?: AbortSignal }): Promise<BlobLifetimes | null>;
  /**
   * Reads a whole blob; throws BlobNotFoundError when it does not exist or has expired. `contentChecked`: the caller
   * checks the bytes against a digest the chain records (a pack's sha256) before it uses any of them, so a store
   * may leave out a costlier proof of its own (the SDK store's recomputation of the blob id).
   */
  read(blobId: string, options?: { signal?: AbortSignal; contentChecked?: boolean }): Promise<Uint8Array>;
}

export interface StoredBlob {
  blobId: string;
  size: number;
  /** Last Walrus epoch (exclusive) the blob is stored for, when the service reports it. */
  endEpoch?: number;
  /** Bytes the network stores (and charges) for the blob once encoded, when the store knows its encoding. */
  encodedSize?: number;
}

export interface BlobLifetimes {
  /** The current Walrus epoch. */
  epoch: number;
  /**
   * Per blob id: the epoch from which it is gone (exclusive end), null when the nodes do not hold it (expired or
   * never stored), undefined when they hold it with no fixed end they report (a deletable blob).
   */
  endEpochs: Map<string, number | null | undefined>;
}
