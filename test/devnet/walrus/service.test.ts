import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDirs } from '../../../scripts/harness/git-env.ts';
import { spawn } from 'node:child_process';
import { BlobEncoder } from '@mysten/walrus-wasm';
import { createWalrusService, serviceFetch, DEVNET_NUM_SHARDS } from '../../../src/devnet/walrus/service.ts';
import { blobIdFromBytes } from '../../../src/core/blob-id-codec.ts';
import { DevnetWalrusConfigError } from '../../../src/devnet/walrus/blob-dir.ts';

const BASE = 'http://walrus.devnet';
const serviceDir = tempDirs('walrus-svc-');
const freshDir = () => join(serviceDir(), 'walrus');
const bytesOf = (text: string) => new TextEncoder().encode(text);
/** The id a real Walrus network of n shards gives, straight from the encoder. */
const realId = (bytes: Uint8Array, n = DEVNET_NUM_SHARDS) => blobIdFromBytes(Uint8Array.from((new BlobEncoder(n).compute_metadata(bytes) as [number[]])[0]));

function put(f: typeof fetch, body: Uint8Array | ReadableStream<Uint8Array>, query = '') {
  return f(`${BASE}/v1/blobs${query}`, { method: 'PUT', body, duplex: 'half' } as RequestInit);
}

const service = suite('createWalrusService');

service('stores with the real newlyCreated shape and the real blob id, then answers alreadyCertified', async () => {
  const f = serviceFetch(createWalrusService(freshDir()), BASE);
  const data = bytesOf('hello walrus');
  const first = await put(f, data, '?epochs=3&send_object_to=0x1');
  assert.is(first.status, 200);
  const created = (await first.json()) as any;
  const blob = created.newlyCreated.blobObject;
  assert.is(blob.blobId, realId(data));
  assert.is(blob.size, data.length);
  assert.is(blob.encodingType, 'RS2');
  assert.is(blob.deletable, true);
  assert.is(blob.storage.endEpoch - blob.storage.startEpoch, 3);
  assert.match(blob.id, /^0x[0-9a-f]{64}$/);
  assert.is(created.newlyCreated.resourceOperation.registerFromScratch.epochsAhead, 3);
  const again = (await (await put(f, data, '?epochs=2')).json()) as any;
  assert.equal(Object.keys(again), ['alreadyCertified']);
  assert.is(again.alreadyCertified.blobId, blob.blobId);
  assert.is(again.alreadyCertified.endEpoch, blob.storage.endEpoch);
  assert.type(again.alreadyCertified.event.txDigest, 'string');
  const permanent = (await (await put(f, data, '?epochs=2&permanent=true')).json()) as any;
  assert.is(permanent.newlyCreated.blobObject.deletable, false, 'a permanent store is not satisfied by a deletable blob');
});

service('serves blobs, byte ranges and Range requests; 404 and 400 with the real error bodies', async () => {
  const f = serviceFetch(createWalrusService(freshDir()), BASE);
  const data = bytesOf('0123456789abcdef');
  const { newlyCreated } = (await (await put(f, data)).json()) as any;
  const id = newlyCreated.blobObject.blobId;
  const whole = await f(`${BASE}/v1/blobs/${id}`);
  assert.is(whole.headers.get('content-type'), 'application/octet-stream');
  assert.is(whole.headers.get('etag'), id);
  assert.is(await whole.text(), '0123456789abcdef');
  const range = await f(`${BASE}/v1/blobs/${id}/byte-range?start=10&length=6`);
  assert.is(range.status, 200);
  assert.is(await range.text(), 'abcdef');
  const partial = await f(`${BASE}/v1/blobs/${id}`, { headers: { range: 'bytes=2-4' } });
  assert.is(partial.status, 206);
  assert.is(partial.headers.get('content-range'), 'bytes 2-4/16');
  assert.is(await partial.text(), '234');
  const outside = await f(`${BASE}/v1/blobs/${id}/byte-range?start=10&length=7`);
  assert.is(outside.status, 400);
  assert.is(((await outside.json()) as any).error.details[0].reason, 'INVALID_BYTE_RANGE');
  const missing = await f(`${BASE}/v1/blobs/${realId(bytesOf('never stored'))}`);
  assert.is(missing.status, 404);
  const body = (await missing.json()) as any;
  assert.equal({ code: body.error.code, status: body.error.status, reason: body.error.details[0].reason, domain: body.error.details[0].domain }, { code: 404, status: 'NOT_FOUND', reason: 'BLOB_NOT_FOUND', domain: 'daemon.walrus.space' });
  assert.is((await f(`${BASE}/v1/blobs/not-a-blob-id`)).status, 400);
  assert.is((await f(`${BASE}/v1/blobs`, { method: 'POST', body: 'x' })).status, 405);
  assert.is((await f(`${BASE}/v1/api`)).status, 200);
});

