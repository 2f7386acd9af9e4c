import type { RefUpdate } from '../ports/ledger.ts';
import { InternalError } from './errors.ts';
import { MAX_DYNAMIC_FIELD_ACCESSES, MAX_PURE_ARGUMENT_SIZE, MAX_TX_SIZE_BYTES } from './sui-limits.ts';

/**
 * Pure splitting of a push's ref updates into transactions that fit Sui's limits (docs/architecture.md, Push). A push
 * transaction passes its updates as four pure vectors (names, old ids, new ids, forces), each bounded by
 * `max_pure_argument_size`, and touches one Table entry per ref plus one for the pack it appends, bounded by the object
 * runtime's dynamic-field limit. Sizes are the exact BCS lengths of those vectors.
 */

export interface TransactionLimits {
  maxTxBytes: number;
  maxPureArgumentBytes: number;
  maxDynamicFieldAccesses: number;
}

export const SUI_TRANSACTION_LIMITS: TransactionLimits = {
  maxTxBytes: MAX_TX_SIZE_BYTES,
  maxPureArgumentBytes: MAX_PURE_ARGUMENT_SIZE,
  maxDynamicFieldAccesses: MAX_DYNAMIC_FIELD_ACCESSES,
};

/**
 * Bytes of a push transaction besides the four ref vectors: sender, gas data (up to a few coins), expiration, the
 * commands with their package ids and names, the repository, clock and type arguments (~1 KiB), and the pack entry,
 * whose chunk ids are one more pure vector of at most `max_pure_argument_size`.
 */
const RESERVED_TX_BYTES = 8 * 1024 + MAX_PURE_ARGUMENT_SIZE;
/** A vector's length prefix (ULEB128) takes at most this many bytes for any count a transaction can hold. */
const LENGTH_PREFIX_BYTES = 3;

/** The Sui limit that ended a batch, in the words of its protocol-config name and value. */
export type BatchLimit = 'max_pure_argument_size' | 'object_runtime_max_num_cached_objects' | 'max_tx_size_bytes';

export interface PushBatches<T> {
  /** Updates per transaction, in the order given; the pack goes with the first that lands. */
  batches: T[][];
  /** The limit that closed the first batch (null: everything fits one transaction). */
  limit: BatchLimit | null;
}

/**
 * Groups updates greedily, in order, into batches that each fit one transaction with a pack (a pack's Table entry
 * and bytes are reserved in every batch, since the pack rides with whichever batch lands first).
 */
export function batchUpdates<T extends { update: RefUpdate }>(items: readonly T[], limits: TransactionLimits = SUI_TRANSACTION_LIMITS): PushBatches<T> {
  const batches: T[][] = [];
  let limit: BatchLimit | null = null;
  let current: T[] = [];
  let sizes = emptySizes();
  let dirs = new Set<string>();
  for (const item of items) {
    let next = addCost(sizes, costOf(item.update, dirs));
    let over = exceeded(next, limits);
    if (over !== null && current.length > 0) {
      batches.push(current);
      limit ??= over;
      current = [];
      dirs = new Set();
      next = addCost(emptySizes(), costOf(item.update, dirs));
      over = exceeded(next, limits);
    }
    if (over !== null) throw new InternalError(`the update of ${item.update.name} alone exceeds ${over}`, { ref: item.update.name, limit: over });
    for (const dir of directoriesOf(item.update.name)) dirs.add(dir);
    sizes = next;
    current.push(item);
  }
  if (current.length > 0) batches.push(current);
  return { batches, limit };
}

/** The limit as a user reads it, for messages (e.g. the refusal of `--atomic`). */
export function describeLimit(limit: BatchLimit, limits: TransactionLimits = SUI_TRANSACTION_LIMITS): string {
  switch (limit) {
    case 'max_pure_argument_size': return `Sui allows ${limits.maxPureArgumentBytes} bytes per transaction argument (max_pure_argument_size), which holds the ref names and ids of a few hundred refs`;
    case 'object_runtime_max_num_cached_objects': return `Sui allows ${limits.maxDynamicFieldAccesses} dynamic-field accesses per transaction (object_runtime_max_num_cached_objects): two per ref (its entry and its count of refs below it), two per directory of ref names, one for the pack`;
    case 'max_tx_size_bytes': return `Sui allows ${limits.maxTxBytes} bytes per transaction (max_tx_size_bytes)`;
  }
}

/** Bytes of each vector, and the dynamic fields the transaction loads. */
interface Sizes { names: number; olds: number; news: number; forces: number; fields: number }

const emptySizes = (): Sizes => ({ names: LENGTH_PREFIX_BYTES, olds: LENGTH_PREFIX_BYTES, news: LENGTH_PREFIX_BYTES, forces: LENGTH_PREFIX_BYTES, fields: 0 });

function addCost(sizes: Sizes, cost: ReturnType<typeof costOf>): Sizes {
  return { names: sizes.names + cost.name, olds: sizes.olds + cost.old, news: sizes.news + cost.new, forces: sizes.forces + 1, fields: sizes.fields + cost.fields };
}

function exceeded(sizes: Sizes, limits: TransactionLimits): BatchLimit | null {
  if (sizes.fields + 1 > limits.maxDynamicFieldAccesses) return 'object_runtime_max_num_cached_objects';
  if (Math.max(sizes.names, sizes.olds, sizes.news, sizes.forces) > limits.maxPureArgumentBytes) return 'max_pure_argument_size';
  if (RESERVED_TX_BYTES + sizes.names + sizes.olds + sizes.news + sizes.forces > limits.maxTxBytes) return 'max_tx_size_bytes';
  return null;
}

/**
 * BCS bytes one update adds to each vector (`String`: length-prefixed UTF-8; `Option<vector<u8>>`), and the dynamic
 * fields it makes the push load besides those of `seen` directories: the ref's Table entry and its count of refs below
 * it, and for each directory of its name (a proper prefix cut at `/`) that directory's Table entry and count (the
 * contract's file/directory clash check, docs/architecture.md, Push).
 */
function costOf(update: RefUpdate, seen: ReadonlySet<string>): { name: number; old: number; new: number; fields: number } {
  const name = Buffer.byteLength(update.name, 'utf8');
  const id = (hex: string | null) => (hex === null ? 1 : 1 + uleb128Length(hex.length / 2) + hex.length / 2);
  const newDirs = directoriesOf(update.name).filter((dir) => !seen.has(dir)).length;
  return { name: uleb128Length(name) + name, old: id(update.old), new: id(update.new), fields: 2 + 2 * newDirs };
}

/** The proper prefixes of a ref name cut at each `/`: `refs`, `refs/heads` for `refs/heads/main`. */
function directoriesOf(name: string): string[] {
  const dirs: string[] = [];
  for (let at = name.indexOf('/'); at >= 0; at = name.indexOf('/', at + 1)) dirs.push(name.slice(0, at));
  return dirs;
}

function uleb128Length(value: number): number {
  let bytes = 1;
  for (let rest = value >>> 7; rest > 0; rest >>>= 7) bytes++;
  return bytes;
}
