import { createHash } from 'node:crypto';
import type { StoredObject } from './objects.ts';

/**
 * The chain store's snapshot (`chain/snapshot.json`): its state as of a byte offset of chain.log, so that opening a
 * network reads the live objects and a small index instead of replaying the whole history. Transactions stay in the
 * log: the snapshot keeps where each one's line is and the types of its events, and a query reads the lines it
 * answers with. Pure encoding and validation here; the store does the I/O and checks the snapshot against the log.
 */

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

/** Bumped on any change of the layout: a snapshot of another version is ignored (replayed past) and replaced. */
export const SNAPSHOT_VERSION = 1;

/** A transaction in the index: digest, its line's byte offset and length (without the newline), its line number, its events' types (indexes into `types`). */
export type SnapshotTx = [digest: string, offset: number, length: number, line: number, eventTypes: number[]];

export interface Snapshot {
  version: number;
  /** Bytes and lines of chain.log the snapshot covers: the log's tail after them is replayed. */
  offset: number;
  lines: number;
  /** The last covered line (start offset, sha256 of its bytes with the newline): a log that differs there is another log. */
  lastLine: { start: number; sha256: string };
  genesis: GenesisInfo;
  clock: ClockControl;
  checkpoint: number;
  objects: StoredObject[];
  /** Event types, each once. */
  types: string[];
  /** In commit order. */
  transactions: SnapshotTx[];
}

export function lineHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function encodeSnapshot(snapshot: Snapshot): string {
  return JSON.stringify(snapshot);
}

/**
 * The snapshot in `text`, or null when it is none this version wrote (unknown version, damaged, cut short): the caller
 * then replays the log from its start. Objects are checked when loaded, which throws on a damaged one.
 */
export function decodeSnapshot(text: string): Snapshot | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const s = value as Partial<Snapshot>;
  const count = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (s.version !== SNAPSHOT_VERSION || !count(s.offset) || s.offset === 0 || !count(s.lines) || !count(s.checkpoint)) return null;
  if (typeof s.lastLine !== 'object' || s.lastLine === null || !count(s.lastLine.start) || s.lastLine.start >= s.offset || typeof s.lastLine.sha256 !== 'string') return null;
  if (typeof s.genesis !== 'object' || s.genesis === null || typeof s.clock !== 'object' || s.clock === null) return null;
  if (!Array.isArray(s.objects) || !Array.isArray(s.types) || !s.types.every((type) => typeof type === 'string') || !Array.isArray(s.transactions)) return null;
  const types = s.types.length;
  const validTx = (tx: unknown) => Array.isArray(tx) && tx.length === 5 && typeof tx[0] === 'string' && count(tx[1]) && count(tx[2]) && tx[1] + tx[2] < s.offset! && count(tx[3])
    && Array.isArray(tx[4]) && tx[4].every((type: unknown) => count(type) && type < types);
  if (!s.transactions.every(validTx)) return null;
  return s as Snapshot;
}
