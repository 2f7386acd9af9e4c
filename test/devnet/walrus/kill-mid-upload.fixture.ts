// Child process of service.test.ts: stores one blob completely, then streams half of another and waits to be killed.
import { createWalrusService, serviceFetch } from '../../../src/devnet/walrus/service.ts';

const f = serviceFetch(createWalrusService(process.argv[2]!), 'http://walrus.devnet');
const done = (await (await f('http://walrus.devnet/v1/blobs', { method: 'PUT', body: new TextEncoder().encode('complete') })).json()) as any;
process.stdout.write(`COMPLETE ${done.newlyCreated.blobObject.blobId}\n`);
setInterval(() => {}, 1000); // stay alive until killed
const half = new Uint8Array(100_000).fill(9);
const body = new ReadableStream<Uint8Array>({
  start(controller) {
    controller.enqueue(half);
    setTimeout(() => process.stdout.write('HALF\n'), 200);
  },
});
await f('http://walrus.devnet/v1/blobs', { method: 'PUT', body, duplex: 'half' } as RequestInit);
