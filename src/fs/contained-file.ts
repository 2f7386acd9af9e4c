/**
 * A file of a checkout read as data the checkout holds: a regular file inside the directory, of a bounded size. A
 * committed symbolic link may point anywhere on the machine that runs the step (/etc/passwd, /proc/self/environ,
 * /dev/zero), so a link is followed only when it stays inside the directory, and only a regular file is read.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative } from 'node:path';
import { WalrusGitError } from '../core/errors.ts';

/** The checkout's file cannot be read as data: what it is instead, in the user's terms. */
export class UncontainedFileError extends WalrusGitError {
  constructor(name: string, problem: string) {
    super('FILE_NOT_CONTAINED', `${name} ${problem}`, { name });
  }
}

/** The text of `dir`/`name`, or null when there is none; refuses a link out of `dir`, a non-file, or more than `maxBytes`. */
export async function readContainedFile(dir: string, name: string, maxBytes: number): Promise<string | null> {
  let real: string;
  try {
    real = await realpath(join(dir, name));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // none, or a link to nothing
    throw error;
  }
  const inside = relative(await realpath(dir), real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new UncontainedFileError(name, 'is a symbolic link to outside the app\'s directory; commit the file itself');
  }
  // O_NONBLOCK: opening a FIFO the link might name must not wait for a writer; the type is checked on the open file.
  const handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UncontainedFileError(name, 'is not a regular file; commit the file itself');
    if (stat.size > maxBytes) throw new UncontainedFileError(name, `takes ${stat.size} bytes; at most ${maxBytes} are read`);
    const buffer = Buffer.alloc(maxBytes + 1);
    const { bytesRead } = await handle.read(buffer, 0, maxBytes + 1, 0);
    if (bytesRead > maxBytes) throw new UncontainedFileError(name, `takes more than ${maxBytes} bytes; at most ${maxBytes} are read`);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}