service('refuses malformed store requests with 400', async () => {
  const f = serviceFetch(createWalrusService(freshDir()), BASE);
  for (const query of ['?epochs=0', '?epochs=54', '?epochs=x', '?permanent=true&deletable=true', '?send_object_to=alice', '?encoding_type=RS1']) {
    const response = await put(f, bytesOf('x'), query);
    assert.is(response.status, 400, query);
    assert.is(((await response.json()) as any).error.status, 'INVALID_ARGUMENT');
  }
  assert.is((await put(f, bytesOf('x'), '?epochs=53')).status, 200);
});

service('answers 413 over the body limit, by declared length and by a streamed body, and keeps nothing', async () => {
  const dir = freshDir();
  const f = serviceFetch(createWalrusService(dir, { maxBodyBytes: 1000 }), BASE);
  const declared = await put(f, new Uint8Array(1001));
  assert.is(declared.status, 413);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(300));
      controller.close();
    },
  });
  assert.is((await put(f, stream)).status, 413);
  assert.is((await put(f, new Uint8Array(1000))).status, 200);
  assert.equal(readdirSync(join(dir, 'incoming')), []);
});

service('an expired blob is gone, as on the real network', async () => {
  const dir = freshDir();
  let now = 1_000_000;
  const f = serviceFetch(createWalrusService(dir, { epochDurationMs: 1000, now: () => now }), BASE);
  const data = bytesOf('short-lived');
  const { newlyCreated } = (await (await put(f, data, '?epochs=2')).json()) as any;
  const id = newlyCreated.blobObject.blobId;
  assert.is(newlyCreated.blobObject.storage.startEpoch, 1);
  now += 1999;
  assert.is((await f(`${BASE}/v1/blobs/${id}`)).status, 200, 'still in epoch 2');
  now += 1;
  assert.is((await f(`${BASE}/v1/blobs/${id}`)).status, 404, 'epoch 3 is the end epoch');
  assert.not.ok(existsSync(join(dir, 'blobs', id)));
  const restored = (await (await put(f, data, '?epochs=1')).json()) as any;
  assert.ok(restored.newlyCreated, 'storing expired bytes again creates a new blob');
  assert.is((await f(`${BASE}/v1/blobs/${id}`)).status, 200);
});

service('processes sharing the directory agree on blobs and epochs; a different shard count is refused', async () => {
  const dir = freshDir();
  const first = serviceFetch(createWalrusService(dir), BASE);
  const { newlyCreated } = (await (await put(first, bytesOf('shared'))).json()) as any;
  const second = createWalrusService(dir);
  assert.is(second.numShards, DEVNET_NUM_SHARDS);
  assert.is(await (await serviceFetch(second, BASE)(`${BASE}/v1/blobs/${newlyCreated.blobObject.blobId}`)).text(), 'shared');
  const wrong = createWalrusService(dir, { numShards: 100 });
  await wrong.handle(new Request(`${BASE}/v1/api`)).then(() => assert.unreachable(), (e) => assert.instance(e, DevnetWalrusConfigError));
});

service('a process killed mid-upload leaves a readable state and never serves a partial blob', async () => {
  const dir = freshDir();
  const child = spawn(process.execPath, [join(import.meta.dirname, 'kill-mid-upload.fixture.ts'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes('HALF')) resolve();
    });
    child.on('exit', () => reject(new Error(`fixture exited early: ${output}`)));
  });
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const completeId = /COMPLETE (\S+)/.exec(output)![1]!;
  const leftovers = readdirSync(join(dir, 'incoming'));
  assert.is(leftovers.length, 1, 'the killed upload left its temporary file');

  const f = serviceFetch(createWalrusService(dir), BASE);
  assert.is((await f(`${BASE}/v1/blobs/${completeId}`)).status, 200);
  const partialBytes = new Uint8Array(200_000).fill(9);
  assert.is((await f(`${BASE}/v1/blobs/${realId(partialBytes)}`)).status, 404);
  assert.is((await f(`${BASE}/v1/blobs/${realId(partialBytes.subarray(0, 100_000))}`)).status, 404);
  assert.equal(readdirSync(join(dir, 'incoming')), [], 'the next start removes uploads of dead processes');
  const stored = (await (await put(f, partialBytes)).json()) as any;
  assert.is(stored.newlyCreated.blobObject.blobId, realId(partialBytes));
});

service.run();

const fetchOf = suite('serviceFetch');

fetchOf('refuses origins the service does not serve, like an unreachable host', async () => {
  const f = serviceFetch(createWalrusService(freshDir()), BASE);
  await f('http://elsewhere.example/v1/api').then(() => assert.unreachable(), (e) => assert.instance(e, TypeError));
});

fetchOf.run();
