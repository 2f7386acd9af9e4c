import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { PackIntegrityError } from './errors.ts';

/**
 * The integrity check of reads: aggregators are untrusted, and the chain records the sha256 of each whole pack
 * (all its chunks, in order). Feed the chunks as they arrive, then `verify` before the pack is used.
 */
export class PackDigest {
  private readonly hash: Hash = createHash('sha256');
  private bytes = 0;

  update(chunk: Uint8Array): void {
    this.hash.update(chunk);
    this.bytes += chunk.byteLength;
  }

  /** Throws PackIntegrityError unless the bytes so far hash to `expectedSha256` (hex). */
  verify(expectedSha256: string, data: Record<string, unknown> = {}): void {
    const actual = this.hash.digest('hex');
    if (actual !== expectedSha256.toLowerCase()) throw new PackIntegrityError(expectedSha256, actual, { size: this.bytes, ...data });
  }
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
