import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BlobEncoder } from '@mysten/walrus-wasm';
import { blobIdFromInt } from '@mysten/walrus';
import { bcs } from '@mysten/bcs';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { computeBlobId, computeBlobIdOfFile, releaseBlobIdWorkers, warmBlobIdEncoder } from '../../src/walrus-protocol/blob-id.ts';
import { tempDir } from '../../scripts/harness/git-env.ts';
import { maxBlobSizeForShards } from '../../src/walrus-protocol/encoding.ts';
import { UsageError } from '../../src/core/errors.ts';

const blobId = suite('computeBlobId');

blobId('gives the id the Walrus docs show for "some other string" on a 1000-shard network', async () => {
  const id = await computeBlobId(new TextEncoder().encode('some other string'), 1000);
  assert.is(id, 'M4hsZGQ1oCktdzegB6HnI6Mi28S2nqOPHxK-W7_4BUk');
});

blobId('equals BlobEncoder(n) on the main thread, converted with the SDK (devnet shard count)', async () => {
  const bytes = new Uint8Array(300_000).map((_, i) => (i * 31 + 7) % 251);
  for (const numShards of [10, 50]) {
    const [idBytes] = new BlobEncoder(numShards).compute_metadata(bytes) as [number[]];
    const expected = blobIdFromInt(bcs.u256().parse(Uint8Array.from(idBytes)));
    assert.is(await computeBlobId(bytes, numShards), expected);
  }
});

blobId('ids depend on the shard count and answer concurrent requests in order', async () => {
  const inputs = ['a', 'b', 'c', 'd'].map((s) => new TextEncoder().encode(s.repeat(1000)));
  const ids = await Promise.all(inputs.map((b) => computeBlobId(b, 50)));
  assert.is(new Set(ids).size, 4);
  assert.is(await computeBlobId(inputs[2]!, 50), ids[2]);
  assert.is.not(await computeBlobId(inputs[2]!, 10), ids[2]);
});

blobId('refuses blobs the network cannot encode and shard counts that do not exist', async () => {
  const tooBig = new Uint8Array(maxBlobSizeForShards(10) + 1);
  await computeBlobId(tooBig, 10).then(() => assert.unreachable(), (e) => assert.instance(e, UsageError));
  await computeBlobId(new Uint8Array(1), 2).then(() => assert.unreachable(), (e) => assert.instance(e, UsageError));
});

blobId('the same content asked twice at once (two buffers, as the embedded Walrus and the client do) gets one id', async () => {
  const bytes = new Uint8Array(150_000).map((_, i) => (i * 7) % 253);
  const [a, b] = await Promise.all([computeBlobId(bytes, 50), computeBlobId(bytes.slice(), 50)]);
  assert.is(a, b);
  const [idBytes] = new BlobEncoder(50).compute_metadata(bytes) as [number[]];
  assert.is(a, blobIdFromInt(bcs.u256().parse(Uint8Array.from(idBytes))));
});

blobId('a file gets the id of its bytes, whether or not the same content was just computed', async () => {
  const dir = tempDir('blob-id-file-');
  try {
    const fresh = new Uint8Array(120_000).map((_, i) => (i * 11) % 249);
    writeFileSync(join(dir.path, 'fresh'), fresh);
    const [idBytes] = new BlobEncoder(50).compute_metadata(fresh) as [number[]];
    assert.is(await computeBlobIdOfFile(join(dir.path, 'fresh'), fresh.length, 50), blobIdFromInt(bcs.u256().parse(Uint8Array.from(idBytes))));
    const known = new Uint8Array(90_000).map((_, i) => (i * 5) % 241);
    writeFileSync(join(dir.path, 'known'), known);
    const pending = computeBlobId(known, 10);
    assert.is(await computeBlobIdOfFile(join(dir.path, 'known'), known.length, 10), await pending);
    await computeBlobIdOfFile(join(dir.path, 'fresh'), maxBlobSizeForShards(10) + 1, 10).then(() => assert.unreachable(), (e) => assert.instance(e, UsageError));
  } finally {
    dir.remove();
  }
});

blobId('releasing the workers keeps busy ones to the end and starts afresh for the next id', async () => {
  const bytes = new Uint8Array(200_000).map((_, i) => (i * 13) % 255);
  const expected = await computeBlobId(bytes, 50);
  const busy = computeBlobId(bytes, 50);
  await releaseBlobIdWorkers();
  assert.is(await busy, expected);
  await releaseBlobIdWorkers();
  assert.is(await computeBlobId(bytes, 50), expected);
  await releaseBlobIdWorkers();
});

blobId('a warmed encoder gives the same ids, and warming for a shard count that does not exist changes nothing', async () => {
  await releaseBlobIdWorkers();
  const bytes = new Uint8Array(100_000).map((_, i) => (i * 17) % 239);
  const [idBytes] = new BlobEncoder(20).compute_metadata(bytes) as [number[]];
  warmBlobIdEncoder(20);
  warmBlobIdEncoder(3); // refused by the first computation, not here
  assert.is(await computeBlobId(bytes, 20), blobIdFromInt(bcs.u256().parse(Uint8Array.from(idBytes))));
  await computeBlobId(bytes, 3).then(() => assert.unreachable(), (e) => assert.instance(e, UsageError));
  await releaseBlobIdWorkers();
});

/** What a process that only calls `call` on blob-id.ts has computed when it exits by itself: the worker's ids and time. */
function workAtExit(call: string): { count: number; ms: number } {
  const module = new URL('../../src/walrus-protocol/blob-id.ts', import.meta.url).href;
  const dir = tempDir('blob-id-exit-');
  try {
    // A file, not `-e`: the worker thread inherits the process's flags, and `--input-type` refuses a file.
    const script = join(dir.path, 'call.mjs');
    writeFileSync(script, `import * as ids from ${JSON.stringify(module)};\nprocess.on('exit', () => process.stdout.write(JSON.stringify(ids.blobIdWork)));\n${call};\n`);
    const child = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
    assert.is(child.status, 0, child.stderr);
    return JSON.parse(child.stdout) as { count: number; ms: number };
  } finally {
    dir.remove();
  }
}

blobId('a warm-up nobody waits for does not keep the process alive; an id being computed does', () => {
  // The warm-up's encoder time is counted when the worker answers: none was, so the process left first.
  assert.equal(workAtExit('ids.warmBlobIdEncoder(1000)'), { count: 0, ms: 0 });
  const computing = workAtExit('ids.warmBlobIdEncoder(50); void ids.computeBlobId(new Uint8Array(10), 50)');
  assert.is(computing.count, 1);
  assert.ok(computing.ms > 0);
});

blobId.run();
