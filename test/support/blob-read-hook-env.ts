import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PRELOAD = join(dirname(fileURLToPath(import.meta.url)), 'blob-read-hook.ts');

/**
 * The environment that makes a process run `command` just before its first Walrus blob read (blob-read-hook.ts),
 * logging the command's status and output to `log`. `command.env` is the command's whole environment.
 */
export function beforeBlobReadEnv(command: { command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv }, log: string): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import=${PRELOAD}`, WALRUS_TEST_BEFORE_BLOB_READ: JSON.stringify(command), WALRUS_TEST_BEFORE_BLOB_READ_LOG: log };
}
