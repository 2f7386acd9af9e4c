import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.ts';

/**
 * A directory a command fills from nothing (`git walrus checkout`, `artifact fetch`): created when missing, refused
 * unless empty, so undoing a failed fill is emptying it again.
 */
export async function claimEmptyDirectory(dir: string, what: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new UsageError(`'${dir}' is a file, not a directory: ${what} writes only into an empty or new directory; name another`, { dir });
    throw error;
  }
  if ((await readdir(dir)).length > 0) throw new UsageError(`'${dir}' is not empty: ${what} writes only into an empty or new directory`, { dir });
}

/** Removes what `dir` holds, keeping `dir` itself (it may be a mount point, e.g. a pod's emptyDir). */
export async function emptyDirectory(dir: string): Promise<void> {
  const names = await readdir(dir).catch(() => []);
  await Promise.all(names.map((name) => rm(join(dir, name), { recursive: true, force: true })));
}
