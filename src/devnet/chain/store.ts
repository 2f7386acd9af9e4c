import { open, mkdir, readFile, truncate, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { withFileLock, writeFileAtomic } from '../../fs/atomic.ts';
import { InternalError, WalrusGitError } from '../../core/errors.ts';
import { loadObject, ownerAddress, storeObject, type ChainObject, type StoredObject } from './objects.ts';
import { SNAPSHOT_VERSION, decodeSnapshot, encodeSnapshot, lineHash, type ClockControl, type GenesisInfo, type Snapshot } from './snapshot.ts';

/**
 * The chain's state directory: an append-only write-ahead log (`chain.log`, one JSON commit per line, fsynced)
 * replayed into memory. Several processes share one directory: every commit happens under `lock` after catching up
 * with the log, so commits are totally ordered; readers only ever parse complete lines, so a process killed
 * mid-append leaves a torn tail that is invisible to readers and cut off by the next writer.
 *
 * Every git command opens the network anew, so opening must not cost the whole history: a writer also leaves a
 * snapshot (`snapshot.json`, written atomically under the lock once the log has grown enough past the last one) of
 * the live objects and an index of the history as of a log offset, and an open loads it and replays only the log
 * after that offset. Transactions stay in the log: the index keeps where each one's line is and its events' types,
 * and a query reads the lines it answers with (a complete line is never rewritten). The log stays the source of
 * truth: a snapshot that is not exactly of its first lines is ignored and replaced by the next writer.
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

export interface CommitRecord {
  genesis?: GenesisInfo;
  clock?: ClockControl;
  tx?: TxRecord;
  writes: StoredObject[];
  deletes: string[];
}

/** Where a transaction's commit is in chain.log (a complete line is never rewritten): read when a query answers with it. */
export interface TxLocation { digest: string; offset: number; length: number; line: number }

/** An event as the store indexes it: its transaction, its index there, its type (its contents stay in the log). */
export interface EventRef { tx: TxLocation; eventSeq: number; type: string }

export interface EventPosition { txDigest: string; eventSeq: number; checkpoint: number; timestampMs: number; event: StoredEvent }

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

/**
 * A writer snapshots its state once the log has grown past the last snapshot by this many bytes (a few milliseconds
 * of replay, some 35 pushes), or by a quarter of that snapshot's size if larger. Opens (every git command) far
 * outnumber commits (pushes): an open then replays at most a quarter of what it loads, while writing a snapshot,
 * which costs about as much as loading it (~20 ms for 1.5 MB), stays a small share of the commits' own cost however
 * large the live state grows.
 */
const SNAPSHOT_MIN_TAIL = 256 * 1024;

export class ChainStore {
  readonly dir: string;
  readonly objects = new Map<string, ChainObject>();
  /** Every transaction by digest, in commit order. */
  readonly transactions = new Map<string, TxLocation>();
  readonly events: EventRef[] = [];
  readonly eventsByType = new Map<string, number[]>();
  /** Children of an object (dynamic fields): owner id → child ids. */
  readonly children = new Map<string, Set<string>>();
  /** Objects owned by an address. */
  readonly owned = new Map<string, Set<string>>();
  genesis: GenesisInfo | null = null;
  clock: ClockControl = { offsetMs: 0, frozen: false };
  checkpoint = 0;
  #opened = false;
  #offset = 0;
  /** Lines of the log read so far, to say where a damaged one is. */
  #lines = 0;
  /** Where the last snapshot this process read or wrote ends, and its size; stale: one is there but unusable. */
  #snapshotAt = 0;
  #snapshotSize = 0;
  #snapshotStale = false;
  readonly #snapshotMinTail: number;
  /** What `eventsAt` read of a transaction. */
  readonly #txEvents = new WeakMap<TxLocation, Pick<TxRecord, 'checkpoint' | 'timestampMs' | 'events'>>();
  #queue: Promise<unknown> = Promise.resolve();
  #logPath: string;
  #lockPath: string;
  #snapshotPath: string;

  /** `snapshotMinTail` lets tests cross the snapshot threshold with a few commits. */
  constructor(dir: string, options: { snapshotMinTail?: number } = {}) {
    this.dir = dir;
    this.#logPath = join(dir, 'chain.log');
    this.#lockPath = join(dir, 'lock');
    this.#snapshotPath = join(dir, 'snapshot.json');
    this.#snapshotMinTail = options.snapshotMinTail ?? SNAPSHOT_MIN_TAIL;
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
        const start = this.#offset;
        this.#applyLine(commit, line.length);
        if (this.#snapshotStale || this.#offset - this.#snapshotAt >= Math.max(this.#snapshotMinTail, this.#snapshotSize / 4)) await this.#writeSnapshot(start, line);
      }
      return result;
    }));
  }

  /** The transaction with `digest`, read from its line of the log. */
  async transaction(digest: string): Promise<TxRecord | undefined> {
    const at = this.transactions.get(digest);
    return at ? (await this.read([at]))[0] : undefined;
  }

  /** The transactions at `locations` (one open of the log for a page of them). */
  async read(locations: TxLocation[]): Promise<TxRecord[]> {
    if (locations.length === 0) return [];
    const handle = await open(this.#logPath, 'r');
    try {
      return await Promise.all(locations.map(async (at) => {
        const buffer = Buffer.alloc(at.length);
        const { bytesRead } = await handle.read(buffer, 0, at.length, at.offset);
        const tx = bytesRead === at.length ? this.#record(buffer.toString('utf8'), at.line).tx : undefined;
        if (tx?.digest !== at.digest) throw new ChainLogDamagedError(this.#logPath, at.line);
        return tx;
      }));
    } finally {
      await handle.close();
    }
  }

  /**
   * The events at `refs` with their contents, read from their transactions' lines at the first query that answers
   * with them and then kept (without the rest of the transaction): they never change, and listings of the push log
   * (the web pages, `git walrus log`) go through every event of a type again and again.
   */
  async eventsAt(refs: EventRef[]): Promise<EventPosition[]> {
    const missing = [...new Set(refs.map((ref) => ref.tx))].filter((tx) => !this.#txEvents.has(tx));
    (await this.read(missing)).forEach(({ checkpoint, timestampMs, events }, i) => this.#txEvents.set(missing[i], { checkpoint, timestampMs, events }));
    return refs.map((ref) => {
      const { checkpoint, timestampMs, events } = this.#txEvents.get(ref.tx)!;
      return { txDigest: ref.tx.digest, eventSeq: ref.eventSeq, checkpoint, timestampMs, event: events[ref.eventSeq] };
    });
  }

  /** In-process serialization of catch-ups and commits: two overlapping ones would apply a commit twice. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #catchUp(): Promise<void> {
    // Once per process: every read catches up first, and a chain's directory is never removed under it.
    if (!this.#opened) {
      await mkdir(this.dir, { recursive: true });
      await this.#loadSnapshot();
      this.#opened = true;
    }
    const handle = await open(this.#logPath, 'a+');
    try {
      const { size } = await handle.stat();
      if (size <= this.#offset) return;
      const buffer = Buffer.alloc(size - this.#offset);
      await handle.read(buffer, 0, buffer.length, this.#offset);
      // Byte offsets (not characters): they locate each transaction's line for later reads.
      for (let start = 0, end = buffer.indexOf(0x0a); end >= 0; start = end + 1, end = buffer.indexOf(0x0a, start)) {
        this.#applyLine(end > start ? this.#record(buffer.toString('utf8', start, end), this.#lines + 1) : null, end + 1 - start);
      }
    } finally {
      await handle.close();
    }
  }

  /** Applies the commit of the log's next line (`length` bytes with its newline; null: an empty line). */
  #applyLine(commit: CommitRecord | null, length: number): void {
    if (commit) this.#apply(commit, { offset: this.#offset, length: length - 1, line: this.#lines + 1 });
    this.#lines++;
    this.#offset += length;
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

  /** Line `line` of the log as a commit, or the error that says the log is damaged there. */
  #record(text: string, line: number): CommitRecord {
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      throw new ChainLogDamagedError(this.#logPath, line);
    }
    if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new ChainLogDamagedError(this.#logPath, line);
    return record as CommitRecord;
  }

  /**
   * Starts from the snapshot when it is one this version wrote of this very log (its last line is in the log, byte
   * for byte); anything else (none, another version, damaged, ahead of the log, of another log) is passed over: the
   * log is replayed from its start, and the next writer replaces an unusable snapshot.
   */
  async #loadSnapshot(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.#snapshotPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#snapshotStale = true;
      return;
    }
    try {
      const snapshot = decodeSnapshot(text);
      if (snapshot && await this.#inLog(snapshot)) {
        this.#install(snapshot);
        this.#snapshotAt = snapshot.offset;
        this.#snapshotSize = text.length;
        return;
      }
    } catch {
      // A damaged object: what was installed is dropped below.
    }
    this.#reset();
    this.#snapshotStale = true;
  }

  async #inLog(snapshot: Snapshot): Promise<boolean> {
    const { start, sha256 } = snapshot.lastLine;
    const handle = await open(this.#logPath, 'r');
    try {
      const bytes = Buffer.alloc(snapshot.offset - start);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, start);
      return bytesRead === bytes.length && bytes.at(-1) === 0x0a && lineHash(bytes) === sha256;
    } finally {
      await handle.close();
    }
  }

  #install(snapshot: Snapshot): void {
    this.genesis = snapshot.genesis;
    this.clock = snapshot.clock;
    this.checkpoint = snapshot.checkpoint;
    for (const stored of snapshot.objects) this.#write(stored);
    for (const [digest, offset, length, line, types] of snapshot.transactions) this.#index({ digest, offset, length, line }, types.map((type) => snapshot.types[type]));
    this.#offset = snapshot.offset;
    this.#lines = snapshot.lines;
  }

  #reset(): void {
    for (const map of [this.objects, this.transactions, this.eventsByType, this.children, this.owned]) map.clear();
    this.events.length = 0;
    this.genesis = null;
    this.clock = { offsetMs: 0, frozen: false };
    this.checkpoint = 0;
    this.#offset = 0;
    this.#lines = 0;
  }

  /**
   * Writes the state as of the line just committed (`line`, at `start`). Under the lock, so the newest snapshot is
   * always the last one renamed into place. A failure leaves the previous one: the commit itself is in the log, and
   * the next writer tries again.
   */
  async #writeSnapshot(start: number, line: Buffer): Promise<void> {
    if (!this.genesis) return;
    const types = [...this.eventsByType.keys()];
    const typeIndex = new Map(types.map((type, i) => [type, i]));
    const eventTypes = new Map<TxLocation, number[]>();
    for (const ref of this.events) {
      const list = eventTypes.get(ref.tx) ?? [];
      list.push(typeIndex.get(ref.type)!);
      eventTypes.set(ref.tx, list);
    }
    const text = encodeSnapshot({
      version: SNAPSHOT_VERSION,
      offset: this.#offset,
      lines: this.#lines,
      lastLine: { start, sha256: lineHash(line) },
      genesis: this.genesis,
      clock: this.clock,
      checkpoint: this.checkpoint,
      objects: [...this.objects.values()].map(storeObject),
      types,
      transactions: [...this.transactions.values()].map((at) => [at.digest, at.offset, at.length, at.line, eventTypes.get(at) ?? []]),
    });
    try {
      await writeFileAtomic(this.#snapshotPath, text);
    } catch {
      return;
    }
    this.#snapshotAt = this.#offset;
    this.#snapshotSize = text.length;
    this.#snapshotStale = false;
  }

  #apply(commit: CommitRecord, at: Omit<TxLocation, 'digest'>): void {
    if (commit.genesis) this.genesis = commit.genesis;
    if (commit.clock) this.clock = commit.clock;
    for (const id of commit.deletes) this.#remove(id);
    for (const stored of commit.writes) this.#write(stored);
    if (commit.tx) {
      this.checkpoint = Math.max(this.checkpoint, commit.tx.checkpoint);
      this.#index({ digest: commit.tx.digest, ...at }, commit.tx.events.map((event) => event.type));
    }
  }

  #write(stored: StoredObject): void {
    this.#remove(stored.id);
    const object = loadObject(stored);
    this.objects.set(object.id, object);
    const owner = ownerAddress(object.owner);
    if (owner !== null) index(object.owner.$kind === 'ObjectOwner' ? this.children : this.owned, owner).add(object.id);
  }

  #index(tx: TxLocation, eventTypes: string[]): void {
    this.transactions.set(tx.digest, tx);
    eventTypes.forEach((type, eventSeq) => {
      const position = this.events.push({ tx, eventSeq, type }) - 1;
      const list = this.eventsByType.get(type) ?? [];
      list.push(position);
      this.eventsByType.set(type, list);
    });
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
