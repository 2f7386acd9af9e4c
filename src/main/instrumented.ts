import { appendFileSync } from 'node:fs';
import { blobIdWork } from '../walrus-protocol/blob-id.ts';
import { marksSoFar, sinceStart } from './marks.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger } from '../ports/ledger.ts';

/**
 * Operational decorators over the ports, chosen by the composition root from the environment:
 * - GIT_WALRUS_STATS=<file>: count blob writes/reads, chain reads and transactions at the port boundary and append
 *   one JSON line per process to <file> (for the benchmark; the numbers are the real calls, nothing estimated), with
 *   where the process's time went: the time spent in each port method and local repository method (wall time, and
 *   calls may overlap: a push encodes, uploads and reads its pack at once), the encoder's time, and start-up marks;
 * - GIT_WALRUS_FAULT=during-upload|after-upload: die in the middle of the first pack upload, or after the upload and
 *   before the transaction, as a crash would (for the interruption tests).
 */
export interface PortStats {
  blobWrites: number;
  blobReads: number;
  bytesWritten: number;
  chainReads: number;
  transactions: number;
  /** HTTP requests to Seal key servers (private repositories only). */
  keyServerRequests: number;
  /** Keys those requests asked for (one `seal_approve` call each in the request's transaction), summed. */
  keyServerKeys: number;
  /** Sealed keys decrypted with the keys the key servers gave (Seal's local pairings, once per distinct sealed key opened). */
  sealedKeysDecrypted: number;
  /** Peak resident set size of this process, KiB (reported at exit). */
  maxRssKb?: number;
  /** CPU time of this process (user + system, all its threads), ms (reported at exit): a figure load does not skew. */
  cpuMs?: number;
  /** Wall time spent in each method of the ledger, the blob store and the local repository, ms (calls may overlap). */
  ms: Record<string, number>;
  /** When each of those methods was first called and last settled, ms since the process started: the timeline. */
  spans: Record<string, [number, number]>;
  /** Time the blob-id encoder worked (ids computed locally), ms, and the ids it computed. */
  encodeMs?: number;
  encodes?: number;
  /** When this process reached each start-up mark, ms since it started. */
  marks?: Record<string, number>;
}

/**
 * `target` with each of its methods timed into `into` as `<prefix>.<method>` (the time until the returned promise
 * settles); the objects `nested` methods return (a pack being received) are timed the same way.
 */
export function timed<T extends object>(target: T, into: Pick<PortStats, 'ms' | 'spans'>, prefix: string, nested: readonly string[] = []): T {
  return new Proxy(target, {
    get(object, name) {
      // Read on the object itself, so getters and methods that use private fields work through the proxy.
      const value = Reflect.get(object, name) as unknown;
      if (typeof value !== 'function' || typeof name !== 'string') return value;
      return (...args: unknown[]) => {
        const start = sinceStart();
        const key = `${prefix}.${name}`;
        const add = () => {
          const end = sinceStart();
          into.ms[key] = (into.ms[key] ?? 0) + end - start;
          into.spans[key] = [into.spans[key]?.[0] ?? start, end];
        };
        const result = (value as (...a: unknown[]) => unknown).apply(object, args);
        if (!(result instanceof Promise)) return result;
        return result.then((settled: unknown) => {
          add();
          return nested.includes(name) && typeof settled === 'object' && settled !== null ? timed(settled, into, `${prefix}.${name}`) : settled;
        }, (error: unknown) => {
          add();
          throw error;
        });
      };
    },
  });
}

const LEDGER_READS = ['resolve', 'getRepository', 'listRefs', 'listPacks', 'listPushes', 'listPushesAfter', 'latestPushCursor'] as const;
export const LEDGER_WRITES = ['createRepository', 'push', 'repackAt', 'addWriter', 'removeWriter', 'addReader', 'removeReader', 'protectRef', 'unprotectRef', 'setHead', 'transferOwnership'] as const;

export type LedgerMethod = (typeof LEDGER_READS)[number] | (typeof LEDGER_WRITES)[number];

/**
 * A Ledger that forwards every call to `ledger` (methods stay bound to it), running `before(name)` first; when
 * `before` returns a promise, the call waits for it. `failed` may tell a failure in other words (what it throws).
 */
