import { sign, type KeyObject } from 'node:crypto';
import { Keypair, encodeSuiPrivateKey, type SignatureScheme } from '@mysten/sui/cryptography';
import { Ed25519PublicKey } from '@mysten/sui/keypairs/ed25519';
import { ed25519PrivateKey, ed25519PublicKeyBytes } from './key-material.ts';

/**
 * An Ed25519 keypair that signs through Node's crypto (OpenSSL) instead of the SDK's JavaScript curve: a helper
 * signs once or twice per process, and the curve's first public key and first signature cost ~0.1 s of CPU in a
 * young process (~5 ms natively), while git packs beside it. Ed25519 signatures are deterministic (RFC 8032), so it
 * signs exactly the bytes the SDK's Ed25519Keypair signs (keys.test.ts compares them); everything above `sign`
 * (intents, serialized signatures, addresses) is the SDK's own Keypair.
 */
export class NodeEd25519Keypair extends Keypair {
  readonly #secretKey: Uint8Array;
  readonly #privateKey: KeyObject;
  readonly #publicKey: Ed25519PublicKey;

  constructor(secretKey: Uint8Array) {
    super();
    this.#secretKey = Uint8Array.from(secretKey);
    this.#privateKey = ed25519PrivateKey(secretKey);
    this.#publicKey = new Ed25519PublicKey(ed25519PublicKeyBytes(this.#privateKey));
  }

  getKeyScheme(): SignatureScheme {
    return 'ED25519';
  }

  getPublicKey(): Ed25519PublicKey {
    return this.#publicKey;
  }

  getSecretKey(): string {
    return encodeSuiPrivateKey(this.#secretKey, 'ED25519');
  }

  async sign(bytes: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(sign(null, bytes, this.#privateKey));
  }
}
