/**
 * The warm encoder's socket protocol (docs/architecture.md, The warm encoder), pure: each message is a 4-byte
 * big-endian length, a JSON header of that length, and for an id request the blob's bytes (`header.length` of them).
 */
import type { WarmEncoderStatus } from '../ports/warm-encoder.ts';

export type EncoderRequest =
  | { op: 'id'; numShards: number; length: number }
  | { op: 'warm'; numShards: number }
  | { op: 'status' }
  | { op: 'stop' };

export type EncoderReply = { blobId: string; ms: number } | { ok: true } | { status: WarmEncoderStatus } | { error: string };

/** Headers are a few fields; anything longer is not ours. */
const MAX_HEADER = 4096;
/** The largest blob sent to the daemon: pushes write chunks of 10 MiB by default; a larger blob is encoded locally. */
export const MAX_DAEMON_BLOB = 64 * 1024 * 1024;

export class EncoderProtocolError extends Error {}

export function frame(header: EncoderRequest | EncoderReply, body?: Uint8Array): Uint8Array[] {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, json.byteLength);
  return body === undefined ? [length, json] : [length, json, body];
}

/** Splits a byte stream into messages; throws `EncoderProtocolError` on anything that is not one. */
export class FrameReader<Header extends { op?: string; length?: number }> {
  /** `check` sees each header before its body is awaited, so a bad length is refused before anything is buffered. */
  readonly #check: (header: Header) => string | null;

  constructor(check: (header: Header) => string | null = () => null) {
    this.#check = check;
  }

  #buffered: Uint8Array[] = [];
  #size = 0;
  #header: Header | null = null;

  push(chunk: Uint8Array): { header: Header; body?: Uint8Array }[] {
    this.#buffered.push(chunk);
    this.#size += chunk.byteLength;
    const messages: { header: Header; body?: Uint8Array }[] = [];
    for (;;) {
      if (this.#header === null) {
        if (this.#size < 4) return messages;
        const head = this.#peek(4);
        const length = new DataView(head.buffer, head.byteOffset, 4).getUint32(0);
        if (length === 0 || length > MAX_HEADER) throw new EncoderProtocolError(`a header of ${length} bytes`);
        if (this.#size < 4 + length) return messages;
        this.#take(4);
        const header = parseHeader<Header>(this.#take(length));
        const problem = this.#check(header);
        if (problem !== null) throw new EncoderProtocolError(problem);
        this.#header = header;
      }
      const bodyLength = this.#header.op === 'id' ? this.#header.length ?? 0 : 0;
      if (this.#size < bodyLength) return messages;
      const header = this.#header;
      this.#header = null;
      messages.push(bodyLength > 0 ? { header, body: this.#take(bodyLength) } : { header });
    }
  }

  #peek(n: number): Uint8Array {
    const joined = this.#joined();
    return joined.subarray(0, n);
  }

  #take(n: number): Uint8Array {
    const joined = this.#joined();
    const taken = joined.slice(0, n);
    const rest = joined.subarray(n);
    this.#buffered = rest.byteLength > 0 ? [rest] : [];
    this.#size = rest.byteLength;
    return taken;
  }

  #joined(): Uint8Array {
    if (this.#buffered.length !== 1) {
      const joined = new Uint8Array(this.#size);
      let at = 0;
      for (const part of this.#buffered) {
        joined.set(part, at);
        at += part.byteLength;
      }
      this.#buffered = [joined];
    }
    return this.#buffered[0]!;
  }
}

function parseHeader<Header>(bytes: Uint8Array): Header {
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new EncoderProtocolError('a header that is not JSON');
  }
  if (typeof header !== 'object' || header === null) throw new EncoderProtocolError('a header that is not an object');
  return header as Header;
}

/** Checks a request: a known one, and for an id an integer shard count the encoder takes and a length it accepts. */
export function checkRequest(request: EncoderRequest): string | null {
  if (!['id', 'warm', 'status', 'stop'].includes(request.op)) return `unknown request ${JSON.stringify(String(request.op))}`;
  if (request.op !== 'id' && request.op !== 'warm') return null;
  if (!Number.isInteger(request.numShards) || request.numShards < 4 || request.numShards > 65_535) return `invalid shard count ${String(request.numShards)}`;
  if (request.op === 'id' && (!Number.isInteger(request.length) || request.length < 1 || request.length > MAX_DAEMON_BLOB)) {
    return `invalid blob length ${String(request.length)} (1 to ${MAX_DAEMON_BLOB} bytes)`;
  }
  return null;
}
