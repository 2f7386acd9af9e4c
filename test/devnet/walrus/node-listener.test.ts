import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nodeListener } from '../../../src/devnet/walrus/node-listener.ts';

async function serve(handle: (request: Request) => Promise<Response>) {
  const server = createServer(nodeListener(handle));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const listener = suite('nodeListener');

listener('passes method, path, query, headers and a streamed body through, and streams the answer back', async () => {
  const { url, close } = await serve(async (request) => {
    const body = new Uint8Array(await request.arrayBuffer());
    const reply = new URL(request.url);
    return new Response(`${request.method} ${reply.pathname}${reply.search} ${request.headers.get('x-test')} ${body.length}`, { status: 201, headers: { 'x-answer': 'yes' } });
  });
  try {
    const response = await fetch(`${url}/v1/blobs?epochs=2`, { method: 'PUT', body: new Uint8Array(3 * 1024 * 1024), headers: { 'x-test': 'hello' } });
    assert.is(response.status, 201);
    assert.is(response.headers.get('x-answer'), 'yes');
    assert.is(await response.text(), `PUT /v1/blobs?epochs=2 hello ${3 * 1024 * 1024}`);
  } finally {
    await close();
  }
});

listener('answers 500 when the handler throws, and lets a client finish sending after an early answer', async () => {
  const { url, close } = await serve(async (request) => {
    if (request.method === 'GET') throw new Error('boom');
    return new Response('too big', { status: 413 }); // without reading the body
  });
  try {
    const failed = await fetch(`${url}/x`);
    assert.is(failed.status, 500);
    assert.match(await failed.text(), /boom/);
    const early = await fetch(`${url}/x`, { method: 'PUT', body: new Uint8Array(8 * 1024 * 1024) });
    assert.is(early.status, 413);
  } finally {
    await close();
  }
});

listener.run();
