import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WarmEncoder } from '../walrus-protocol/encoder-daemon-client.ts';

/**
 * Where the user's warm encoder listens and how it is started (docs/architecture.md, The warm encoder): composition
 * for every process that computes blob ids and for `git walrus daemon`.
 */

/** How long the daemon waits unused before it exits. */
export const ENCODER_IDLE_OUT_MS = 10 * 60_000;
/** A Unix socket's path must fit in 108 bytes (sockaddr_un); longer homes get one under the temporary directory. */
const MAX_SOCKET_PATH = 100;

export function encoderSocket(home: string): string {
  const inHome = join(home, 'run', 'encoder.sock');
  if (Buffer.byteLength(inHome) <= MAX_SOCKET_PATH) return inHome;
  const tag = createHash('sha256').update(home).digest('hex').slice(0, 16);
  return join(tmpdir(), `git-walrus-${process.getuid?.() ?? 'user'}`, `${tag}.sock`);
}

/** The entry is this module's sibling: `.ts` when run from source, `.js` from the build (dist/). */
const DAEMON_ENTRY = fileURLToPath(new URL(`./encoder-daemon${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url));

export function warmEncoderOf(home: string): WarmEncoder {
  const socket = encoderSocket(home);
  return new WarmEncoder({ socket, start: () => startEncoderDaemon(socket) });
}

/** Starts a daemon on `socket` in the background; it leaves by itself if another already answers there. */
export function startEncoderDaemon(socket: string): void {
  // Detached in a session of its own, so that git's end (or a Ctrl-C in the terminal) does not take it along; with
  // an empty environment, so that it never holds the key a helper may have been given in GIT_WALRUS_KEY.
  const child = spawn(process.execPath, [DAEMON_ENTRY, socket, String(ENCODER_IDLE_OUT_MS)], { detached: true, stdio: 'ignore', env: {} });
  child.on('error', () => {});
  child.unref();
}
