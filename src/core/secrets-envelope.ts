/**
 * The stored form of a lease's secrets (docs/architecture.md, Secrets sealed to a lease): the whole set of one
 * version, sealed like a private repository's packs (envelope encryption, src/core/pack-cipher.ts):
 *
 *     "wgss" ‖ u16be(sealed key length) ‖ sealed data key (a Seal EncryptedObject) ‖ the document encrypted as a pack
 *     identity = the lease's id bytes ‖ "lease-secrets" ‖ u64le(version)
 *     document = JSON {"format": "walrus-git-secrets/1", "secrets": [{name, value, version, setAtMs}…]}, padded with
 *                spaces to a multiple of 1 KiB, so the stored size tells little of the values' lengths
 *
 * Only the data key goes through Seal; the identity names the lease and version, so a provider's key for one lease
 * or version opens no other. Pure apart from the random data key.
 */
import { secretIdPrefix } from '../contract/lease-secrets-model.ts';
import { newDataKey, PackDecryptor, PackEncryptor } from './pack-cipher.ts';
import { SecretsEnvelopeError } from './lease-secrets.ts';
import type { SecretEntry } from './lease-secrets.ts';

const MAGIC = [0x77, 0x67, 0x73, 0x73]; // "wgss": walrus git sealed secrets
const FORMAT = 'walrus-git-secrets/1';
const PAD = 1024;

/** The Seal identity of version `version` of lease `leaseId`'s secrets. */
export function secretsIdentity(leaseId: string, version: number): Uint8Array {
  const prefix = secretIdPrefix(leaseId);
  const identity = new Uint8Array(prefix.length + 8);
  identity.set(prefix);
  new DataView(identity.buffer).setBigUint64(prefix.length, BigInt(version), true);
  return identity;
}

/** Seals a set of secrets: `seal` seals the fresh data key under the identity (the key service's `seal`). */
export async function sealSecrets(secrets: readonly SecretEntry[], identity: Uint8Array, seal: (identity: Uint8Array, dataKey: Uint8Array) => Promise<string>): Promise<Uint8Array> {
  const dataKey = newDataKey();
  const sealedKey = Buffer.from(await seal(identity, dataKey), 'hex');
  const json = JSON.stringify({ format: FORMAT, secrets });
  const document = Buffer.alloc(Math.ceil((Buffer.byteLength(json) + 1) / PAD) * PAD, ' ');
  document.write(json, 'utf8');
  const encryptor = new PackEncryptor(dataKey, identity);
  const header = Buffer.alloc(MAGIC.length + 2);
  header.set(MAGIC);
  header.writeUInt16BE(sealedKey.length, MAGIC.length);
  return Buffer.concat([header, sealedKey, ...encryptor.update(document), encryptor.end()]);
}

/** The sealed data key of a stored set (hex, as the key service takes it), and the encrypted document after it. */
export function parseSecretsEnvelope(blobId: string, stored: Uint8Array): { sealedKey: string; body: Uint8Array } {
  if (stored.length < MAGIC.length + 2 || !MAGIC.every((b, i) => stored[i] === b)) throw new SecretsEnvelopeError(blobId, 'it is not a sealed set of secrets');
  const length = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).readUInt16BE(MAGIC.length);
  const start = MAGIC.length + 2;
  if (stored.length < start + length) throw new SecretsEnvelopeError(blobId, 'it is cut short');
  return { sealedKey: Buffer.from(stored.subarray(start, start + length)).toString('hex'), body: stored.subarray(start + length) };
}

/** Decrypts the document with its data key (identity: the one the key was sealed under) and reads the secrets. */
export function openSecrets(blobId: string, body: Uint8Array, dataKey: Uint8Array, identity: Uint8Array): SecretEntry[] {
  const plain = new PackDecryptor(dataKey, identity, `sealed secrets ${blobId}`).all(body);
  let document: { format?: unknown; secrets?: unknown };
  try {
    document = JSON.parse(Buffer.from(plain).toString('utf8')) as typeof document;
  } catch {
    throw new SecretsEnvelopeError(blobId, 'its document is not JSON'); // never quote it: it holds values
  }
  if (document.format !== FORMAT || !Array.isArray(document.secrets)) throw new SecretsEnvelopeError(blobId, `its document is not ${FORMAT}`);
  return document.secrets.map((entry: Record<string, unknown>) => {
    if (typeof entry.name !== 'string' || typeof entry.value !== 'string' || typeof entry.version !== 'number' || typeof entry.setAtMs !== 'number') {
      throw new SecretsEnvelopeError(blobId, 'an entry is malformed');
    }
    return { name: entry.name, value: entry.value, version: entry.version, setAtMs: entry.setAtMs };
  });
}
