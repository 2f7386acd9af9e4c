import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Worker } from 'node:worker_threads';
import { InternalError, UsageError } from '../core/errors.ts';
import { maxBlobSizeForShards } from './encoding.ts';
import type { BlobIdReply, BlobIdRequest } from './blob-id-worker.ts';
import type { WarmEncoder } from './encoder-daemon-client.ts';

/**
 * Walrus blob ids computed locally, exactly as the network does (`BlobEncoder(numShards).compute_metadata` of
 * @mysten/walrus-wasm), in a worker thread: at 1000 shards one id costs about a second of CPU, so callers start it
 * and overlap it with the upload. One worker serves the process and computes ids one after another, so concurrent
 * callers queue: a second encoder (another isolate and its WebAssembly memory, ~50 MB for a 10 MiB chunk at 50
 * shards, ~200 MB at 1000) would break the helper's memory bound of 150 MB. An idle worker does not keep the process
 * alive.
 *
 * Measured on `devnet` (50 shards, 84 MB pack in 9 chunks, the build in dist/, bench/git.ts): computing on the main
 * thread instead would lower the helper's peak RSS by ~15 MB (no second isolate), but the encoding (~0.3 s a chunk)
 * then blocks the upload and the reading of the pack: the push took ~15% longer, so the worker stays.
 */
export async function computeBlobId(bytes: Uint8Array, numShards: number): Promise<string> {
  checkBlob(bytes.byteLength, numShards);
  return idOf(createHash('sha256').update(bytes).digest('base64'), numShards, async () => bytes);
}

/**
 * The blob id of a file's bytes (what a Walrus node received), read whole only if no computation of the same
 * content is known or under way: the file is hashed as a stream first.
 */
export async function computeBlobIdOfFile(path: string, size: number, numShards: number): Promise<string> {
  checkBlob(size, numShards);
  const hash = createHash('sha256');
  for await (const piece of createReadStream(path)) hash.update(piece as Buffer);
  return idOf(hash.digest('base64'), numShards, () => readFile(path));
}

/**
 * Starts the worker and builds its encoder for `numShards` ahead of the first id (thread start, WebAssembly compile
 * and the encoder's tables take ~0.1-0.2 s), for a caller about to write while it does other work first.
 */
export function warmBlobIdEncoder(numShards: number): void {
  if (!Number.isInteger(numShards) || numShards < 4 || numShards > 65_535) return; // the first write reports it
  if (warmEncoder === null) theWorker().warm(numShards);
  else void warmEncoder.warm(numShards).then((ready) => ready || theWorker().warm(numShards));
}

let warmEncoder: WarmEncoder | null = null;

/**
 * Sends this process's ids to the user's warm encoder (docs/architecture.md, The warm encoder); an id it cannot
 * compute (none runs yet, it went away) is computed here, in the worker, as without it.
 */
export function useWarmEncoder(encoder: WarmEncoder | null): void {
  warmEncoder = encoder;
}

async function computeAnywhere(bytes: Uint8Array, numShards: number): Promise<string> {
  const remote = warmEncoder === null ? null : await warmEncoder.compute(bytes, numShards);
  if (remote === null) return theWorker().compute(bytes, numShards);
  blobIdWork.count++;
  blobIdWork.ms += remote.ms;
  return remote.blobId;
}

function checkBlob(size: number, numShards: number): void {
  if (!Number.isInteger(numShards) || numShards < 4 || numShards > 65_535) {
    throw new UsageError(`invalid Walrus shard count ${numShards}: expected an integer from 4 to 65535`, { numShards });
  }
  if (size > maxBlobSizeForShards(numShards)) {
    throw new UsageError(`a blob of ${size} bytes is too large for a Walrus network of ${numShards} shards (at most ${maxBlobSizeForShards(numShards)})`, { size, numShards });
  }
}

function idOf(sha256: string, numShards: number, load: () => Promise<Uint8Array>): Promise<string> {
  const key = `${numShards}:${sha256}`;
  const known = recent.get(key);
  if (known !== undefined) return known;
  const id = load().then((bytes) => computeAnywhere(bytes, numShards));
  recent.set(key, id);
  id.catch(() => recent.delete(key));
  if (recent.size > RECENT_IDS) recent.delete(recent.keys().next().value!);
  return id;
}

