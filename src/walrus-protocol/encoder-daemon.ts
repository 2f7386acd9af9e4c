import { lstatSync, mkdirSync, rmSync, chmodSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { UsageError } from '../core/errors.ts';
import { buildEncoder, builtEncoders, encodeBlobId } from './blob-encoders.ts';
import { checkRequest, EncoderProtocolError, frame, FrameReader, type EncoderReply, type EncoderRequest } from './encoder-frames.ts';
import type { WarmEncoderStatus } from '../ports/warm-encoder.ts';
import { askEncoder } from './encoder-daemon-client.ts';

/**
 * The warm encoder (docs/architecture.md, The warm encoder): one process per user that keeps Walrus's encoder built
 * across git's helper processes, on a Unix socket only its user can open. It holds no key: a blob id is computed
 * from the bytes that are stored anyway. It computes one id at a time (the encoder is synchronous), exits once idle
 * `idleOutMs`, and a second daemon started beside a running one leaves at once.
 */
export interface EncoderDaemonOptions {
  socket: string;
  idleOutMs: number;
}

/** Runs until idle or stopped; false when another daemon already answers on the socket. */
export async function runEncoderDaemon(options: EncoderDaemonOptions): Promise<boolean> {
  privateDirectory(dirname(options.socket));
  const server = createServer();
  if (!(await listenOnce(server, options.socket))) return false;
  chmodSync(options.socket, 0o600);
  const ours = lstatSync(options.socket).ino;
  const startedMs = Date.now();
  const work = { ids: 0, encodeMs: 0, lastUsedMs: startedMs, active: 0 };
  let idleTimer: NodeJS.Timeout | undefined;
  let closing = false;
  const closed = new Promise<void>((resolve) => server.on('close', resolve));
  const close = () => {
    if (closing) return;
    closing = true;
    clearTimeout(idleTimer);
    server.close();
    // Only the socket file this daemon made: a later daemon may have replaced a file it found stale.
    if (safeIno(options.socket) === ours) rmSync(options.socket, { force: true });
  };
  const armIdle = () => {
    clearTimeout(idleTimer);
    if (closing) return;
    // The listening socket keeps the process alive; the timer only ends it.
    idleTimer = setTimeout(() => (work.active === 0 ? close() : armIdle()), options.idleOutMs).unref();
  };
  const status = (): WarmEncoderStatus => ({
    pid: process.pid, socket: options.socket, startedMs, lastUsedMs: work.lastUsedMs, idleOutMs: options.idleOutMs,
    ids: work.ids, encodeMs: Math.round(work.encodeMs), rssBytes: process.memoryUsage.rss(), shards: builtEncoders(),
  });
  const answer = (socket: Socket, reply: EncoderReply) => {
    for (const part of frame(reply)) socket.write(part);
  };
  const handle = (socket: Socket, request: EncoderRequest, body: Uint8Array | undefined) => {
    work.lastUsedMs = Date.now();
    armIdle();
    try {
      if (request.op === 'id') {
        const start = performance.now();
        const blobId = encodeBlobId(body!, request.numShards);
        const ms = performance.now() - start;
        work.ids++;
        work.encodeMs += ms;
        answer(socket, { blobId, ms });
      } else if (request.op === 'warm') {
        buildEncoder(request.numShards);
        answer(socket, { ok: true });
      } else if (request.op === 'status') {
        answer(socket, { status: status() });
      } else {
        answer(socket, { ok: true });
        socket.end(close);
      }
    } catch (error) {
      answer(socket, { error: error instanceof Error ? error.message : String(error) });
    }
  };
  server.on('connection', (socket) => {
    work.active++;
    const reader = new FrameReader<EncoderRequest>(checkRequest);
    socket.on('data', (chunk: Buffer) => {
      let messages;
      try {
        messages = reader.push(chunk);
      } catch (error) {
        const problem = error instanceof EncoderProtocolError ? error.message : 'unreadable request';
        answer(socket, { error: `not a warm-encoder request: ${problem}` });
        socket.end();
        return;
      }
      for (const { header, body } of messages) handle(socket, header, body);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      work.active--;
      armIdle();
    });
  });
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
  armIdle();
  await closed;
  return true;
}

/** Listens on `socket`; a file left by a daemon that died is replaced, one that answers means another daemon runs. */
async function listenOnce(server: Server, socket: string): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(socket, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt > 0) throw error;
      if ((await askEncoder(socket, { op: 'status' })) !== null) return false;
      rmSync(socket, { force: true });
    }
  }
}

/**
 * The socket's directory: made 0700 if absent, refused unless it is a real directory of this user that nobody else
 * may enter, since whoever can open the socket gets ids computed (and could stop the daemon).
 */
export function privateDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = lstatSync(dir);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o077) !== 0) {
    throw new UsageError(`${dir} must be a directory of this user that only it may open (mode 0700), to hold the warm encoder's socket; remove it or fix its owner and mode`, { dir });
  }
}

function safeIno(path: string): number | null {
  try {
    return lstatSync(path).ino;
  } catch {
    return null;
  }
}
