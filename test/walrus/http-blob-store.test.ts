import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { tempDirs } from '../../scripts/harness/git-env.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWalrusService, serviceFetch } from '../../src/devnet/walrus/service.ts';
import type { WalrusService } from '../../src/devnet/walrus/service.ts';
import { nodeListener } from '../../src/devnet/walrus/node-listener.ts';
import { HttpBlobStore } from '../../src/walrus/http-blob-store.ts';
import type { HttpBlobStoreOptions } from '../../src/walrus/http-blob-store.ts';
import { computeBlobId } from '../../src/walrus-protocol/blob-id.ts';
import { InvalidBlobIdError } from '../../src/core/blob-id-codec.ts';
import {
  BlobIdMismatchError,
  BlobNotFoundError,
  BlobTooLargeError,
  NoPublisherError,
  WalrusRequestError,
  WalrusUnavailableError,
} from '../../src/walrus/errors.ts';

const fastRetry = { attempts: 3, baseDelayMs: 1, maxDelayMs: 2 };
const storeDir = tempDirs('walrus-store-');
const freshService = (options = {}) => createWalrusService(join(storeDir(), 'walrus'), options);
const pattern = (size: number, seed: number) => new Uint8Array(size).map((_, i) => (i * seed + (i >> 8)) & 0xff);

interface Front {
  name: string;
  /** Options that point an HttpBlobStore at `service`, and a teardown. */
  open(service: WalrusService): Promise<{ options: Pick<HttpBlobStoreOptions, 'publisherUrl' | 'aggregatorUrl' | 'fetch'>; close(): Promise<void> }>;
}

