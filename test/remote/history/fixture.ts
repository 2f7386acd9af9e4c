/**
 * A repository history made by the contract model itself (src/contract/model.ts in a MemoryChain), so the log heads
 * the verifier must reproduce are the model's, not the test's. Events are decoded from the model's `Pushed` BCS
 * into the ledger port's shape, as the Sui adapter does.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { Pushed } from '../../../src/contract/bcs.ts';
import { MemoryChain } from '../../contract/vectors/memory-context.ts';
import * as model from '../../../src/contract/model.ts';
import type { BlobStore } from '../../../src/ports/blob-store.ts';
import type { Ledger, PackEntry, PushEvent, RefUpdate, RepositoryInfo } from '../../../src/ports/ledger.ts';

export const ALICE = `0x${'a1'.repeat(32)}`;
export const BOB = `0x${'b2'.repeat(32)}`;

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** A stand-in blob id: sha256 of the bytes (the verifier gets the id function injected, as from the network). */
export function fakeBlobId(bytes: Uint8Array): string {
  return Buffer.from(sha256(bytes)).toString('base64url');
}

function blobIdOfInt(value: bigint): string {
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i += 1) bytes[i] = Number((value >> BigInt(8 * i)) & 0xffn);
  return Buffer.from(bytes).toString('base64url');
}

function intOfBlobId(blobId: string): bigint {
  const bytes = Buffer.from(blobId, 'base64url');
  let value = 0n;
  for (let i = 31; i >= 0; i -= 1) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

export interface PushSpec {
  sender?: string;
  /** A repack (`git walrus gc`) instead of a push: `chunks` is the consolidated pack, `updates` must be empty. */
  repack?: { liveFrom: number };
  updates: RefUpdate[];
  /** The pack's chunks (each a blob); none = a push without a pack. */
  chunks?: Uint8Array[];
  timestampMs?: number;
}

export interface History {
  repository: RepositoryInfo;
  events: PushEvent[];
  refs: Map<string, string>;
  packs: PackEntry[];
  /** blob id → bytes, as Walrus would serve them. */
  blobs: Map<string, Uint8Array>;
}

/** Runs the pushes through the contract model and returns chain state, events and the blobs. */
export function buildHistory(pushes: PushSpec[]): History {
  const chain = new MemoryChain();
  const registry = model.init(chain.context(ALICE));
  const repo = model.create(chain.context(ALICE), registry, 'demo', 'refs/heads/main');
  model.addWriter(chain.context(ALICE), repo, BOB);
  const blobs = new Map<string, Uint8Array>();
  const packs: PackEntry[] = [];
  const digests: string[] = [];
  pushes.forEach((spec, i) => {
    let pack = null;
    if (spec.chunks !== undefined) {
      const ids = spec.chunks.map((chunk) => {
        const id = fakeBlobId(chunk);
        blobs.set(id, chunk);
        return id;
      });
      const whole = Buffer.concat(spec.chunks);
      pack = model.newPackEntry(ids.map(intOfBlobId), BigInt(whole.length), sha256(whole));
      packs.push({ chunks: ids, size: whole.length, sha256: hex(sha256(whole)) });
    }
    const u = spec.updates;
    if (spec.repack !== undefined) {
      model.repack(chain.context(spec.sender ?? ALICE), repo, pack!, BigInt(spec.repack.liveFrom), BigInt(spec.timestampMs ?? 1_763_700_000_000 + i * 60_000));
    } else model.push(
      chain.context(spec.sender ?? ALICE),
      repo,
      u.map((x) => x.name),
      u.map((x) => (x.old === null ? null : Buffer.from(x.old, 'hex'))),
      u.map((x) => (x.new === null ? null : Buffer.from(x.new, 'hex'))),
      u.map((x) => x.force),
      pack,
      BigInt(spec.timestampMs ?? 1_763_700_000_000 + i * 60_000),
    );
    digests.push(`Tx${String(i + 1).padStart(40, '0')}`);
  });
  const events = chain.events
    .filter((event) => event.type === 'events::Pushed')
    .map((event, i): PushEvent => {
      const e = Pushed.parse(event.bcs);
      return {
        repository: e.repository,
        seq: Number(e.seq),
        kind: e.kind,
        sender: e.sender,
        timestampMs: Number(e.timestamp_ms),
        updates: e.updates.map((x) => ({ name: x.name, old: x.old === null ? null : hex(x.old), new: x.new === null ? null : hex(x.new), force: x.forced })),
        pack: e.pack === null ? null : { chunks: e.pack.chunks.map(blobIdOfInt), size: Number(e.pack.size), sha256: hex(e.pack.sha256) },
        packIndex: e.pack_index === null ? null : Number(e.pack_index),
        liveFrom: Number(e.live_from),
        logHead: hex(e.log_head),
        txDigest: digests[i]!,
      };
    });
  const refs = new Map<string, string>();
  for (const event of events) {
    for (const x of event.updates) {
      if (x.new === null) refs.delete(x.name);
      else refs.set(x.name, x.new);
    }
  }
  const repository: RepositoryInfo = {
    id: repo.id,
    name: repo.name,
    owner: repo.owner,
    writers: [...repo.writers.contents],
    private: repo.private,
    readers: [...repo.readers.contents],
    protectedRefs: [],
    head: repo.head,
    hashLength: repo.hash_len as 0 | 20 | 32,
    seq: Number(repo.seq),
    logHead: hex(repo.log_head),
    packCount: Number(repo.pack_count),
    liveFrom: Number(repo.live_from),
  };
  return { repository, events, refs, packs, blobs };
}

/** A BlobStore over a map; a missing blob answers like the Walrus adapters (code BLOB_NOT_FOUND). */
export function mapBlobStore(blobs: Map<string, Uint8Array>): BlobStore {
  return {
    maxBlobSize: 1 << 20,
    async write() {
      throw new Error('read-only');
    },
    async read(blobId) {
      const bytes = blobs.get(blobId);
      if (bytes === undefined) {
        throw Object.assign(new Error(`Walrus blob ${blobId} is not available: it was never stored or its storage epochs have ended`), {
          code: 'BLOB_NOT_FOUND',
          retryable: false,
        });
      }
      return bytes;
    },
  };
}

/** A read-only Ledger over a history (write methods are not used by the reviewer commands). */
export function historyLedger(history: History): Ledger {
  const refuse = async (): Promise<never> => {
    throw new Error('read-only ledger');
  };
  return {
    signerAddress: async () => ALICE,
    resolve: async () => history.repository.id,
    getRepository: async () => history.repository,
    listRefs: async () => new Map(history.refs),
    listPacks: async (_id, from, until) => history.packs.slice(from, until),
    listPushes: async () => history.events.map((event) => structuredClone(event)),
    listPushesAfter: refuse,
    latestPushCursor: refuse,
    createRepository: refuse,
    push: refuse,
    repackAt: refuse,
    addWriter: refuse,
    removeWriter: refuse,
    addReader: refuse,
    removeReader: refuse,
    protectRef: refuse,
    unprotectRef: refuse,
    setHead: refuse,
    transferOwnership: refuse,
  };
}

export const oid = (n: number): string => n.toString(16).padStart(40, '0');
export const chunk = (text: string): Uint8Array => new TextEncoder().encode(text);
