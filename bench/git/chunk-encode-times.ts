/**
 * `node bench/git/chunk-encode-times.ts <pack file> <shards>`: how long the blob id of each of the pack's chunks
 * takes, as a push's process computes it, printed as one JSON array of seconds. bench/git.ts runs it in a process of
 * its own for each measurement: a process keeps the ids it computed, by content, and would answer a second time from
 * memory.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { computeBlobId, releaseBlobIdWorkers, warmBlobIdEncoder } from '../../src/walrus-protocol/blob-id.ts';
import { DEFAULT_MAX_BLOB_SIZE } from '../../src/walrus/http-blob-store.ts';

const [packFile, shards] = process.argv.slice(2);
const numShards = Number(shards);
const pack = readFileSync(packFile!);
const seconds: number[] = [];
for (let at = 0, index = 0; at < pack.byteLength; at += DEFAULT_MAX_BLOB_SIZE, index++) {
  // A fresh worker whose encoder was built beforehand (the helper builds it while git packs), and its first
  // computation: a warmed-up worker computes faster (V8 has optimized the encoder's code, its memory has grown),
  // which no push's process has.
  await releaseBlobIdWorkers();
  warmBlobIdEncoder(numShards);
  // Served after the warm-up above, by the same worker: once it resolves, the encoder for numShards is built.
  await computeBlobId(Uint8Array.of(index), 4);
  const start = performance.now();
  await computeBlobId(pack.subarray(at, at + DEFAULT_MAX_BLOB_SIZE), numShards);
  seconds.push((performance.now() - start) / 1000);
}
await releaseBlobIdWorkers();
console.log(JSON.stringify(seconds));
