/**
 * The repository ledger: what the remote use-cases need from the chain. Implemented over `client.core` of
 * `@mysten/sui` by src/sui/ (the same code talks to the embedded devnet, a `git walrus devnet` server, testnet and
 * mainnet). Git object ids travel as lowercase hex; Sui ids and addresses as 0x-prefixed 64-hex strings.
 */

/** One pack as recorded on chain (Move `PackEntry`). */
export interface PackEntry {
  /** Walrus blob ids of the pack's chunks, in order (URL-safe base64, 43 chars). */
  chunks: string[];
  /** Total pack size in bytes (sum of the chunks). */
  size: number;
  /** sha256 of the whole pack, lowercase hex. */
  sha256: string;
  /**
   * Private repositories only, lowercase hex (Move `sealed_key`): the Seal `EncryptedObject` of the pack's data key, or
   * under a shared identity that of the identity key the data key derives from (src/core/shared-pack-key.ts).
   */
  sealedKey?: string;
}

/** One ref change in a push. `old: null` = the ref must not exist yet; `new: null` = delete. */
export interface RefUpdate {
  name: string;
  old: string | null;
  new: string | null;
  force: boolean;
}

export interface RepositoryInfo {
  id: string;
  name: string;
  owner: string;
  writers: string[];
  /**
   * Private repositories (docs/architecture.md, Private repositories (Seal)): packs are encrypted; the owner, the
   * writers and `readers` may read them.
   */
  private: boolean;
  /** Who besides the owner and the writers may read a private repository (always empty for a public one). */
  readers: string[];
  protectedRefs: string[];
  /** The ref HEAD points to, e.g. `refs/heads/main`. */
  head: string;
  /** 20 (SHA-1) or 32 (SHA-256) once the first ref is written; 0 before. */
  hashLength: 0 | 20 | 32;
  /** Number of pushes (and repacks) so far. */
  seq: number;
  /** Hash chain over every push, hex (docs/architecture.md, The push log). */
  logHead: string;
  packCount: number;
  /** First pack still needed after a repack. */
  liveFrom: number;
}

/** A push as the chain recorded it (Move `Pushed` event), for `git walrus log` and `verify`. */
export interface PushEvent {
  repository: string;
  seq: number;
  /** 0 = push, 1 = repack. */
  kind: number;
  sender: string;
  timestampMs: number;
  updates: RefUpdate[];
  pack: PackEntry | null;
  /** Index of the pack in `packs`, when the push carried one. */
  packIndex: number | null;
  liveFrom: number;
  /** log_head after this push, hex. */
  logHead: string;
  txDigest: string;
}

/** One page of the `Pushed` events of every repository of the package, in chain order (the GitOps chain watcher). */
export interface PushEventPage {
  events: PushEvent[];
  /** Where the next page starts (the last event's cursor); null when the page is empty. */
  cursor: string | null;
  hasNextPage: boolean;
}

export interface TxReceipt {
  digest: string;
}

/** Names a repository as a user writes it in a URL: by object id, or by owner address and name. */
export type RepositoryLocator = { id: string } | { owner: string; name: string };

export interface Ledger {
  /**
   * The active signer's address. Loading the key is deferred to the first call (or the first write), so sessions
   * that only read never load the signing code; a missing or unreadable key is reported here, typed.
   */
  signerAddress(): Promise<string>;
  /**
   * Starts loading what signing a transaction needs (the key, the SDK's signing and transaction code) in the
   * background, for a caller that knows a write is coming after slower work (a push, before its upload): the write
   * then does not wait for it. Never fails: a problem surfaces at the write. Optional.
   */
  prepareWrites?(): void;
  /**
   * Tells the ledger, ahead of time, the `push` that will follow: the same updates and a pack of the same shape
   * (chunk count, size, sealed key; its blob ids and digest may be stand-ins, as the upload is still under way).
   * The ledger may do now, in the background, what that push needs and does not depend on the blob ids (a dry run
   * for the gas budget). Never fails: a problem surfaces at the push. Optional.
   */
  preparePush?(id: string, updates: RefUpdate[], pack: PackEntry | null): void;
  /** Resolves a locator to the repository object id; throws RepositoryNotFoundError. */
  resolve(locator: RepositoryLocator): Promise<string>;
  getRepository(id: string): Promise<RepositoryInfo>;
  /** Every ref of the repository, name → hex id (paged underneath). */
  listRefs(id: string): Promise<Map<string, string>>;
  /**
   * Packs with index in [from, until), in push order; `until` is the pack count the caller read with the repository
   * (which spares the ledger reading it again), the repository's count now when absent.
   */
  listPacks(id: string, from: number, until?: number): Promise<PackEntry[]>;
  /** Every push event in ascending seq order (paged underneath). */
  listPushes(id: string): Promise<PushEvent[]>;
  /** One page (one chain read) of every repository's pushes strictly after `cursor` (null: from the first). */
  listPushesAfter(cursor: string | null): Promise<PushEventPage>;
  /** The cursor of the newest push of any repository (null when none): where following starts without replaying history. */
  latestPushCursor(): Promise<string | null>;

  /** `private`: packs must be encrypted and only the owner, writers and readers get their keys (`create_private`). */
  createRepository(name: string, head?: string, options?: { private?: boolean }): Promise<TxReceipt & { id: string }>;
  /** One transaction: all updates or none. Aborts become typed errors (see src/sui/errors.ts). */
  push(id: string, updates: RefUpdate[], pack: PackEntry | null): Promise<TxReceipt & { seq: number }>;
  /**
   * Compare-and-swap repack (`repack_at`): appends the consolidated `pack` and makes it the first live one, only if the
   * repository is still at `expectedSeq` (the seq whose refs the pack was built from). Otherwise nothing changes and
   * it throws an error whose `data.abortName` is `EStaleRepack`.
   */
  repackAt(id: string, pack: PackEntry, expectedSeq: number): Promise<TxReceipt & { seq: number }>;
  addWriter(id: string, address: string): Promise<TxReceipt>;
  removeWriter(id: string, address: string): Promise<TxReceipt>;
  /** Private repositories only: who besides the owner and writers may read. */
  addReader(id: string, address: string): Promise<TxReceipt>;
  removeReader(id: string, address: string): Promise<TxReceipt>;
  protectRef(id: string, ref: string): Promise<TxReceipt>;
  unprotectRef(id: string, ref: string): Promise<TxReceipt>;
  setHead(id: string, ref: string): Promise<TxReceipt>;
  transferOwnership(id: string, newOwner: string): Promise<TxReceipt>;
}
