import { open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { processExists } from './process-alive.ts';

/** What a long-held lock file says: the holder's pid, and whatever the holder adds once it can (e.g. its URL). */
export interface LockHolder {
  pid: number;
  [detail: string]: unknown;
}

export interface HeldLock {
  /** Adds details for whoever finds the lock held. */
  describe(details: Record<string, unknown>): Promise<void>;
  release(): Promise<void>;
}

/**
 * Takes the lock file `path` for as long as the caller lives, without waiting: the holder it finds alive is returned
 * instead (the caller refuses in its words); the lock of a process that is gone is taken over.
 */
export async function holdPidLock(path: string): Promise<{ held: HeldLock } | { holder: LockHolder }> {
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(JSON.stringify({ pid: process.pid }));
      await handle.close();
      return {
        held: {
          describe: (details) => writeFile(path, JSON.stringify({ ...details, pid: process.pid })),
          release: () => unlink(path).catch(() => {}),
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(path);
    if (holder === undefined) {
      // Created but not yet written (its creator writes right away): held, unless it has been so for long.
      const info = await stat(path).catch(() => undefined);
      if (info !== undefined && Date.now() - info.mtimeMs < 5_000) return { holder: { pid: 0 } };
    } else if (processExists(holder.pid)) {
      return { holder };
    }
    // Another starter may be taking over the same stale lock: rename lets only one of us remove it.
    const claimed = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
    await rename(path, claimed).then(() => unlink(claimed)).catch(() => {});
  }
}

async function readHolder(path: string): Promise<LockHolder | undefined> {
  try {
    const holder = JSON.parse(await readFile(path, 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) && holder.pid > 0 ? holder : undefined;
  } catch {
    return undefined;
  }
}
