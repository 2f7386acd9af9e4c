/**
 * An in-memory executor for the contract model: tables in a Map, events in a list, object ids from a counter.
 * Deterministic, for the model's tests and the scenario-vector runner; the devnet chain engine has its own.
 */
import { fromHex, toHex } from '@mysten/bcs';
import { InternalError } from '../../../src/core/errors.ts';
import type { MoveContext, TableStore } from '../../../src/contract/context.ts';

export interface EmittedEvent {
  /** Module-qualified type, e.g. `events::Pushed`. */
  type: string;
  bcs: Uint8Array;
}

/** Dynamic-field storage of every table, shared by all calls made through one MemoryChain. */
export class MemoryTables implements TableStore {
  readonly #entries = new Map<string, Uint8Array>();

  #key(table: string, keyType: string, key: Uint8Array): string {
    return `${table}/${keyType}/${toHex(key)}`;
  }

  get(table: string, keyType: string, key: Uint8Array): Uint8Array | null {
    return this.#entries.get(this.#key(table, keyType, key)) ?? null;
  }

  add(table: string, keyType: string, key: Uint8Array, _valueType: string, value: Uint8Array): void {
    const k = this.#key(table, keyType, key);
    if (this.#entries.has(k)) throw new InternalError('dynamic_field::add on an existing key', { table, key: toHex(key) });
    this.#entries.set(k, value);
  }

  set(table: string, keyType: string, key: Uint8Array, _valueType: string, value: Uint8Array): void {
    const k = this.#key(table, keyType, key);
    if (!this.#entries.has(k)) throw new InternalError('table::borrow_mut on a missing key', { table, key: toHex(key) });
    this.#entries.set(k, value);
  }

  remove(table: string, keyType: string, key: Uint8Array): void {
    if (!this.#entries.delete(this.#key(table, keyType, key))) {
      throw new InternalError('dynamic_field::remove on a missing key', { table, key: toHex(key) });
    }
  }

  /** Every entry, in a stable order (to check that an aborted call changed nothing). */
  snapshot(): string {
    return [...this.#entries].map(([k, v]) => `${k}=${toHex(v)}`).sort().join('\n');
  }

  /** The entries of one table with this key type, key and value bytes, in no particular order. */
  entries(table: string, keyType: string): [Uint8Array, Uint8Array][] {
    const prefix = `${table}/${keyType}/`;
    return [...this.#entries].filter(([k]) => k.startsWith(prefix)).map(([k, v]) => [fromHex(k.slice(prefix.length)), v]);
  }

  /** Number of entries stored under `table` (to check the `size` the model keeps). */
  count(table: string): number {
    let n = 0;
    for (const k of this.#entries.keys()) if (k.startsWith(`${table}/`)) n++;
    return n;
  }
}

/** An object a call sent to an address (`transfer::public_transfer`). */
export interface TransferredObject {
  type: string;
  bcs: Uint8Array;
  recipient: string;
}

/** One in-memory "chain": shared tables, an event log, and a MoveContext per call. */
export class MemoryChain {
  readonly packageId: string;
  readonly tables = new MemoryTables();
  readonly events: EmittedEvent[] = [];
  readonly transfers: TransferredObject[] = [];
  #nextId = 0x100;

  constructor(packageId = `0x${'0'.repeat(61)}abc`) {
    this.packageId = packageId;
  }

  /** A context for one call by `sender`. */
  context(sender: string): MoveContext {
    return {
      sender,
      packageId: this.packageId,
      newId: () => `0x${(this.#nextId++).toString(16).padStart(64, '0')}`,
      emit: (type, bcs) => {
        this.events.push({ type, bcs });
      },
      tables: this.tables,
      transfer: (type, bcs, recipient) => {
        this.transfers.push({ type, bcs, recipient });
      },
    };
  }
}