/**
 * Ids computed (or under way) lately, by content and shard count. An id is a pure function of the two, and one
 * process may need the same one twice: on the embedded network the client's check of an upload and the Walrus that
 * stores it run side by side, and would otherwise encode every chunk twice at once.
 */
const recent = new Map<string, Promise<string>>();
const RECENT_IDS = 8;

/**
 * Ends the worker if it is idle, freeing its isolate and encoder memory (WebAssembly memory only grows, so a worker
 * keeps the largest chunk's working set until it ends): for a caller done writing for now, such as a push about to
 * send its transaction. A later computation starts a worker again.
 */
export async function releaseBlobIdWorkers(): Promise<void> {
  if (worker === null || worker.pending.size > 0) return;
  const idle = worker;
  worker = null;
  await idle.end();
}

/** The worker is this module's sibling: `.ts` when run from source, `.js` when run from the build (dist/). */
const WORKER_URL = new URL(`./blob-id-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

class BlobIdWorker {
  private readonly worker: Worker;
  readonly pending = new Map<number, { resolve: (id: string) => void; reject: (error: Error) => void; awaited: boolean }>();
  /** Pending requests someone waits for (the worker is ref'ed while there are any). */
  private awaited = 0;
  private nextId = 1;
  failed = false;

  constructor() {
    // The worker's own JavaScript is a few small messages: a minimal young generation saves ~10 MB of heap per
    // worker (the encoder's memory is WebAssembly memory, outside the JavaScript heap).
    // Loaded here, by the first id: a process that computes none (a `list`, `git walrus log`) never loads it.
    const { Worker } = process.getBuiltinModule('node:worker_threads');
    this.worker = new Worker(WORKER_URL, { resourceLimits: { maxYoungGenerationSizeMb: 1 } });
    this.worker.on('message', (reply: BlobIdReply) => this.settle(reply));
    this.worker.on('error', (error) => this.fail(error));
    this.worker.on('exit', (code) => this.fail(new Error(`blob id worker exited with code ${code}`)));
    // After the listeners: a 'message' listener refs the worker again.
    this.worker.unref();
  }

  compute(bytes: Uint8Array, numShards: number): Promise<string> {
    // A view of a SharedArrayBuffer reaches the worker without a copy (the pusher's chunks are shared); any other
    // buffer is copied by the structured clone, so the caller keeps it for the upload running meanwhile.
    return this.request({ bytes, numShards }, true);
  }

  /**
   * Builds the encoder for `numShards` now; a failure here is left for the first real computation to report. Nobody
   * waits for it, so it does not keep the process alive: a session that ends up writing nothing (a push with
   * nothing to send) exits without waiting for an encoder it will not use.
   */
  warm(numShards: number): void {
    this.request({ numShards }, false).catch(() => {});
  }

  /** `awaited`: someone waits for the answer, so the worker keeps the process alive until it comes. */
  private request(body: Omit<BlobIdRequest, 'id'>, awaited: boolean): Promise<string> {
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, awaited });
      if (awaited && this.awaited++ === 0) this.worker.ref();
      this.worker.postMessage({ id, ...body } satisfies BlobIdRequest);
    });
  }

  /** Terminates the worker; only called while nothing is pending, so no caller is left waiting. */
  async end(): Promise<void> {
    this.failed = true;
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  private settle(reply: BlobIdReply): void {
    const waiter = this.pending.get(reply.id);
    if (waiter === undefined) return;
    this.pending.delete(reply.id);
    if (waiter.awaited && --this.awaited === 0) this.worker.unref();
    if ('error' in reply) waiter.reject(new InternalError(`Walrus blob id computation failed: ${reply.error}`));
    else {
      // A warm-up (no id) builds the encoder: its time counts, as part of the first id's.
      if (reply.blobId !== '') blobIdWork.count++;
      blobIdWork.ms += reply.ms;
      waiter.resolve(reply.blobId);
    }
  }

  private fail(error: Error): void {
    this.failed = true;
    for (const waiter of this.pending.values()) waiter.reject(new InternalError(`Walrus blob id worker failed: ${error.message}`));
    this.pending.clear();
    this.awaited = 0;
  }
}

let worker: BlobIdWorker | null = null;

/** What this process's encoder did so far: ids computed and the time it worked, building encoders included. */
export const blobIdWork = { count: 0, ms: 0 };

function theWorker(): BlobIdWorker {
  if (worker === null || worker.failed) worker = new BlobIdWorker();
  return worker;
}
