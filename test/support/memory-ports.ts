/**
 * In-memory stand-ins for the Ledger and BlobStore ports, for unit tests of the remote use-cases only (the product
 * and the e2e tests use the real adapters over the devnet). They keep the contract's compare-and-swap, writer and
 * protected-ref rules and count calls, so tests can assert how many reads and writes a use-case makes.
 */
import { createHash } from 'node:crypto';
import { WalrusGitError } from '../../src/core/errors.ts';
import type { BlobStore, StoredBlob } from '../../src/ports/blob-store.ts';
import type { Ledger, PackEntry, PushEvent, PushEventPage, RefUpdate, RepositoryInfo, RepositoryLocator, TxReceipt } from '../../src/ports/ledger.ts';

function abort(abortName: string): WalrusGitError {
  return new WalrusGitError('MOVE_ABORT', `aborted with ${abortName}`, { abortName });
}

interface Repo {
  info: RepositoryInfo;
  refs: Map<string, string>;
  packs: PackEntry[];
}

export class MemoryLedger implements Ledger {
  /** The signer's address (tests switch identities by assigning it). */
  address: string;
  readonly repos = new Map<string, Repo>();
  readonly calls: string[] = [];
  /** Runs before each push transaction (lets a test move refs under a push). */
  beforePush: (() => void) | null = null;
  /** None by default (it is optional in the port); a test sets one to watch what a push prepares. */
  preparePush?: Ledger['preparePush'];

  constructor(address: string) {
    this.address = address;
  }

  async signerAddress(): Promise<string> {
    return this.address;
  }

  reads(): number {
    return this.calls.filter((c) => ['getRepository', 'listRefs', 'listPacks', 'resolve'].includes(c)).length;
  }

  #repo(id: string): Repo {
    const repo = this.repos.get(id);
    if (!repo) throw new WalrusGitError('REPOSITORY_NOT_FOUND', `repository ${id} not found`, { id });
    return repo;
  }

  async resolve(locator: RepositoryLocator): Promise<string> {
    this.calls.push('resolve');
    if ('id' in locator) return this.#repo(locator.id).info.id;
    for (const repo of this.repos.values()) if (repo.info.owner === locator.owner && repo.info.name === locator.name) return repo.info.id;
    throw new WalrusGitError('REPOSITORY_NOT_FOUND', `repository ${locator.owner}/${locator.name} not found`);
  }

  async getRepository(id: string): Promise<RepositoryInfo> {
    this.calls.push('getRepository');
    const repo = this.#repo(id);
    return { ...repo.info, packCount: repo.packs.length, writers: [...repo.info.writers], readers: [...repo.info.readers], protectedRefs: [...repo.info.protectedRefs] };
  }

  async listRefs(id: string): Promise<Map<string, string>> {
    this.calls.push('listRefs');
    return new Map(this.#repo(id).refs);
  }

  async listPacks(id: string, from: number, until?: number): Promise<PackEntry[]> {
    this.calls.push('listPacks');
    return this.#repo(id).packs.slice(from, until);
  }

  async listPushes(): Promise<PushEvent[]> {
    return [];
  }

  async listPushesAfter(): Promise<PushEventPage> {
    return { events: [], cursor: null, hasNextPage: false };
  }

  async latestPushCursor(): Promise<string | null> {
    return null;
  }

  async createRepository(name: string, head = 'refs/heads/main', options: { private?: boolean } = {}): Promise<TxReceipt & { id: string }> {
    const id = `0x${String(this.repos.size + 1).padStart(64, '0')}`;
    this.repos.set(id, {
      info: { id, name, owner: this.address, writers: [], private: options.private ?? false, readers: [], protectedRefs: [], head, hashLength: 0, seq: 0, logHead: '00'.repeat(32), packCount: 0, liveFrom: 0 },
      refs: new Map(),
      packs: [],
    });
    return { id, digest: `create-${id}` };
  }

  async push(id: string, updates: RefUpdate[], pack: PackEntry | null): Promise<TxReceipt & { seq: number }> {
    this.calls.push('push');
    this.beforePush?.();
    const repo = this.#repo(id);
    const { info } = repo;
    if (this.address !== info.owner && !info.writers.includes(this.address)) throw abort('ENotWriter');
    for (const u of updates) {
      const current = repo.refs.get(u.name) ?? null;
      if (u.old === null && current !== null) throw abort('ERefExists');
      if (u.old !== current) throw abort('ERefMismatch');
      if (info.protectedRefs.includes(u.name) && this.address !== info.owner && (u.force || u.new === null)) throw abort('EProtected');
    }
    for (const u of updates) {
      if (u.new === null) repo.refs.delete(u.name);
      else {
        repo.refs.set(u.name, u.new);
        info.hashLength = u.new.length === 64 ? 32 : 20;
      }
    }
    if (pack && (pack.sealedKey !== undefined) !== info.private) throw abort(info.private ? 'ESealedKeyRequired' : 'EUnexpectedSealedKey');
    if (pack) repo.packs.push(pack);
    info.seq++;
    return { digest: `push-${info.seq}`, seq: info.seq };
  }

  /** Runs before each repack transaction (lets a test land a push under a gc). */
  beforeRepack: (() => Promise<void>) | null = null;

  async repackAt(id: string, pack: PackEntry, expectedSeq: number): Promise<TxReceipt & { seq: number }> {
    this.calls.push('repack');
    await this.beforeRepack?.();
    const repo = this.#repo(id);
    if (repo.info.seq !== expectedSeq) throw abort('EStaleRepack');
    repo.info.liveFrom = repo.packs.length;
    repo.packs.push(pack);
    repo.info.seq++;
    return { digest: `repack-${repo.info.seq}`, seq: repo.info.seq };
  }

  async addWriter(id: string, address: string): Promise<TxReceipt> {
    this.#repo(id).info.writers.push(address);
    return { digest: 'writer' };
  }

  async removeWriter(id: string, address: string): Promise<TxReceipt> {
    const info = this.#repo(id).info;
    info.writers = info.writers.filter((w) => w !== address);
    return { digest: 'writer' };
  }

  async addReader(id: string, address: string): Promise<TxReceipt> {
    const info = this.#repo(id).info;
    if (!info.private) throw abort('ENotPrivate');
    info.readers.push(address);
    return { digest: 'reader' };
  }

  async removeReader(id: string, address: string): Promise<TxReceipt> {
    const info = this.#repo(id).info;
    info.readers = info.readers.filter((r) => r !== address);
    return { digest: 'reader' };
  }

  async protectRef(id: string, ref: string): Promise<TxReceipt> {
    this.#repo(id).info.protectedRefs.push(ref);
    return { digest: 'protect' };
  }

  async unprotectRef(id: string, ref: string): Promise<TxReceipt> {
    const info = this.#repo(id).info;
    info.protectedRefs = info.protectedRefs.filter((r) => r !== ref);
    return { digest: 'unprotect' };
  }

  async setHead(id: string, ref: string): Promise<TxReceipt> {
    this.#repo(id).info.head = ref;
    return { digest: 'head' };
  }

  async transferOwnership(id: string, newOwner: string): Promise<TxReceipt> {
    this.#repo(id).info.owner = newOwner;
    return { digest: 'owner' };
  }
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