export function forwardingLedger(ledger: Ledger, before: (name: LedgerMethod) => void | Promise<void>, failed?: (name: LedgerMethod, error: unknown) => unknown): Ledger {
  const forward = <N extends LedgerMethod>(name: N) =>
    ((...args: unknown[]) => {
      const call = () => (ledger[name] as (...a: unknown[]) => unknown).apply(ledger, args);
      const ready = before(name);
      const result = ready ? ready.then(call) : call();
      return failed && result instanceof Promise ? result.catch((error: unknown) => { throw failed(name, error); }) : result;
    }) as Ledger[N];
  const present = [...LEDGER_READS, ...LEDGER_WRITES].filter((name) => typeof ledger[name] === 'function');
  const methods = Object.fromEntries(present.map((name) => [name, forward(name)]));
  // Preparations forward as they are: they are neither reads nor writes to count or to fund.
  const prepare = {
    ...(ledger.prepareWrites ? { prepareWrites: () => ledger.prepareWrites!() } : {}),
    ...(ledger.preparePush ? { preparePush: (...args: Parameters<NonNullable<Ledger['preparePush']>>) => ledger.preparePush!(...args) } : {}),
  };
  return { signerAddress: () => ledger.signerAddress(), ...prepare, ...methods } as Ledger;
}

export function countingPorts(ledger: Ledger, blobStore: BlobStore, stats: PortStats): { ledger: Ledger; blobStore: BlobStore } {
  const timedLedger = timed(ledger, stats, 'ledger');
  const timedStore = timed(blobStore, stats, 'blobStore');
  return {
    ledger: forwardingLedger(timedLedger, (name) => {
      if ((LEDGER_READS as readonly string[]).includes(name)) stats.chainReads++;
      else stats.transactions++;
    }),
    blobStore: {
      ...writeSetup(blobStore),
      write: (bytes, options) => { stats.blobWrites++; stats.bytesWritten += bytes.byteLength; return timedStore.write(bytes, options); },
      read: (blobId, options) => { stats.blobReads++; return timedStore.read(blobId, options); },
      release: async () => blobStore.release?.(),
      ...(blobStore.lifetimes ? { lifetimes: blobStore.lifetimes.bind(blobStore) } : {}),
    },
  };
}

/** What a wrapper of a BlobStore passes through unchanged: its chunk size and the setup of its writes. */
function writeSetup(blobStore: BlobStore): Pick<BlobStore, 'maxBlobSize' | 'prepareWrites'> {
  return { maxBlobSize: blobStore.maxBlobSize, ...(blobStore.prepareWrites ? { prepareWrites: () => blobStore.prepareWrites!() } : {}) };
}

export function newStats(): PortStats {
  return { blobWrites: 0, blobReads: 0, bytesWritten: 0, chainReads: 0, transactions: 0, keyServerRequests: 0, keyServerKeys: 0, sealedKeysDecrypted: 0, ms: {}, spans: {} };
}

/** Appends the stats of this process as one JSON line. */
export function reportStats(file: string, role: string, stats: PortStats): void {
  const usage = process.resourceUsage();
  const ms = Object.fromEntries(Object.entries(stats.ms).map(([name, value]) => [name, Math.round(value)]));
  const spans = Object.fromEntries(Object.entries(stats.spans).map(([name, [from, to]]) => [name, [Math.round(from), Math.round(to)]]));
  const line = {
    role, pid: process.pid, ...stats, ms, spans, encodeMs: Math.round(blobIdWork.ms), encodes: blobIdWork.count, marks: { ...marksSoFar(), exit: Math.round(sinceStart()) },
    maxRssKb: usage.maxRSS, cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000),
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}

export type Fault = 'during-upload' | 'after-upload';

export function faultOf(value: string | undefined): Fault | null {
  return value === 'during-upload' || value === 'after-upload' ? value : null;
}

/** Wraps the ports so the process dies at the chosen point of a push, as a crash or kill -9 would. */
export function faultyPorts(ledger: Ledger, blobStore: BlobStore, fault: Fault): { ledger: Ledger; blobStore: BlobStore } {
  const die = (): never => {
    process.kill(process.pid, 'SIGKILL');
    throw new Error('unreachable');
  };
  return {
    ledger: forwardingLedger(ledger, (name) => { if (name === 'push' && fault === 'after-upload') die(); }),
    blobStore: {
      ...writeSetup(blobStore),
      read: (blobId, options) => blobStore.read(blobId, options),
      release: async () => blobStore.release?.(),
      ...(blobStore.lifetimes ? { lifetimes: blobStore.lifetimes.bind(blobStore) } : {}),
      write: (bytes, options) => {
        if (fault !== 'during-upload') return blobStore.write(bytes, options);
        // The upload is under way when the process dies: the blob may or may not have been stored.
        const pending = blobStore.write(bytes, options);
        setTimeout(die, 5);
        return pending;
      },
    },
  };
}
