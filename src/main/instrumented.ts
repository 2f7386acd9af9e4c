import { appendFileSync } from 'node:fs';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger } from '../ports/ledger.ts';

/**
 * Operational decorators over the ports, chosen by the composition root from the environment:
 * - GIT_WALRUS_STATS=<file>: count blob writes/reads, chain reads and transactions at the port boundary and append
 *   one JSON line per process to <file> (for the benchmark; the numbers are the real calls, nothing estimated);
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
  /** Peak resident set size of this process, KiB (reported at exit). */
  maxRssKb?: number;
  /** CPU time of this process (user + system, all its threads), ms (reported at exit): a figure load does not skew. */
  cpuMs?: number;
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
  return {
    ledger: forwardingLedger(ledger, (name) => {
      if ((LEDGER_READS as readonly string[]).includes(name)) stats.chainReads++;
      else stats.transactions++;
    }),
    blobStore: {
      ...writeSetup(blobStore),
      write: (bytes, options) => { stats.blobWrites++; stats.bytesWritten += bytes.byteLength; return blobStore.write(bytes, options); },
      read: (blobId, options) => { stats.blobReads++; return blobStore.read(blobId, options); },
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
  return { blobWrites: 0, blobReads: 0, bytesWritten: 0, chainReads: 0, transactions: 0, keyServerRequests: 0 };
}

/** Appends the stats of this process as one JSON line. */
export function reportStats(file: string, role: string, stats: PortStats): void {
  const usage = process.resourceUsage();
  appendFileSync(file, `${JSON.stringify({ role, pid: process.pid, ...stats, maxRssKb: usage.maxRSS, cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000) })}\n`);
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
