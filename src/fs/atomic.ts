import { link, open, rename, unlink, mkdir, readFile, stat } from 'node:fs/promises';
import { processExists } from './process-alive.ts';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import { WalrusGitError } from '../core/errors.ts';

/**
 * Crash-safe file primitives for state that several git processes may share at once (the devnet state directory,
 * the per-signer transaction locks, a repository's fetch records).
 * A reader sees either the old or the new content of a file, never a torn write: data goes to a temporary file
 * in the same directory, is fsynced, then renamed over the target (rename is atomic within one filesystem).
 */
export async function writeFileAtomic(path: string, data: Uint8Array | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = await writeSyncedTemp(path, data, 'w');
  try {
    await rename(tmp, path);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
}

/**
 * Creates `path` holding `data` unless it already exists, with `mode`: the file appears complete or not at all
 * (written to a temporary file, fsynced, then hard-linked into place, which fails if another process created it
 * first). Resolves true when this call created it, false when someone else's file was there.
 */
export async function createFileExclusive(path: string, data: Uint8Array | string, mode = 0o666): Promise<boolean> {
  const tmp = await writeSyncedTemp(path, data, 'wx', mode);
  try {
    await link(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

/** Writes `data` to a fresh temporary file beside `path` and fsyncs it; returns the temporary file's path. */
async function writeSyncedTemp(path: string, data: Uint8Array | string, flags: 'w' | 'wx', mode?: number): Promise<string> {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await open(tmp, flags, mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return tmp;
}

export class LockTimeoutError extends WalrusGitError {
  constructor(path: string, holder: string) {
    super('LOCK_TIMEOUT', `timed out waiting for the lock ${path} (held by process ${holder}); if that process is no longer running, delete the file`, { path, holder }, { retryable: true });
  }
}

/**
 * Runs `critical` while holding an exclusive lock file (created with O_EXCL, so only one process wins).
 * A lock whose holder process is gone (crashed or killed) is stale and is taken over, so a killed git process
 * never wedges the state directory.
 */
export async function withFileLock<T>(path: string, critical: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  await mkdir(dirname(path), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  const me = `${process.pid}`;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(me);
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await readFile(path, 'utf8').catch(() => '');
      if (await isStale(path, holder)) {
        // Another waiter may be taking over the same stale lock: rename makes only one of us succeed in removing it.
        const claimed = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
        await rename(path, claimed).then(() => unlink(claimed)).catch(() => {});
        continue;
      }
      if (Date.now() > deadline) throw new LockTimeoutError(path, holder || 'unknown');
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  try {
    return await critical();
  } finally {
    await unlink(path).catch(() => {});
  }
}

async function isStale(path: string, holder: string): Promise<boolean> {
  const pid = Number.parseInt(holder, 10);
  if (!Number.isInteger(pid) || pid <= 0) {
    // The holder has created the file but not yet written its pid; only a long-empty file is abandoned.
    const info = await stat(path).catch(() => undefined);
    return info !== undefined && Date.now() - info.mtimeMs > 5_000;
  }
  return !processExists(pid);
}
