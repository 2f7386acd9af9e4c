/**
 * A pack's sealed key when its identity is shared (docs/architecture.md, Private repositories (Seal), One key per
 * shared identity). Opening a Seal-encrypted key costs a reader two pairings per key server share, and one pusher's
 * packs under one identity would otherwise each carry their own. So under a shared identity Seal encrypts the
 * pusher's *identity key* instead (derived from the same signature as the identity, so the same pusher gets the same
 * key while the access state holds), and each pack's data key is derived from it and a salt of the pack's own. A
 * reader opens the identity key once and derives every pack's data key from it; the key id tells which packs that is.
 * The pack entry records, as its sealed key:
 *
 *     "wgsk" ‖ version (u8, 1) ‖ key id (32) ‖ salt (32) ‖ Seal EncryptedObject of the identity key (under the identity)
 *
 *     identity key = HMAC-SHA256(key = the pusher's signature over the access state, "git-walrus identity key v1")
 *     key id       = HMAC-SHA256(identity key, "git-walrus identity key id v1")
 *     data key     = HMAC-SHA256(identity key, "git-walrus pack data key v1" ‖ salt)
 *
 * The identity (the Seal id) is the sha256 of the same signature, which reveals nothing of the key. A pack under a
 * random identity keeps the plain form: the EncryptedObject of its own data key (Seal's first byte is its version, 0).
 * Who can read is unchanged: whoever gets the identity's key from the key servers opens every pack under it, as before.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { WalrusGitError } from './errors.ts';

const MAGIC = [0x77, 0x67, 0x73, 0x6b]; // "wgsk": walrus git shared key
const VERSION = 1;
export const KEY_ID_BYTES = 32;
export const SALT_BYTES = 32;
const PREFIX_BYTES = MAGIC.length + 1 + KEY_ID_BYTES + SALT_BYTES;

/** A pack's sealed key on chain that cannot be read. Whoever pushed the pack wrote it: nobody else can mend it. */
export class MalformedSealedKeyError extends WalrusGitError {
  constructor(reason: string) {
    super('SEALED_KEY_MALFORMED', `a pack's sealed key on chain is malformed (${reason}); the pack cannot be decrypted: the pusher wrote a broken key`, { reason });
  }
}

/**
 * A pack's sealed key in a shared-key form newer than this helper's: a newer git-remote-walrus pushed it.
 * What to do: upgrade git-remote-walrus on this machine; the pack is intact and a newer helper reads it.
 */
export class UnsupportedSealedKeyError extends WalrusGitError {
  constructor(version: number) {
    super('SEALED_KEY_UNSUPPORTED', `a pack's sealed key is of shared-key form ${version}, newer than this git-remote-walrus reads (${VERSION}): upgrade git-remote-walrus to read the repository`, { version, supported: VERSION });
  }
}

/** A pack's sealed key, read: either Seal's object of the data key itself, or of a shared identity key. */
export type SealedPackKey =
  | { shared: false; sealed: string }
  | { shared: true; keyId: Uint8Array; salt: Uint8Array; sealed: string };

/** The identity key of the pusher whose signature over the access state is `signature`. */
export function identityKeyOfSignature(signature: Uint8Array): Uint8Array {
  return hmac(signature, 'git-walrus identity key v1');
}

/** The public name of an identity key, which a reader checks the key it opened against. */
export function identityKeyId(identityKey: Uint8Array): Uint8Array {
  return hmac(identityKey, 'git-walrus identity key id v1');
}

/** The data key of the pack whose salt is `salt`, under `identityKey`. */
export function sharedDataKey(identityKey: Uint8Array, salt: Uint8Array): Uint8Array {
  if (salt.length !== SALT_BYTES) throw new TypeError(`a pack key salt has ${SALT_BYTES} bytes, not ${salt.length}`);
  return hmac(identityKey, 'git-walrus pack data key v1', salt);
}

/** A fresh salt, so every pack under one identity key gets a data key of its own. */
export function newSalt(): Uint8Array {
  return new Uint8Array(randomBytes(SALT_BYTES));
}

/** The sealed key a pack entry records for a pack under `identityKey` with `salt` (`sealed`: Seal's object of the identity key, hex). */
export function encodeSharedSealedKey(identityKey: Uint8Array, salt: Uint8Array, sealed: string): string {
  return Buffer.concat([Uint8Array.from([...MAGIC, VERSION]), identityKeyId(identityKey), salt]).toString('hex') + sealed;
}

/** Reads a pack's sealed key (lowercase hex, as the pack entry records it). */
export function parseSealedPackKey(hex: string): SealedPackKey {
  const start = Buffer.from(hex.slice(0, 2 * PREFIX_BYTES), 'hex');
  if (!MAGIC.every((byte, i) => start[i] === byte)) return { shared: false, sealed: hex };
  if (start.length <= MAGIC.length) throw new MalformedSealedKeyError('a shared key cut short');
  if (start[MAGIC.length]! > VERSION) throw new UnsupportedSealedKeyError(start[MAGIC.length]!);
  if (start[MAGIC.length] !== VERSION) throw new MalformedSealedKeyError(`shared-key form ${start[MAGIC.length]}, which no version wrote`);
  if (start.length < PREFIX_BYTES) throw new MalformedSealedKeyError('a shared key cut short');
  return {
    shared: true,
    keyId: Uint8Array.from(start.subarray(MAGIC.length + 1, MAGIC.length + 1 + KEY_ID_BYTES)),
    salt: Uint8Array.from(start.subarray(MAGIC.length + 1 + KEY_ID_BYTES, PREFIX_BYTES)),
    sealed: hex.slice(2 * PREFIX_BYTES),
  };
}

function hmac(key: Uint8Array, label: string, data: Uint8Array = new Uint8Array()): Uint8Array {
  return new Uint8Array(createHmac('sha256', key).update(label).update(data).digest());
}
