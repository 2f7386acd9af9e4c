/**
 * The helper's ends of git's pipes, read and written through their file descriptors. Node's process.stdin and
 * process.stdout (sockets over the pipes) and readline cost ~10 ms of every helper start before its first answer
 * could go out; these cost under 1 ms (docs/architecture.md, "How the executables start").
 */
import { read, write } from 'node:fs';
import { WalrusGitError } from '../core/errors.ts';

const CHUNK_BYTES = 64 * 1024;
/** How long to wait before trying again where the descriptor is non-blocking and not ready (inherited so). */
const NOT_READY_RETRY_MS = 1;

const notReady = (error: NodeJS.ErrnoException | null) => error?.code === 'EAGAIN';

function readChunk(fd: number, into: Buffer): Promise<number> {
  return new Promise((done, fail) => {
    const attempt = () => read(fd, into, 0, into.length, null, (error, count) => {
      if (notReady(error)) setTimeout(attempt, NOT_READY_RETRY_MS);
      else if (error) fail(error);
      else done(count);
    });
    attempt();
  });
}

/** The lines read from `fd` until its end, each without its '\n' (a last line without one too), decoded as UTF-8. */
export async function* linesOfDescriptor(fd: number): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let pending = '';
  for (let count = await readChunk(fd, chunk); count > 0; count = await readChunk(fd, chunk)) {
    pending += decoder.decode(chunk.subarray(0, count), { stream: true });
    let start = 0;
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n', start)) {
      yield pending.slice(start, end);
      start = end + 1;
    }
    pending = pending.slice(start);
  }
  pending += decoder.decode();
  if (pending !== '') yield pending;
}

/**
 * Writes all of `text` to `fd` (as UTF-8), resolving once the last byte is written. Where the reader has gone (git
 * stopped, or was stopped, before the answer), it rejects with an error saying so.
 */
export function writeAll(fd: number, text: string): Promise<void> {
  const bytes = Buffer.from(text);
  return new Promise((done, fail) => {
    let offset = 0;
    const attempt = () => write(fd, bytes, offset, bytes.length - offset, null, (error, count) => {
      if (notReady(error)) setTimeout(attempt, NOT_READY_RETRY_MS);
      else if (error?.code === 'EPIPE') fail(new WalrusGitError('OUTPUT_CLOSED', 'git closed the helper\'s output before its answer was written (git stopped or was stopped)', {}, { cause: error }));
      else if (error) fail(error);
      else if ((offset += count) < bytes.length) attempt();
      else done();
    });
    attempt();
  });
}
