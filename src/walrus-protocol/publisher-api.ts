/**
 * Wire shapes of the Walrus publisher/aggregator HTTP API (walrus-service `client/daemon/routes.rs`; JSON in
 * camelCase). Shared by the HTTP blob store (which parses them) and the devnet service (which produces them), so
 * both sides speak one definition.
 *
 * PUT /v1/blobs?epochs=&permanent=&deletable=&send_object_to=&share=&force=   body: the raw bytes
 *   200 { newlyCreated: { blobObject, resourceOperation, cost } } | { alreadyCertified: { blobId, event|object, endEpoch } }
 *   400 malformed request, 413 body over the publisher's limit, 451 blocked, 5xx/504 transient
 * GET /v1/blobs/{blobId}                                   200 bytes | 404 BLOB_NOT_FOUND
 * GET /v1/blobs/{blobId}/byte-range?start=&length=         200 bytes | 404 | 400 INVALID_BYTE_RANGE
 * Errors are AIP-193 JSON: { error: { code, status, message, details: [{ '@type': 'ErrorInfo', reason, domain, metadata }] } }
 */

export interface StorageResource {
  id: string;
  startEpoch: number;
  /** Exclusive: the blob is readable up to epoch endEpoch - 1. */
  endEpoch: number;
  storageSize: number;
}

export interface BlobObject {
  id: string;
  registeredEpoch: number;
  blobId: string;
  size: number;
  encodingType: 'RS2';
  certifiedEpoch: number | null;
  storage: StorageResource;
  deletable: boolean;
}

export interface NewlyCreated {
  newlyCreated: {
    blobObject: BlobObject;
    resourceOperation: { registerFromScratch: { encodedLength: number; epochsAhead: number } } | { reuseStorage: { encodedLength: number } } | { reuseRegistration: { encodedLength: number } };
    cost: number;
    sharedBlobObject?: string;
  };
}

export interface AlreadyCertified {
  alreadyCertified: {
    blobId: string;
    event?: { txDigest: string; eventSeq: string };
    object?: string;
    endEpoch: number;
  };
}

export type BlobStoreResult = NewlyCreated | AlreadyCertified | { markedInvalid: { blobId: string; event: unknown } } | { error: { blobId?: string; failurePhase: string; errorMsg: string } };

export interface ApiErrorBody {
  error: {
    code: number;
    status: string;
    message: string;
    details: { '@type': 'ErrorInfo'; reason: string; domain: string; metadata: Record<string, unknown> }[];
  };
}

/** The error domain of publisher/aggregator daemons. */
export const DAEMON_ERROR_DOMAIN = 'daemon.walrus.space';

/** What a store needs from a publisher answer; undefined when the answer has none of the success shapes. */
export function storedBlobOf(result: unknown): { blobId: string; endEpoch: number; created: boolean } | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const created = (result as Partial<NewlyCreated>).newlyCreated?.blobObject;
  if (created !== undefined && typeof created.blobId === 'string') {
    return { blobId: created.blobId, endEpoch: Number(created.storage?.endEpoch), created: true };
  }
  const certified = (result as Partial<AlreadyCertified>).alreadyCertified;
  if (certified !== undefined && typeof certified.blobId === 'string') {
    return { blobId: certified.blobId, endEpoch: Number(certified.endEpoch), created: false };
  }
  return undefined;
}

/** The machine-readable reason of an AIP-193 error body, if the body is one. */
export function errorReasonOf(body: unknown): string | undefined {
  const details = (body as Partial<ApiErrorBody> | undefined)?.error?.details;
  return Array.isArray(details) ? details.find((d) => d?.['@type'] === 'ErrorInfo')?.reason : undefined;
}
