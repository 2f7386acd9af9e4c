import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { Secp256k1Keypair } from '@mysten/sui/keypairs/secp256k1';
import { Secp256r1Keypair } from '@mysten/sui/keypairs/secp256r1';
import { decodeSuiPrivateKey } from '@mysten/sui/cryptography';
import type { Keypair } from '@mysten/sui/cryptography';
import { WalrusGitError } from '../core/errors.ts';

/**
 * The Sui keystore format, shared with the Sui CLI (`sui.keystore`): a JSON array of base64(flag ‖ 32-byte secret
 * key), flag 0 = Ed25519, 1 = Secp256k1, 2 = Secp256r1. Pure: parsing and encoding only.
 */
export class KeyFormatError extends WalrusGitError {
  constructor(source: string, problem: string) {
    super('KEY_FORMAT', `${source}: ${problem}`, { source });
  }
}

const BY_FLAG: Record<number, (secret: Uint8Array) => Keypair> = {
  0: (secret) => Ed25519Keypair.fromSecretKey(secret),
  1: (secret) => Secp256k1Keypair.fromSecretKey(secret),
  2: (secret) => Secp256r1Keypair.fromSecretKey(secret),
};

const BY_SCHEME: Record<string, number> = { ED25519: 0, Secp256k1: 1, Secp256r1: 2 };

export function parseKeystore(text: string, source: string): Keypair[] {
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch (error) {
    throw new KeyFormatError(source, `not a Sui keystore (invalid JSON: ${(error as Error).message})`);
  }
  if (!Array.isArray(entries)) throw new KeyFormatError(source, 'not a Sui keystore (expected a JSON array of base64 keys)');
  return entries.map((entry, index) => {
    if (typeof entry !== 'string') throw new KeyFormatError(source, `entry ${index} is not a base64 string`);
    const raw = Buffer.from(entry, 'base64');
    const make = BY_FLAG[raw[0] ?? -1];
    if (raw.length !== 33 || make === undefined) throw new KeyFormatError(source, `entry ${index} is not flag ‖ 32-byte key of a supported scheme (Ed25519, Secp256k1, Secp256r1)`);
    return make(raw.subarray(1));
  });
}

export function encodeKeystore(keypairs: Keypair[]): string {
  const entries = keypairs.map((keypair) => {
    const { scheme, secretKey } = decodeSuiPrivateKey(keypair.getSecretKey());
    return Buffer.concat([Buffer.of(BY_SCHEME[scheme]!), secretKey]).toString('base64');
  });
  return `${JSON.stringify(entries, null, 2)}\n`;
}

/** A `suiprivkey1…` string (Bech32, as `sui keytool export` prints) to a keypair. */
export function keypairFromSuiPrivateKey(text: string, source: string): Keypair {
  let decoded: ReturnType<typeof decodeSuiPrivateKey>;
  try {
    decoded = decodeSuiPrivateKey(text.trim());
  } catch (error) {
    throw new KeyFormatError(source, `not a Sui private key (expected suiprivkey1…: ${(error as Error).message})`);
  }
  const make = BY_FLAG[BY_SCHEME[decoded.scheme] ?? -1];
  if (make === undefined) throw new KeyFormatError(source, `unsupported key scheme ${decoded.scheme}`);
  return make(decoded.secretKey);
}
