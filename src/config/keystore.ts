import { jsonSyntaxProblem } from '../core/json-syntax.ts';
import { decodeFlaggedKey, encodeFlaggedKey, KeyFormatError } from './key-material.ts';
import type { KeyMaterial } from './key-material.ts';

/**
 * The Sui keystore format, shared with the Sui CLI (`sui.keystore`): a JSON array of base64(flag ‖ 32-byte secret
 * key), flag 0 = Ed25519, 1 = Secp256k1, 2 = Secp256r1. Pure: parsing and encoding only, without the SDK's keypairs.
 */
export function parseKeystore(text: string, source: string): KeyMaterial[] {
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch (error) {
    throw new KeyFormatError(source, `not a Sui keystore: ${jsonSyntaxProblem(error, text)}; expected a JSON array of base64 keys`);
  }
  if (!Array.isArray(entries)) throw new KeyFormatError(source, 'not a Sui keystore (expected a JSON array of base64 keys)');
  return entries.map((entry, index) => {
    if (typeof entry !== 'string') throw new KeyFormatError(source, `entry ${index} is not a base64 string`);
    const key = decodeFlaggedKey(Buffer.from(entry, 'base64'));
    if (key === undefined) throw new KeyFormatError(source, `entry ${index} is not flag ‖ 32-byte key of a supported scheme (Ed25519, Secp256k1, Secp256r1)`);
    return key;
  });
}

export function encodeKeystore(keys: KeyMaterial[]): string {
  const entries = keys.map((key) => Buffer.from(encodeFlaggedKey(key)).toString('base64'));
  return `${JSON.stringify(entries, null, 2)}\n`;
}
