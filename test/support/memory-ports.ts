/**
 * In-memory stand-ins for the Ledger and BlobStore ports, for unit tests of the remote use-cases only (the product
 * and the e2e tests use the real adapters over the devnet). The ledger runs every call through the contract's own
 * TypeScript twin (src/contract/model.ts) in a MemoryChain, so its rules (compare-and-swap, writers, protected refs,
 * sealed keys, ref clashes, repacks) are the contract's, and an abort is the twin's MoveAbort with the contract's
 * abort name. It reads state back through the Sui adapter's own decoders and counts calls, so tests can assert how
 * many reads and writes a use-case makes.
 */
import { createHash } from 'node:crypto';
import { WalrusGitError } from '../../src/core/errors.ts';
import { blobIdToU256 } from '../../src/core/blob-id-codec.ts';
import { Bytes, MoveString, PackEntry as PackEntryBcs, STRING_TYPE, U64, packEntryType, type RegistryValue, type RepositoryValue } from '../../src/contract/bcs.ts';
import * as model from '../../src/contract/model.ts';
import { packEntryOf, pushEventFromBcs, repositoryInfo } from '../../src/sui/ledger.ts';
import { RepositoryNotFoundError } from '../../src/sui/errors.ts';
import type { BlobStore, StoredBlob } from '../../src/ports/blob-store.ts';
import type { Ledger, PackEntry, PushEvent, PushEventPage, RefUpdate, RepositoryInfo, RepositoryLocator, TxReceipt } from '../../src/ports/ledger.ts';
import { MemoryChain } from '../contract/vectors/memory-context.ts';

const PAGE = 50;
const hexBytes = (hex: string) => Uint8Array.from(Buffer.from(hex, 'hex'));

export class MemoryLedger implements Ledger {
  /** The signer's address (tests switch identities by assigning it). */
  address: string;
  readonly chain = new MemoryChain();
  /** The twin's Repository objects by id: what a test inspects (or, to stage a state, changes) directly. */
  readonly repositories = new Map<string, RepositoryValue>();
  readonly calls: string[] = [];
  /** Runs before each push transaction (lets a test move refs under a push). */
  beforePush: (() => void) | null = null;
  /** Runs before each repack transaction (lets a test land a push under a gc). */
  beforeRepack: (() => Promise<void>) | null = null;
  /** None by default (it is optional in the port); a test sets one to watch what a push prepares. */
  preparePush?: Ledger['preparePush'];
  readonly #registry: RegistryValue;
  /** The digest of the transaction that emitted each of the chain's events, by index. */
  readonly #eventDigests: string[] = [];
  #transactions = 0;

  constructor(address: string) {
    this.address = address;
    this.#registry = model.init(this.chain.context(address));
    this.#eventDigests.length = this.chain.events.length;
  }

  /** One transaction by the current signer: the twin's call, then its events tagged with a fresh digest. */
  #transaction<T>(call: (ctx: ReturnType<MemoryChain['context']>, clockMs: bigint) => T): TxReceipt & { result: T } {
    const digest = `Tx${String(++this.#transactions).padStart(40, '0')}`;
    const result = call(this.chain.context(this.address), BigInt(Date.now()));
    while (this.#eventDigests.length < this.chain.events.length) this.#eventDigests.push(digest);
    return { digest, result };
  }

