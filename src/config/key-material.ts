import { bech32 } from '@scure/base';
import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { createECDH, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { WalrusGitError } from '../core/errors.ts';

/**
 * A Sui private key as bytes, and its address, with Node's own crypto (OpenSSL) and @noble/hashes: knowing who signs
 * must not load @mysten/sui's keypairs, whose cryptography pulls in zklogin and poseidon (~15 MB, ~0.1 s per process),
 * nor a curve library (~60 ms to load and derive one public key in JavaScript, against ~2 ms natively). Only signing
 * needs the SDK's keypair (src/config/keys.ts). The formats are the SDK's and the Sui CLI's: flag ‖ 32-byte secret, as
 * Bech32 `suiprivkey1…` or in a keystore; flag 0 = Ed25519, 1 = Secp256k1, 2 = Secp256r1. Pure.
 * What to do: point the configuration at a Sui keystore or a `suiprivkey1…` key (the Sui CLI's `sui keytool export` prints one).
 */
export class KeyFormatError extends WalrusGitError {
  constructor(source: string, problem: string) {
    super('KEY_FORMAT', `${source}: ${problem}`, { source });
  }
}

/** The SDK's names for the signature schemes (`Keypair.getKeyScheme()`). */
export type KeyScheme = 'ED25519' | 'Secp256k1' | 'Secp256r1';

export interface KeyMaterial {
  scheme: KeyScheme;
  secretKey: Uint8Array;
}

const SECRET_KEY_SIZE = 32;
const SCHEMES: readonly KeyScheme[] = ['ED25519', 'Secp256k1', 'Secp256r1'];
const SUI_PRIVATE_KEY_PREFIX = 'suiprivkey';

/** PKCS#8 for an Ed25519 private key, up to its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Uint8Array.from([0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]);
/** OpenSSL's names of the ECDSA curves. */
const EC_CURVE = { Secp256k1: 'secp256k1', Secp256r1: 'prime256v1' } as const;

/** An Ed25519 secret (the 32-byte seed) as OpenSSL's key, to derive the public key and to sign with. */
export function ed25519PrivateKey(secretKey: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, secretKey]), format: 'der', type: 'pkcs8' });
}

/** The 32-byte Ed25519 public key of an OpenSSL private key. */
export function ed25519PublicKeyBytes(key: KeyObject): Uint8Array {
  // SubjectPublicKeyInfo ends with the 32-byte key.
  return Uint8Array.from(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32));
}

/** The public key as the address hashes it: Ed25519 32 bytes, the ECDSA curves 33 bytes compressed. */
function publicKeyOf({ scheme, secretKey }: KeyMaterial): Uint8Array {
  if (scheme === 'ED25519') return ed25519PublicKeyBytes(ed25519PrivateKey(secretKey));
  const curve = createECDH(EC_CURVE[scheme]);
  curve.setPrivateKey(secretKey);
  return Uint8Array.from(curve.getPublicKey(undefined, 'compressed'));
}

/** Ed25519 takes any 32 bytes; an ECDSA secret must be a scalar in [1, n), which OpenSSL checks. */
function isValidSecret(scheme: KeyScheme, secretKey: Uint8Array): boolean {
  if (secretKey.length !== SECRET_KEY_SIZE) return false;
  if (scheme === 'ED25519') return true;
  try {
    createECDH(EC_CURVE[scheme]).setPrivateKey(secretKey);
    return true;
  } catch {
    return false;
  }
}

/** The Sui address of a key: blake2b-256 of flag ‖ public key, as 0x-prefixed lowercase hex (normalized). */
export function addressOfKey(key: KeyMaterial): string {
  return `0x${bytesToHex(blake2b(withFlag(key.scheme, publicKeyOf(key)), { dkLen: 32 }))}`;
}

/** A new random Ed25519 key, what a first use of git-walrus creates. */
export function generateEd25519Key(): KeyMaterial {
  return { scheme: 'ED25519', secretKey: Uint8Array.from(randomBytes(SECRET_KEY_SIZE)) };
}

/**
 * flag ‖ 32-byte secret to a key; `undefined` when the length, the flag or the secret (a scalar outside the curve's
 * order) is not that of a supported key. The caller names what was wrong where.
 */
export function decodeFlaggedKey(bytes: Uint8Array): KeyMaterial | undefined {
  const scheme = SCHEMES[bytes[0] ?? -1];
  if (bytes.length !== 1 + SECRET_KEY_SIZE || scheme === undefined) return undefined;
  const secretKey = Uint8Array.from(bytes.subarray(1)); // a copy, and never a Buffer
  return isValidSecret(scheme, secretKey) ? { scheme, secretKey } : undefined;
}

export function encodeFlaggedKey({ scheme, secretKey }: KeyMaterial): Uint8Array {
  return withFlag(scheme, secretKey);
}

function withFlag(scheme: KeyScheme, bytes: Uint8Array): Uint8Array {
  const flagged = new Uint8Array(1 + bytes.length);
  flagged[0] = SCHEMES.indexOf(scheme);
  flagged.set(bytes, 1);
  return flagged;
}

/** A `suiprivkey1…` string (Bech32, as `sui keytool export` prints). */
export function parseSuiPrivateKey(text: string, source: string): KeyMaterial {
  const key = text.trim();
  let bytes: Uint8Array;
  try {
    const { prefix, words } = bech32.decode(key as `${string}1${string}`);
    if (prefix !== SUI_PRIVATE_KEY_PREFIX) throw new Error('invalid private key prefix');
    bytes = bech32.fromWords(words);
  } catch {
    // The library's message quotes the input: the key, less a character. Say what is wrong without any of it.
    throw new KeyFormatError(source, `not a Sui private key: ${bech32Problem(key)}`);
  }
  const material = decodeFlaggedKey(bytes);
  if (material === undefined) throw new KeyFormatError(source, `unsupported key scheme or malformed key (flag ${bytes[0]}, ${bytes.length - 1}-byte secret)`);
  return material;
}

/** Bech32's alphabet, after the `1` that ends the prefix. */
const BECH32_DATA = /^[qpzry9x8gf2tvdw0s3jn54khce6mua7l]*$/;
/** `suiprivkey1`, 52 data characters (flag ‖ 32 bytes as 5-bit words) and 6 of checksum. */
const SUI_PRIVATE_KEY_LENGTH = SUI_PRIVATE_KEY_PREFIX.length + 1 + 53 + 6;

/** Why `key` is no `suiprivkey1…`, in words that quote none of it (lengths and positions only). */
function bech32Problem(key: string): string {
  const export_ = 'copy it again from `sui keytool export --key-identity <address>`';
  if (!key.toLowerCase().startsWith(`${SUI_PRIVATE_KEY_PREFIX}1`)) return `it does not start with suiprivkey1; ${export_}`;
  if (key !== key.toLowerCase() && key !== key.toUpperCase()) return `it mixes upper- and lower-case letters; ${export_}`;
  const data = key.slice(SUI_PRIVATE_KEY_PREFIX.length + 1).toLowerCase();
  const bad = [...data].findIndex((character) => !BECH32_DATA.test(character));
  if (bad >= 0) return `character ${SUI_PRIVATE_KEY_PREFIX.length + 2 + bad} is not one Bech32 uses; ${export_}`;
  if (key.length !== SUI_PRIVATE_KEY_LENGTH) return `it is ${key.length} characters long, not ${SUI_PRIVATE_KEY_LENGTH}; ${export_}`;
  return `its checksum does not match (a character is mistyped or two are swapped); ${export_}`;
}
