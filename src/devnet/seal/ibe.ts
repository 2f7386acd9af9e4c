/**
 * The key server's half of Seal's cryptography (MystenLabs/seal `crates/crypto`: ibe.rs, elgamal.rs), on BLS12-381
 * with @noble/curves. Boneh–Franklin IBE: the master secret `s` is a scalar, the public key `s·G2` (96-byte
 * compressed G2), and the key of an identity `s·H(id)` in G1 with H = RFC 9380 hash-to-G1 (XMD:SHA-256, SSWU, RO,
 * DST `BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_`, noble's default) over `"SUI-SEAL-IBE-BLS12381-00" ‖ id`. A key
 * leaves the server ElGamal-encrypted in G1 to the request's one-time key.
 */
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bytesToNumberBE, numberToBytesBE } from '@noble/curves/utils.js';
import { concatBytes } from '../../core/bytes.ts';

const { G1, G2 } = bls12_381;
const Fr = G1.Point.Fn;
const utf8 = new TextEncoder();
const DST_IDENTITY = utf8.encode('SUI-SEAL-IBE-BLS12381-00');
const DST_POP = utf8.encode('SUI-SEAL-IBE-BLS12381-POP-00');

export type G1Point = ReturnType<typeof G1.Point.fromBytes>;

/** A uniformly random non-zero scalar. */
function randomScalar(): bigint {
  return bytesToNumberBE(bls12_381.utils.randomSecretKey());
}

/** A fresh master secret key: 32 bytes, big-endian (the encoding of the key server's `MASTER_KEY`). */
export function generateMasterKey(): Uint8Array {
  return numberToBytesBE(randomScalar(), 32);
}

/** The master secret as a scalar; throws on bytes that are not a non-zero scalar below the group order. */
export function masterScalar(masterKey: Uint8Array): bigint {
  if (masterKey.length !== 32) throw new TypeError('a Seal master key is 32 bytes');
  const s = bytesToNumberBE(masterKey);
  if (s === 0n || s >= Fr.ORDER) throw new TypeError('a Seal master key must be a non-zero scalar below the group order');
  return s;
}

/** The IBE public key `s·G2`, 96-byte compressed, as the `KeyServer` object carries it. */
export function masterPublicKey(masterKey: Uint8Array): Uint8Array {
  return G2.Point.BASE.multiply(masterScalar(masterKey)).toBytes();
}

/** H(id) of the full identity (package id ‖ inner id). */
export function hashIdentity(fullId: Uint8Array): G1Point {
  return G1.hashToCurve(concatBytes([DST_IDENTITY, fullId])) as unknown as G1Point;
}

/** The user secret key of a full identity: `s·H(id)`. */
export function extract(masterKey: Uint8Array, fullId: Uint8Array): G1Point {
  return hashIdentity(fullId).multiply(masterScalar(masterKey));
}

/** Parses the request's ElGamal key (48-byte compressed G1); throws on anything that is not a valid G1 point. */
export function parseEncryptionKey(bytes: Uint8Array): G1Point {
  if (bytes.length !== 48) throw new TypeError('an ElGamal key is a 48-byte G1 point');
  const point = G1.Point.fromBytes(bytes);
  point.assertValidity();
  return point;
}

/** ElGamal in G1 to `encKey`: `(r·G1, r·encKey + key)` for a fresh r, both 48-byte compressed. */
export function encryptToKey(encKey: G1Point, key: G1Point): [Uint8Array, Uint8Array] {
  const r = randomScalar();
  return [G1.Point.BASE.multiply(r).toBytes(), encKey.multiply(r).add(key).toBytes()];
}

/**
 * Proof of possession for `/v1/service`: `s·H_G1("SUI-SEAL-IBE-BLS12381-POP-00" ‖ pk ‖ key server object id)`,
 * a BLS short signature the client checks against the on-chain public key.
 */
export function proofOfPossession(masterKey: Uint8Array, keyServerId: Uint8Array): Uint8Array {
  const message = concatBytes([DST_POP, masterPublicKey(masterKey), keyServerId]);
  return G1.hashToCurve(message).multiply(masterScalar(masterKey)).toBytes();
}