  #repo(id: string): RepositoryValue {
    const repo = this.repositories.get(id);
    if (!repo) throw new RepositoryNotFoundError(id, 'it does not exist on this network');
    return repo;
  }

  /** The repository as the port shows it, read without counting a call (for a test's assertions). */
  info(id: string): RepositoryInfo {
    return repositoryInfo(id, this.#repo(id));
  }

  /** Every pack entry, read without counting a call (for a test's assertions). */
  packs(id: string): PackEntry[] {
    const repo = this.#repo(id);
    const ctx = this.chain.context(this.address);
    return Array.from({ length: Number(repo.pack_count) }, (_, i) => packEntryOf(model.packAt(ctx, repo, BigInt(i))!));
  }

  /** Replaces a stored pack entry as it is, past every check (a malicious or broken writer's entry). */
  replacePack(id: string, index: number, pack: PackEntry): void {
    const repo = this.#repo(id);
    this.chain.tables.set(repo.packs.id, 'u64', U64.serialize(BigInt(index)).toBytes(), packEntryType(this.chain.packageId), PackEntryBcs.serialize(packEntry(pack)).toBytes());
  }

  async signerAddress(): Promise<string> {
    return this.address;
  }

  reads(): number {
    return this.calls.filter((c) => ['getRepository', 'listRefs', 'listPacks', 'resolve'].includes(c)).length;
  }

  async resolve(locator: RepositoryLocator): Promise<string> {
    this.calls.push('resolve');
    if ('id' in locator) return this.#repo(locator.id).id;
    const id = model.repositoryId(this.chain.context(this.address), this.#registry, locator.owner, locator.name);
    if (id === null) throw new RepositoryNotFoundError(`${locator.owner}/${locator.name}`, `${locator.owner} has no repository named '${locator.name}'`);
    return id;
  }

  async getRepository(id: string): Promise<RepositoryInfo> {
    this.calls.push('getRepository');
    return this.info(id);
  }

  /** Every ref, read without counting a call (for a test's assertions). */
  refsOf(id: string): Map<string, string> {
    const entries = this.chain.tables.entries(this.#repo(id).refs.id, STRING_TYPE);
    return new Map(entries.map(([key, value]) => [MoveString.parse(key), Buffer.from(Bytes.parse(value)).toString('hex')]));
  }

  /**
   * Another client's forced push landing now, by the repository's owner, each ref moved to its new id (from a
   * `beforePush` hook: a race under the use-case's own transaction).
   */
  moveRefs(id: string, moves: [string, string][]): void {
    const repo = this.#repo(id);
    const current = this.refsOf(id);
    this.#transaction((_, clockMs) => model.push(
      this.chain.context(repo.owner), repo,
      moves.map(([name]) => name),
      moves.map(([name]) => (current.has(name) ? hexBytes(current.get(name)!) : null)),
      moves.map(([, to]) => hexBytes(to)),
      moves.map(() => true),
      null,
      clockMs,
    ));
  }

  /** The owner protects a ref now (from a `beforePush` hook). */
  protectNow(id: string, ref: string): void {
    const repo = this.#repo(id);
    this.#transaction(() => model.protectRef(this.chain.context(repo.owner), repo, ref));
  }

  async listRefs(id: string): Promise<Map<string, string>> {
    this.calls.push('listRefs');
    return this.refsOf(id);
  }

  async listPacks(id: string, from: number, until?: number): Promise<PackEntry[]> {
    this.calls.push('listPacks');
    return this.packs(id).slice(from, until);
  }

  #pushes(): { event: PushEvent; cursor: string }[] {
    return this.chain.events.flatMap((event, i) => (event.type === 'events::Pushed' ? [{ event: pushEventFromBcs(event.bcs, this.#eventDigests[i]!), cursor: String(i) }] : []));
  }

  async listPushes(id: string): Promise<PushEvent[]> {
    return this.#pushes().filter(({ event }) => event.repository === id).map(({ event }) => event);
  }

  async listPushesAfter(cursor: string | null): Promise<PushEventPage> {
    const after = this.#pushes().filter((push) => cursor === null || Number(push.cursor) > Number(cursor));
    const page = after.slice(0, PAGE);
    return { events: page.map(({ event }) => event), cursor: page.at(-1)?.cursor ?? null, hasNextPage: after.length > PAGE };
  }

  async latestPushCursor(): Promise<string | null> {
    return this.#pushes().at(-1)?.cursor ?? null;
  }

  async createRepository(name: string, head = 'refs/heads/main', options: { private?: boolean } = {}): Promise<TxReceipt & { id: string }> {
    const create = options.private ? model.createPrivate : model.create;
    const { digest, result: repo } = this.#transaction((ctx) => create(ctx, this.#registry, name, head));
    this.repositories.set(repo.id, repo);
    return { id: repo.id, digest };
  }

  async push(id: string, updates: RefUpdate[], pack: PackEntry | null): Promise<TxReceipt & { seq: number }> {
    this.calls.push('push');
    this.beforePush?.();
    const repo = this.#repo(id);
    const { digest } = this.#transaction((ctx, clockMs) => model.push(
      ctx, repo,
      updates.map((u) => u.name),
      updates.map((u) => (u.old === null ? null : hexBytes(u.old))),
      updates.map((u) => (u.new === null ? null : hexBytes(u.new))),
      updates.map((u) => u.force),
      pack && packEntry(pack),
      clockMs,
    ));
    return { digest, seq: Number(repo.seq) };
  }

  async repackAt(id: string, pack: PackEntry, expectedSeq: number): Promise<TxReceipt & { seq: number }> {
    this.calls.push('repack');
    await this.beforeRepack?.();
    const repo = this.#repo(id);
    const { digest } = this.#transaction((ctx, clockMs) => model.repackAt(ctx, repo, packEntry(pack), BigInt(expectedSeq), clockMs));
    return { digest, seq: Number(repo.seq) };
  }

  #change(id: string, call: (ctx: ReturnType<MemoryChain['context']>, repo: RepositoryValue) => void): Promise<TxReceipt> {
    const repo = this.#repo(id);
    return Promise.resolve({ digest: this.#transaction((ctx) => call(ctx, repo)).digest });
  }

  addWriter(id: string, address: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.addWriter(ctx, repo, address));
  }

  removeWriter(id: string, address: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.removeWriter(ctx, repo, address));
  }

  addReader(id: string, address: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.addReader(ctx, repo, address));
  }

  removeReader(id: string, address: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.removeReader(ctx, repo, address));
  }

  protectRef(id: string, ref: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.protectRef(ctx, repo, ref));
  }

  unprotectRef(id: string, ref: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.unprotectRef(ctx, repo, ref));
  }

  setHead(id: string, ref: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.setHead(ctx, repo, ref));
  }

  transferOwnership(id: string, newOwner: string): Promise<TxReceipt> {
    return this.#change(id, (ctx, repo) => model.transferOwnership(ctx, this.#registry, repo, newOwner));
  }
}

