// Walrus figures: store and read throughput of the HTTP blob store against the devnet service (in-process, and over
// a 127.0.0.1 socket to a `git walrus devnet` server in its own process), and the cost of computing a blob id
// locally. Run: node bench/walrus.ts [--short]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWalrusService, serviceFetch, DEVNET_NUM_SHARDS } from '../src/devnet/walrus/service.ts';
import { HttpBlobStore } from '../src/walrus/http-blob-store.ts';
import { computeBlobId } from '../src/walrus-protocol/blob-id.ts';
import { createWorld, startDevnet } from '../scripts/harness/world.ts';

const MiB = 1024 * 1024;

function randomish(size: number, seed: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let x = seed | 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mbPerSecond = (bytes: number, ms: number) => (bytes / 1e6 / (ms / 1000)).toFixed(1);

async function throughput(label: string, store: HttpBlobStore, blobs: Uint8Array[]): Promise<void> {
  const total = blobs.reduce((sum, b) => sum + b.length, 0);
  await store.write(randomish(blobs[0]!.length, 1)); // warm-up: worker threads, encoders, connections
  const written = await timed(async () => {
    const ids: string[] = [];
    for (const blob of blobs) ids.push((await store.write(blob)).blobId);
    return ids;
  });
  const read = await timed(async () => {
    for (const id of written.value) await store.read(id);
  });
  console.log(`walrus ${label}: store ${mbPerSecond(total, written.ms)} MB/s, read ${mbPerSecond(total, read.ms)} MB/s (${blobs.length} blobs of ${(blobs[0]!.length / MiB).toFixed(0)} MiB, ${DEVNET_NUM_SHARDS} shards)`);
}

export async function run(short: boolean): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'walrus-bench-'));
  try {
    const sizes = short ? [{ size: MiB, count: 4 }, { size: 10 * MiB, count: 1 }] : [{ size: MiB, count: 16 }, { size: 10 * MiB, count: 4 }];

    const inProcess = createWalrusService(join(root, 'in-process'));
    const base = 'http://walrus.local';
    const local = new HttpBlobStore({ publisherUrl: base, aggregatorUrl: base, numShards: inProcess.numShards, fetch: serviceFetch(inProcess, base) });

    // The server computes its blob ids in its own process, as a real publisher does (within one process an id is
    // computed once, so an in-process server would share the client's check).
    const world = createWorld('walrus-bench-server-');
    const devnet = await startDevnet(world);
    const remote = new HttpBlobStore({ publisherUrl: devnet.url, aggregatorUrl: devnet.url, numShards: DEVNET_NUM_SHARDS });

    try {
      for (const { size, count } of sizes) {
        const blobs = Array.from({ length: count }, (_, i) => randomish(size, size + i));
        await throughput('in-process', local, blobs);
        await throughput('HTTP 127.0.0.1', remote, blobs.map((b, i) => randomish(b.length, 7 * size + i)));
      }
    } finally {
      await devnet.stop(); // before removing its HOME: an exiting `git walrus` process writes its module compile cache there
      world.remove();
    }

    const repeats = short ? 1 : 3;
    for (const numShards of [DEVNET_NUM_SHARDS, 1000]) {
      // Builds the encoder for this shard count and grows the WebAssembly memory once, in every worker of the pool.
      await Promise.all([1, 2].map((seed) => computeBlobId(randomish(10 * MiB, seed), numShards)));
      for (const size of [MiB, 10 * MiB]) {
        const times: number[] = [];
        // Fresh bytes each time: an id already computed in this process is not computed again.
        for (let i = 0; i < repeats; i++) {
          const bytes = randomish(size, numShards + size + 7919 * i);
          times.push((await timed(() => computeBlobId(bytes, numShards))).ms);
        }
        console.log(`walrus blob id: ${(size / MiB).toFixed(0)} MiB at ${numShards} shards: ${median(times).toFixed(0)} ms`);
      }
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run(process.argv.includes('--short'));
}