const fronts: Front[] = [
  {
    name: 'in-process fetch handler',
    async open(service) {
      const base = 'http://walrus.local';
      return { options: { publisherUrl: base, aggregatorUrl: base, fetch: serviceFetch(service, base) }, close: async () => {} };
    },
  },
  {
    name: 'HTTP server on 127.0.0.1',
    async open(service) {
      const server = createServer(nodeListener(service.handle));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return { options: { publisherUrl: base, aggregatorUrl: base }, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
    },
  },
];

for (const front of fronts) {
  const store = suite(`HttpBlobStore against the ${front.name}`);
  const open = async (serviceOptions = {}, storeOptions: Partial<HttpBlobStoreOptions> = {}) => {
    const service = freshService(serviceOptions);
    const { options, close } = await front.open(service);
    return { store: new HttpBlobStore({ ...options, numShards: service.numShards, retry: fastRetry, ...storeOptions }), close };
  };

  store('writes and reads back a 3 MiB chunk under the real blob id', async () => {
    const { store: s, close } = await open();
    try {
      const bytes = pattern(3 * 1024 * 1024, 7);
      const stored = await s.write(bytes, { epochs: 5 });
      assert.is(stored.blobId, await computeBlobId(bytes, s.numShards));
      assert.is(stored.size, bytes.length);
      assert.is(stored.endEpoch, 6);
      assert.equal(await s.read(stored.blobId), bytes);
    } finally {
      await close();
    }
  });

  store('uploads a chunk held in shared memory (as the pusher hands it over) byte for byte', async () => {
    const { store: s, close } = await open();
    try {
      const bytes = new Uint8Array(new SharedArrayBuffer(1024 * 1024 + 3));
      bytes.set(pattern(bytes.length, 11));
      const stored = await s.write(bytes);
      assert.is(stored.blobId, await computeBlobId(pattern(bytes.length, 11), s.numShards));
      assert.equal(await s.read(stored.blobId), pattern(bytes.length, 11));
    } finally {
      await close();
    }
  });

  store('a second write of the same bytes is accepted (alreadyCertified) with the same id', async () => {
    const { store: s, close } = await open();
    try {
      const bytes = pattern(5000, 3);
      const first = await s.write(bytes);
      const second = await s.write(bytes, { epochs: 1 });
      assert.is(second.blobId, first.blobId);
      assert.is(second.endEpoch, first.endEpoch);
    } finally {
      await close();
    }
  });

  store('a missing blob is BlobNotFoundError, a malformed id InvalidBlobIdError', async () => {
    const { store: s, close } = await open();
    try {
      const id = await computeBlobId(pattern(10, 1), s.numShards);
      await s.read(id).then(() => assert.unreachable(), (e) => assert.instance(e, BlobNotFoundError));
      await s.read('nope').then(() => assert.unreachable(), (e) => assert.instance(e, InvalidBlobIdError));
    } finally {
      await close();
    }
  });

  store("the publisher's 413 is BlobTooLargeError, and the store's own limit is checked before any upload", async () => {
    const { store: s, close } = await open({ maxBodyBytes: 64 * 1024 });
    try {
      await s.write(pattern(64 * 1024 + 1, 5)).then(() => assert.unreachable(), (e) => {
        assert.instance(e, BlobTooLargeError);
        assert.is(e.data.byPublisher, true);
      });
      const small = new HttpBlobStore({ aggregatorUrl: 'http://unused.invalid', publisherUrl: 'http://unused.invalid', numShards: 50, maxBlobSize: 100, fetch: () => assert.unreachable('no request expected') as never });
      await small.write(new Uint8Array(101)).then(() => assert.unreachable(), (e) => assert.instance(e, BlobTooLargeError));
    } finally {
      await close();
    }
  });

  store.run();
}

const faults = suite('HttpBlobStore faults');
const devnetBase = 'http://walrus.local';

faults('refuses to record a blob whose id the publisher reports differently', async () => {
  const service = freshService();
  const honest = serviceFetch(service, devnetBase);
  const lying: typeof fetch = async (input, init) => {
    const response = await honest(input, init);
    const body = (await response.json()) as any;
    body.newlyCreated.blobObject.blobId = await computeBlobId(new Uint8Array([1, 2, 3]), 50);
    return Response.json(body);
  };
  const s = new HttpBlobStore({ publisherUrl: devnetBase, aggregatorUrl: devnetBase, numShards: 50, fetch: lying, retry: fastRetry });
  await s.write(pattern(1000, 9)).then(() => assert.unreachable(), (e) => {
    assert.instance(e, BlobIdMismatchError);
    assert.is(e.code, 'BLOB_ID_MISMATCH');
  });
});

faults('a wrong shard count shows up as an id mismatch, not as a stored blob', async () => {
  const service = freshService();
  const s = new HttpBlobStore({ publisherUrl: devnetBase, aggregatorUrl: devnetBase, numShards: 1000, fetch: serviceFetch(service, devnetBase), retry: fastRetry });
  await s.write(pattern(100, 2)).then(() => assert.unreachable(), (e) => assert.instance(e, BlobIdMismatchError));
});

faults('retries 5xx and network failures with backoff, then succeeds', async () => {
  const service = freshService();
  const honest = serviceFetch(service, devnetBase);
  let calls = 0;
  const flaky: typeof fetch = async (input, init) => {
    calls++;
    if (calls === 1) throw new TypeError('fetch failed');
    if (calls === 2) return new Response('busy', { status: 503 });
    return honest(input, init);
  };
  const s = new HttpBlobStore({ publisherUrl: devnetBase, aggregatorUrl: devnetBase, numShards: 50, fetch: flaky, retry: fastRetry });
  const stored = await s.write(pattern(2000, 4));
  assert.is(calls, 3);
  assert.equal(await s.read(stored.blobId), pattern(2000, 4));
});

faults('gives up after the retry budget with a retryable WalrusUnavailableError; 4xx is not retried', async () => {
  let calls = 0;
  const down: typeof fetch = async () => {
    calls++;
    return new Response('bad gateway', { status: 502 });
  };
  const s = new HttpBlobStore({ publisherUrl: devnetBase, aggregatorUrl: devnetBase, numShards: 50, fetch: down, retry: fastRetry });
  await s.write(new Uint8Array(10)).then(() => assert.unreachable(), (e) => {
    assert.instance(e, WalrusUnavailableError);
    assert.is(e.retryable, true);
  });
  assert.is(calls, 3);
  calls = 0;
  const refusing: typeof fetch = async () => {
    calls++;
    return Response.json({ error: { code: 400, status: 'INVALID_ARGUMENT', message: 'the request is malformed: no', details: [] } }, { status: 400 });
  };
  const r = new HttpBlobStore({ publisherUrl: devnetBase, aggregatorUrl: devnetBase, numShards: 50, fetch: refusing, retry: fastRetry });
  await r.write(new Uint8Array(10)).then(() => assert.unreachable(), (e) => {
    assert.instance(e, WalrusRequestError);
    assert.match(e.message, /malformed: no/);
  });
  assert.is(calls, 1);
});

faults('a read cut short of its content-length is retried, then a WalrusUnavailableError; no length still reads', async () => {
  const id = await computeBlobId(pattern(10, 1), 50);
  let calls = 0;
  const short: typeof fetch = async () => {
    calls++;
    return new Response(pattern(10, 1), { headers: { 'content-length': '20' } });
  };
  const s = new HttpBlobStore({ aggregatorUrl: devnetBase, numShards: 50, fetch: short, retry: fastRetry });
  await s.read(id).then(() => assert.unreachable(), (e) => {
    assert.instance(e, WalrusUnavailableError);
    assert.match(e.message, /interrupted/);
  });
  assert.is(calls, 3);
  const unannounced: typeof fetch = async () => new Response(new Blob([pattern(10, 1)]).stream());
  const u = new HttpBlobStore({ aggregatorUrl: devnetBase, numShards: 50, fetch: unannounced, retry: fastRetry });
  assert.equal(await u.read(id), pattern(10, 1));
});

faults('without a publisher the store reads but refuses writes', async () => {
  const s = new HttpBlobStore({ aggregatorUrl: devnetBase, numShards: 50 });
  await s.write(new Uint8Array(1)).then(() => assert.unreachable(), (e) => assert.instance(e, NoPublisherError));
});

faults('sends epochs, permanent and send_object_to as the publisher expects', async () => {
  let seen: URL | undefined;
  const service = freshService();
  const honest = serviceFetch(service, devnetBase);
  const spy: typeof fetch = async (input, init) => {
    seen = new URL(input instanceof Request ? input.url : String(input));
    return honest(input, init);
  };
  const owner = `0x${'ab'.repeat(32)}`;
  const s = new HttpBlobStore({ publisherUrl: `${devnetBase}/`, aggregatorUrl: devnetBase, numShards: 50, fetch: spy, sendObjectTo: owner, epochs: 7 });
  await s.write(new Uint8Array(5));
  assert.is(seen!.pathname, '/v1/blobs');
  assert.equal(Object.fromEntries(seen!.searchParams), { epochs: '7', permanent: 'true', send_object_to: owner });
});

faults('lifetimes asks the epoch and every blob status side by side, and refuses a malformed id before asking', async () => {
  const service = freshService();
  const honest = serviceFetch(service, devnetBase);
  const writer = new HttpBlobStore({ publisherUrl: devnetBase, aggregatorUrl: devnetBase, numShards: 50, fetch: honest, epochs: 4 });
  const ids = [];
  for (let i = 1; i <= 3; i++) ids.push((await writer.write(pattern(500, i))).blobId);
  let inFlight = 0;
  let most = 0;
  const asked: string[] = [];
  const counting: typeof fetch = async (input, init) => {
    asked.push(new URL(String(input)).pathname);
    inFlight++;
    most = Math.max(most, inFlight);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return await honest(input, init);
    } finally {
      inFlight--;
    }
  };
  const s = new HttpBlobStore({ aggregatorUrl: devnetBase, storageNodeUrl: devnetBase, numShards: 50, fetch: counting, retry: fastRetry });
  const lifetimes = (await s.lifetimes([...ids, ids[0]!]))!;
  assert.equal([...lifetimes.endEpochs.keys()], ids);
  for (const id of ids) assert.is(lifetimes.endEpochs.get(id), lifetimes.epoch + 4);
  // The node's health (the epoch) and the three statuses, all at once: one round trip on a distant node, not four.
  assert.is(asked.length, 4);
  assert.is(most, 4);
  asked.length = 0;
  await s.lifetimes([ids[0]!, 'not-a-blob-id']).then(() => assert.unreachable(), (e) => assert.instance(e, InvalidBlobIdError));
  assert.equal(asked, []);
});

faults.run();
