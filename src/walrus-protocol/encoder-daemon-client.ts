import { createConnection } from 'node:net';
import type { WarmEncoderStatus } from '../ports/warm-encoder.ts';
import { frame, FrameReader, MAX_DAEMON_BLOB, type EncoderReply, type EncoderRequest } from './encoder-frames.ts';

/**
 * One request to the warm encoder on `socket` and its reply; null when no daemon answers there (no socket, nobody
 * listening, or it went away mid-request), which callers treat as "compute it here".
 */
export function askEncoder(socket: string, request: EncoderRequest, body?: Uint8Array): Promise<EncoderReply | null> {
  return new Promise((resolve) => {
    const connection = createConnection(socket);
    const reader = new FrameReader<EncoderReply & { op?: string }>();
    let settled = false;
    const settle = (reply: EncoderReply | null) => {
      if (settled) return;
      settled = true;
      connection.destroy();
      resolve(reply);
    };
    connection.on('connect', () => {
      for (const part of frame(request, body)) connection.write(part);
    });
    connection.on('data', (chunk: Buffer) => {
      try {
        const [first] = reader.push(chunk);
        if (first) settle(first.header);
      } catch {
        settle(null);
      }
    });
    connection.on('error', () => settle(null));
    connection.on('close', () => settle(null));
  });
}

export interface WarmEncoderOptions {
  socket: string;
  /** Starts a daemon on `socket` in the background (detached); called at most once per process, when none answers. */
  start(): void;
}

/** A helper's side of the warm encoder: asks the daemon, starts one the first time none answers an id. */
export class WarmEncoder {
  readonly socket: string;
  readonly #start: () => void;
  #started = false;

  constructor(options: WarmEncoderOptions) {
    this.socket = options.socket;
    this.#start = options.start;
  }

  /** The id from the daemon, or null: none answers (one is started for the next process) or the blob is too large to send. */
  async compute(bytes: Uint8Array, numShards: number): Promise<{ blobId: string; ms: number } | null> {
    if (bytes.byteLength > MAX_DAEMON_BLOB) return null;
    const reply = await this.#ask({ op: 'id', numShards, length: bytes.byteLength }, bytes);
    return reply !== null && 'blobId' in reply ? reply : null;
  }

  /** Has the daemon build its encoder for `numShards`; false when none answers (and none is started: see #ask). */
  async warm(numShards: number): Promise<boolean> {
    const reply = await this.#ask({ op: 'warm', numShards });
    return reply !== null && 'ok' in reply;
  }

  async #ask(request: EncoderRequest, body?: Uint8Array): Promise<EncoderReply | null> {
    const reply = await askEncoder(this.socket, request, body);
    // Only an id that was wanted starts one: a warm-up comes at every push's listing, also of a push that sends nothing.
    if (reply === null && !this.#started && request.op === 'id') {
      this.#started = true;
      this.#start();
    }
    return reply;
  }
}

/** What `git walrus daemon status` shows: null when no daemon runs. */
export async function encoderStatus(socket: string): Promise<WarmEncoderStatus | null> {
  const reply = await askEncoder(socket, { op: 'status' });
  return reply !== null && 'status' in reply ? reply.status : null;
}

/** Stops the daemon on `socket`; false when none ran. */
export async function stopEncoder(socket: string): Promise<boolean> {
  const reply = await askEncoder(socket, { op: 'stop' });
  return reply !== null && 'ok' in reply;
}
