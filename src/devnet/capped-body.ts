/**
 * A request body read as it arrives, at most `maxBytes` of it: a body that declares or reaches more is given up
 * (the stream cancelled, so the rest is drained, never kept), and the caller answers 413 in its own service's words.
 * Reading whole first (`request.arrayBuffer()`) would hold a 300 MB body in memory before any limit applies.
 */
import { concatBytes } from '../core/bytes.ts';

export async function readCappedBody(request: Request, maxBytes: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBytes || request.body === null) {
    await request.body?.cancel().catch(() => {});
    return declared > maxBytes ? null : new Uint8Array(0);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return concatBytes(chunks);
}

/** Whether the request says its body is JSON (`application/json`, any parameters), as axum's and jsonrpsee's extractors require. */
export function isJsonRequest(request: Request): boolean {
  const type = (request.headers.get('content-type') ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}
