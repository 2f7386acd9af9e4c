/** Git object ids as lowercase hex: 40 digits in SHA-1 repositories, 64 in SHA-256 ones. */

export type ObjectFormat = 'sha1' | 'sha256';

const HEX_LENGTH: Record<ObjectFormat, number> = { sha1: 40, sha256: 64 };

/** Whether `value` is a full object id in any supported format. */
export function isObjectId(value: string): boolean {
  return /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value);
}

/** The all-zero id git uses for "no object" (a ref that does not exist). */
export function nullObjectId(format: ObjectFormat): string {
  return '0'.repeat(HEX_LENGTH[format]);
}

export function isNullObjectId(value: string): boolean {
  return /^0+$/.test(value);
}

/** The object format of a hex id, from its length. */
export function formatOfObjectId(value: string): ObjectFormat {
  if (value.length === 64) return 'sha256';
  return 'sha1';
}

/** The object format a repository's on-chain hash length implies; `null` before the first ref is written. */
export function formatOfHashLength(hashLength: 0 | 20 | 32): ObjectFormat | null {
  if (hashLength === 20) return 'sha1';
  if (hashLength === 32) return 'sha256';
  return null;
}

export function isObjectFormat(value: string): value is ObjectFormat {
  return value === 'sha1' || value === 'sha256';
}
