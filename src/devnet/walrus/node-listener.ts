import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { messageOf } from '../../core/errors.ts';

/**
 * Serves a fetch-style handler (`Request` → `Response`) on a node:http server, streaming both bodies, so the
 * same service runs in-process and behind a socket. Usage: `http.createServer(nodeListener(service.handle))`.
 */
export function nodeListener(handle: (request: Request) => Promise<Response>): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void serve(handle, req, res);
  };
}

async function serve(handle: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks = req[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`), {
      method: req.method,
      headers,
      body: hasBody ? pullStream(chunks) : undefined,
      duplex: 'half',
    } as RequestInit);
    const response = await handle(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body === null || req.method === 'HEAD') res.end();
    else await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), res);
  } catch (error) {
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`internal error: ${messageOf(error)}`);
    } else {
      res.destroy(error instanceof Error ? error : undefined);
    }
  } finally {
    // A response sent before the whole body was read (413): drain the rest so the client can read the answer.
    if (!req.complete) void drain(chunks);
  }
}

/** The request body as a web stream that reads only on demand; cancelling it leaves the rest to `drain`. */
function pullStream(chunks: AsyncIterator<Buffer>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
    },
  });
}

async function drain(chunks: AsyncIterator<Buffer>): Promise<void> {
  try {
    while (!(await chunks.next()).done);
  } catch {
    // the client went away: nothing left to drain
  }
}
