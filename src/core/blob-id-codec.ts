import { WalrusGitError } from './errors.ts';

/**
 * The one codec for Walrus blob ids. A blob id is a u256; its text form is the u256's BCS encoding (32 bytes,
 * little-endian) in URL-safe base64 without padding: 43 characters (`blobIdFromInt` of @mysten/walrus).
 * The contract stores the u256 itself. Pure: no I/O, no SDK.
 */

const BLOB_ID_BYTES = 32;
const BLOB_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const U256_MAX = (1n << 256n) - 1n;

/**
 * A string that is not a Walrus blob id (URL-safe base64 of 32 bytes, 43 characters).
 * What to do: pass the blob id as it was printed (`git walrus artifact pack`, `log`, `show`): 43 characters.
 */
export class InvalidBlobIdError extends WalrusGitError {
  constructor(blobId: string) {
    super('INVALID_BLOB_ID', `'${blobId}' is not a Walrus blob id (43 characters of URL-safe base64)`, { blobId });
  }
}

export function isBlobId(text: string): boolean {
  // 43 characters carry 258 bits: the last one must leave the two bits past byte 32 at zero (canonical encoding).
  return BLOB_ID_PATTERN.test(text) && Buffer.from(text, 'base64url').toString('base64url') === text;
}

/** The text form of the 32 little-endian bytes of a blob id. */
export function blobIdFromBytes(bytes: Uint8Array): string {
  if (bytes.byteLength !== BLOB_ID_BYTES) throw new RangeError(`a blob id has ${BLOB_ID_BYTES} bytes, not ${bytes.byteLength}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** The u256 the contract stores for a blob id. */
export function blobIdToU256(blobId: string): bigint {
  if (!isBlobId(blobId)) throw new InvalidBlobIdError(blobId);
  const bytes = Buffer.from(blobId, 'base64url');
  let value = 0n;
  for (let i = BLOB_ID_BYTES - 1; i >= 0; i -= 1) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

/** The blob id of a u256 read from the contract. */
export function u256ToBlobId(value: bigint): string {
  if (value < 0n || value > U256_MAX) throw new RangeError(`${value} is not a u256`);
  const bytes = new Uint8Array(BLOB_ID_BYTES);
  let rest = value;
  for (let i = 0; i < BLOB_ID_BYTES; i += 1) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return blobIdFromBytes(bytes);
}
