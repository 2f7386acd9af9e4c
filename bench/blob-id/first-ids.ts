/**
 * `node bench/blob-id/first-ids.ts <shards> [--short]`: where a new process's first Walrus blob ids spend their time, as a
 * helper git starts computes them, printed as one JSON object of milliseconds (and the process's CPU time and peak
 * RSS). bench/blob-id-cost.ts runs it in a fresh process for each round; --short leaves out the second 1 KiB id and
 * the 1 MiB one. `--warm <socket>`: the ids come from the warm encoder already running there (built for the shard
 * count), as a helper with walrus.warmEncoder gets them; only the ids are timed.
 */
import { performance } from 'node:perf_hooks';
import { resourceUsage } from 'node:process';
import { Worker } from 'node:worker_threads';
import { computeBlobId, useWarmEncoder, warmBlobIdEncoder } from '../../src/walrus-protocol/blob-id.ts';
import { WarmEncoder } from '../../src/walrus-protocol/encoder-daemon-client.ts';

const numShards = Number(process.argv[2]);
const bytes = (size: number, fill: number) => new Uint8Array(size).fill(fill);

let last = performance.now();
function lap(): number {
  const now = performance.now();
  const ms = now - last;
  last = now;
  return Math.round(ms);
}

const warmAt = process.argv.indexOf('--warm');
let bareWorker = 0, workerAndWasm = 0, encoderTables = 0;
if (warmAt > 0) {
  useWarmEncoder(new WarmEncoder({ socket: process.argv[warmAt + 1]!, start: () => { throw new Error('the bench starts the warm encoder first'); } }));
  lap();
} else {
  // A bare worker thread (a new V8 isolate and Node's own start-up in it), ended at once.
  const bare = new Worker('', { eval: true });
  await new Promise((resolve) => bare.once('online', resolve));
  await bare.terminate();
  bareWorker = lap();
  // The worker thread again, its module (the WebAssembly compile and instantiation) and a 4-shard encoder, whose tables
  // are negligible: one byte's id at 4 shards is the worker's own start-up.
  await computeBlobId(bytes(1, 1), 4);
  workerAndWasm = lap();
  // The encoder for the network's shard count (its tables), built by a warm-up as the helper does while git packs;
  // the 4-shard id behind it in the worker's queue resolves once it is built.
  warmBlobIdEncoder(numShards);
  await computeBlobId(bytes(1, 2), 4);
  encoderTables = lap();
}
await computeBlobId(bytes(1024, 3), numShards);
const firstKiB = lap();
const short = process.argv.includes('--short');
if (!short) await computeBlobId(bytes(1024, 4), numShards);
const secondKiB = short ? undefined : lap();
if (!short) await computeBlobId(bytes(1024 * 1024, 5), numShards);
const oneMiB = short ? undefined : lap();
const usage = resourceUsage();
console.log(JSON.stringify({
  bareWorker, workerAndWasm, encoderTables, firstKiB, secondKiB, oneMiB,
  cpuMs: Math.round((usage.userCPUTime + usage.systemCPUTime) / 1000), peakRssMb: Math.round(usage.maxRSS / 1024),
}));
