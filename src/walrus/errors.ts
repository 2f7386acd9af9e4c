import { WalrusGitError } from '../core/errors.ts';

/**
 * Typed failures of the Walrus blob stores (HTTP publisher/aggregator and SDK). Only `WalrusUnavailableError` is
 * retryable: everything else is an answer that repeating the request would not change.
 */

/**
 * The blob does not exist on the network, or its storage epochs have run out.
 * What to do: check that the network's aggregator is the one the blob was stored on; a blob whose storage ran out must be stored again (`git walrus extend` renews live packs before they expire).
 */
export class BlobNotFoundError extends WalrusGitError {
  constructor(blobId: string, detail = 'it was never stored or its storage epochs have ended') {
    super('BLOB_NOT_FOUND', `Walrus blob ${blobId} is not available: ${detail}`, { blobId });
  }
}

/** The blob is larger than the store (or the publisher) accepts in one body. */
export class BlobTooLargeError extends WalrusGitError {
  constructor(size: number, maxBlobSize: number, byPublisher = false) {
    super(
      'BLOB_TOO_LARGE',
      byPublisher
        ? `the Walrus publisher refused a blob of ${size} bytes as too large (413), although the store is configured for ${maxBlobSize}; this publisher's body limit is lower`
        : `blob of ${size} bytes exceeds the store's limit of ${maxBlobSize} bytes; split it into chunks of at most that size`,
      { size, maxBlobSize, byPublisher },
    );
  }
}

/** The service reported another blob id than the one computed locally from the bytes: nothing is recorded. */
export class BlobIdMismatchError extends WalrusGitError {
  constructor(expected: string, reported: string, numShards: number) {
    super(
      'BLOB_ID_MISMATCH',
      `the Walrus service reported blob id ${reported}, but the bytes have id ${expected} for ${numShards} shards; ` +
        'the service is faulty or the configured shard count is wrong (check the network settings)',
      { expected, reported, numShards },
    );
  }
}

/**
 * The Walrus network the SDK writes to has another shard count than the settings say: every size and id the helper
 * derives from the setting would be wrong for it. Refused before anything is paid.
 */
export class ShardCountMismatchError extends WalrusGitError {
  constructor(network: number, configured: number) {
    super(
      'WALRUS_SHARD_COUNT_MISMATCH',
      `the Walrus network has ${network} shards, but the settings say ${configured}; nothing was stored (check the network settings)`,
      { network, configured },
    );
  }
}

/** A transient fault: network error, timeout, 5xx, 429. Retried with backoff; reported when retries run out. */
export class WalrusUnavailableError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}, cause?: unknown) {
    super('WALRUS_UNAVAILABLE', message, data, { retryable: true, cause });
  }
}

/**
 * The service refused the request (a 4xx other than 404/413, or an answer that does not parse).
 * What to do: read the publisher's or aggregator's answer in the message; check the network's Walrus endpoints.
 */
export class WalrusRequestError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}, cause?: unknown) {
    super('WALRUS_REQUEST_REJECTED', message, data, { cause });
  }
}

/**
 * The blob exists but the network refuses to serve it (blocked, HTTP 451).
 * What to do: read it through another aggregator (the network's settings), or push the content again so that it is stored anew.
 */
export class BlobBlockedError extends WalrusGitError {
  constructor(blobId: string) {
    super('BLOB_BLOCKED', `Walrus blob ${blobId} is blocked by the storage nodes or the aggregator (unavailable for legal reasons)`, { blobId });
  }
}

/**
 * The bytes read back do not hash to the sha256 recorded on chain: the aggregator served other data.
 * What to do: fetch again, or set another aggregator for the network.
 */
export class PackIntegrityError extends WalrusGitError {
  constructor(expectedSha256: string, actualSha256: string, data: Record<string, unknown> = {}) {
    super('PACK_INTEGRITY', `pack data from Walrus has sha256 ${actualSha256}, but the chain records ${expectedSha256}; the aggregator served corrupt or foreign data`, { expectedSha256, actualSha256, ...data });
  }
}

/** The store cannot write: no publisher is configured for this network. */
export class NoPublisherError extends WalrusGitError {
  constructor() {
    super('WALRUS_NO_PUBLISHER', 'no Walrus publisher is configured, so this store can only read; set GIT_WALRUS_PUBLISHER_URL or use the upload relay (GIT_WALRUS_UPLOAD_RELAY_URL)');
  }
}
