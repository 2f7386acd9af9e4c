import { open, mkdir, truncate, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { withFileLock } from '../../fs/atomic.ts';
import { InternalError, WalrusGitError } from '../../core/errors.ts';
import { loadObject, ownerAddress, type ChainObject, type StoredObject } from './objects.ts';

/**
 * The chain's state directory: an append-only write-ahead log (`chain.log`, one JSON commit per line, fsynced)
 * replayed into memory. Several processes share one directory: every commit happens under `lock` after catching up
 * with the log, so commits are totally ordered; readers only ever parse complete lines, so a process killed
 * mid-append leaves a torn tail that is invisible to readers and cut off by the next writer.
 */

export interface StoredEvent { packageId: string; module: string; sender: string; type: string; bcs: string }

export interface TxRecord {
  digest: string;
  /** base64 BCS `TransactionData` as signed. */
  txBytes: string;
  signatures: string[];
  /** base64 BCS `TransactionEffects` (V2). */
  effects: string;
  events: StoredEvent[];
  timestampMs: number;
  checkpoint: number;
  /** Type of every object the transaction wrote or deleted. */
  objectTypes: Record<string, string>;
  balanceChanges: { address: string; coinType: string; amount: string }[];
}

export interface GenesisInfo {
  /** Base58 digest of the genesis checkpoint: the chain identifier. */
  chainId: string;
  packageId: string;
  registryId: string;
  registryInitialVersion: string;
  /** suiprivkey of the faucet's address (a devnet-only key made at genesis). */
  faucetKey: string;
  timestampMs: number;
  /** The market module's shared Market and the AdminCap (owned by the faucet's address), once it is published. */
  marketId?: string;
  adminCapId?: string;
}

/**
 * How the devnet's Clock moves (a devnet control, like a local EVM node's time travel): running at real time plus
 * `offsetMs`, or frozen at its last value. It never goes backwards.
 */
export interface ClockControl { offsetMs: number; frozen: boolean }

export interface CommitRecord {
  genesis?: GenesisInfo;
  clock?: ClockControl;
  tx?: TxRecord;
  writes: StoredObject[];
  deletes: string[];
}

export interface EventPosition { txDigest: string; eventSeq: number; checkpoint: number; event: StoredEvent }

/** A line of chain.log that is no commit: the file was changed by something else than this store. */
export class ChainLogDamagedError extends WalrusGitError {
  constructor(path: string, line: number) {
    super(
      'CHAIN_LOG_DAMAGED',
      `the chain log ${path} is damaged at line ${line} (not a commit this network wrote): its chain cannot be read. ` +
        `Restore the file from a backup, or move the network's state (${dirname(dirname(path))}) away to start a new network (its repositories are then gone)`,
      { path, line },
    );
  }
}

export class ChainStore {
  readonly dir: string;
  readonly objects = new Map<string, ChainObject>();
  readonly transactions = new Map<string, TxRecord>();
  readonly events: EventPosition[] = [];
  readonly eventsByType = new Map<string, number[]>();
  /** Children of an object (dynamic fields): owner id → child ids. */
  readonly children = new Map<string, Set<string>>();
  /** Objects owned by an address. */
  readonly owned = new Map<string, Set<string>>();
  genesis: GenesisInfo | null = null;
  clock: ClockControl = { offsetMs: 0, frozen: false };
  checkpoint = 0;
  #offset = 0;
  /** Lines of the log read so far, to say where a damaged one is. */
  #lines = 0;
  #queue: Promise<unknown> = Promise.resolve();
  #logPath: string;
  #lockPath: string;

  constructor(dir: string) {
    this.dir = dir;
    this.#logPath = join(dir, 'chain.log');
    this.#lockPath = join(dir, 'lock');
  }

  /** Catches up with commits other processes appended since the last call. Cheap when nothing changed. */
  refresh(): Promise<void> {
    return this.#exclusive(() => this.#catchUp());
  }

  /**
   * Runs `decide` under the directory lock on the latest state; the commit it returns (if any) is appended with one
   * write and an fsync before it is applied in memory, so a crash either keeps or loses it whole.
   */
  transact<T>(decide: () => Promise<{ commit: CommitRecord | null; result: T }>): Promise<T> {
    return this.#exclusive(() => withFileLock(this.#lockPath, async () => {
      await this.#catchUp();
      await this.#cutTornTail();
      const { commit, result } = await decide();
      if (commit) {
        const line = Buffer.from(`${JSON.stringify(commit)}\n`, 'utf8');
        const handle = await open(this.#logPath, 'a');
        try {
          await handle.write(line, 0, line.length);
          await handle.sync();
        } finally {
          await handle.close();
        }
        this.#apply(commit);
        this.#offset += line.length;
      }
      return result;
    }));
  }

  /** In-process serialization of catch-ups and commits: two overlapping ones would apply a commit twice. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #catchUp(): Promise<void> {
    // Once per process: every read catches up first, and a chain's directory is never removed under it.
    if (this.#offset === 0) await mkdir(this.dir, { recursive: true });
    const handle = await open(this.#logPath, 'a+');
    try {
      const { size } = await handle.stat();
      if (size <= this.#offset) return;
      const buffer = Buffer.alloc(size - this.#offset);
      await handle.read(buffer, 0, buffer.length, this.#offset);
      const end = buffer.lastIndexOf(0x0a);
      if (end < 0) return;
      for (const line of buffer.subarray(0, end).toString('utf8').split('\n')) {
        this.#lines++;
        if (line.length > 0) this.#apply(this.#record(line));
      }
      this.#offset += end + 1;
    } finally {
      await handle.close();
    }
  }

  /**
   * A writer killed mid-append left a partial last line: cut it off (we hold the lock, so nobody is writing) so the
   * next line starts clean. A complete line past what we applied would be a missed commit, which is never cut.
   */
  async #cutTornTail(): Promise<void> {
    const { size } = await stat(this.#logPath);
    if (size <= this.#offset) return;
    const handle = await open(this.#logPath, 'r');
    try {
      const tail = Buffer.alloc(size - this.#offset);
      await handle.read(tail, 0, tail.length, this.#offset);
      if (tail.includes(0x0a)) throw new InternalError('devnet chain log has unapplied commits under the lock', { dir: this.dir, offset: this.#offset, size });
    } finally {
      await handle.close();
    }
    await truncate(this.#logPath, this.#offset);
  }

  /** One line of the log as a commit, or the error that says the log is damaged there. */
  #record(line: string): CommitRecord {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new ChainLogDamagedError(this.#logPath, this.#lines);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new ChainLogDamagedError(this.#logPath, this.#lines);
    return record as CommitRecord;
  }

  #apply(commit: CommitRecord): void {
    if (commit.genesis) this.genesis = commit.genesis;
    if (commit.clock) this.clock = commit.clock;
    for (const id of commit.deletes) this.#remove(id);
    for (const stored of commit.writes) {
      this.#remove(stored.id);
      const object = loadObject(stored);
      this.objects.set(object.id, object);
      const owner = ownerAddress(object.owner);
      if (owner !== null) index(object.owner.$kind === 'ObjectOwner' ? this.children : this.owned, owner).add(object.id);
    }
    if (commit.tx) {
      const tx = commit.tx;
      this.transactions.set(tx.digest, tx);
      this.checkpoint = Math.max(this.checkpoint, tx.checkpoint);
      tx.events.forEach((event, eventSeq) => {
        const position = this.events.push({ txDigest: tx.digest, eventSeq, checkpoint: tx.checkpoint, event }) - 1;
        const list = this.eventsByType.get(event.type) ?? [];
        list.push(position);
        this.eventsByType.set(event.type, list);
      });
    }
  }

  #remove(id: string): void {
    const previous = this.objects.get(id);
    if (!previous) return;
    const owner = ownerAddress(previous.owner);
    if (owner !== null) (previous.owner.$kind === 'ObjectOwner' ? this.children : this.owned).get(owner)?.delete(id);
    this.objects.delete(id);
  }

  requireGenesis(): GenesisInfo {
    if (!this.genesis) throw new InternalError('devnet chain state has no genesis', { dir: this.dir });
    return this.genesis;
  }
}

function index(map: Map<string, Set<string>>, key: string): Set<string> {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
}
