/**
 * Seal, for the data keys of a private repository's packs (docs/architecture.md, Private repositories (Seal); the pack
 * format is src/core/pack-cipher.ts), or the identity key they derive from (src/core/shared-pack-key.ts). A data key is sealed under an identity (the repository's id bytes ‖ a nonce, which
 * packs share while nobody lost access: src/core/pack-identity.ts) to
 * the network's key servers with their threshold; opening it asks the key servers, which give their share of the key
 * only to an address the contract's `seal_approve` accepts (the owner, a writer or a reader). Implemented over
 * `@mysten/seal` by src/seal/.
 */

/** Seal's limit on `seal_approve` calls in one key request (the key servers refuse a PTB of more commands). */
export const MAX_KEYS_PER_REQUEST = 100;

/** Who a repository is, for the messages that tell a user why they cannot read it. */
export interface RepositoryName {
  id: string;
  name: string;
  owner: string;
}

/**
 * A provider's claim to the keys of the repository it serves under a lease: the key servers run
 * `lease_access::seal_approve_lease` instead of `repository::seal_approve`, with the signer's ProviderCap as proof.
 */
export interface LeaseGrant {
  lease: string;
  /** The signer's ProviderCap of the lease's provider (an owned object: only its holder can pass it). */
  cap: string;
}

/**
 * A claim to the keys of a lease's secrets (src/core/secrets-envelope.ts): as its provider, with the signer's
 * ProviderCap (`lease_secrets::seal_approve_lease_secrets`), or as its tenant without one
 * (`lease_secrets::seal_approve_lease_secrets_as_tenant`).
 */
export interface SecretsGrant {
  lease: string;
  cap?: string;
}

export interface KeyService {
  /**
   * Seals `dataKey` under `identity` (local work: no key-server request) and returns the Seal `EncryptedObject`
   * as lowercase hex, as the pack entry records it.
   */
  seal(identity: Uint8Array, dataKey: Uint8Array): Promise<string>;
  /** The identity a sealed key was sealed under (read locally from the `EncryptedObject`). */
  identityOf(sealedKey: string): Promise<Uint8Array>;
  /**
   * The data keys of `sealedKeys` (all of `repository`), in order. One signed session serves every request (and is
   * renewed when it expires); each distinct identity's key is asked for once per service (keys sealed under one
   * identity share it); each key server gets one request per `maxKeysPerRequest` identities, and only as many key
   * servers as the threshold needs are waited for. Resolves once the key servers have answered (throwing a typed
   * error naming the repository and its owner when they refuse the signer, and one naming the key servers when too
   * few of them answer); each key is then decrypted locally when first asked for, so a fetch decrypts the next
   * pack's key while git indexes the pack before it.
   */
  open(repository: RepositoryName, sealedKeys: readonly string[]): Promise<OpenedKeys>;
  /**
   * Starts, without waiting, what opening keys will need and that depends on no pack (a signed session key, the key
   * servers' on-chain objects), so it overlaps the reads that precede `open`. Failures surface at `open`.
   */
  prepare(): void;
  /** Keys one request to a key server can carry (Seal's limit: 100 `seal_approve` calls per transaction). */
  readonly maxKeysPerRequest: number;
  /** The lease this service asks under; undefined when it asks as a member (owner, writer, reader). */
  readonly lease?: LeaseGrant;
  /** A key service asking as the provider of `grant.lease` (the same key servers and signer). */
  forLease(grant: LeaseGrant): KeyService;
  /** A key service asking for the secrets of `grant.lease` (the same key servers and signer); `open` takes the lease's repository. */
  forLeaseSecrets(grant: SecretsGrant): KeyService;
}

/**
 * One data key per sealed key given to `open`, in the same order: each decrypts on its first call (local work, no
 * key-server request) and returns the same promise on later calls.
 */
export type OpenedKeys = readonly (() => Promise<Uint8Array>)[];