/** The contract's pack entry for the port's, as the Sui adapter builds its `new_pack_entry` arguments. */
function packEntry(pack: PackEntry) {
  const chunks = pack.chunks.map(blobIdToU256);
  const digest = hexBytes(pack.sha256);
  return pack.sealedKey === undefined
    ? model.newPackEntry(chunks, BigInt(pack.size), digest)
    : model.newSealedPackEntry(chunks, BigInt(pack.size), digest, hexBytes(pack.sealedKey));
}

export class MemoryBlobStore implements BlobStore {
  readonly maxBlobSize: number;
  readonly blobs = new Map<string, Uint8Array>();
  writes = 0;
  reads = 0;
  /** None by default (it is optional in the port); a test sets one to watch when it is called. */
  release?: () => Promise<void>;

  constructor(maxBlobSize = 10 * 1024 * 1024) {
    this.maxBlobSize = maxBlobSize;
  }

  async write(bytes: Uint8Array): Promise<StoredBlob> {
    if (bytes.byteLength > this.maxBlobSize) throw new WalrusGitError('BLOB_TOO_LARGE', 'too large');
    this.writes++;
    const blobId = createHash('sha256').update(bytes).digest('base64url');
    this.blobs.set(blobId, bytes.slice());
    return { blobId, size: bytes.byteLength };
  }

  async read(blobId: string): Promise<Uint8Array> {
    this.reads++;
    const bytes = this.blobs.get(blobId);
    if (!bytes) throw new WalrusGitError('BLOB_NOT_FOUND', `blob ${blobId} not found`);
    return bytes.slice();
  }
}
