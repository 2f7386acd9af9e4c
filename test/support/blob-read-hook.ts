/**
 * A fault-injection hook for end-to-end tests, for every Node process that loads this file
 * (NODE_OPTIONS=--import=<this file>, see `beforeBlobReadEnv` in blob-read-hook-env.ts), in the manner of git's own
 * GIT_TEST_* hooks: before the process's first Walrus blob read (GET …/v1/blobs/<id>), it runs the command in
 * WALRUS_TEST_BEFORE_BLOB_READ (JSON `{ command, args, cwd, env }`) to its end and appends the command's status and
 * output to the file in WALRUS_TEST_BEFORE_BLOB_READ_LOG. The command thus runs exactly between what the process did
 * before its first read (a fetch's read of the repository state) and that read, with no sleep. Product code is
 * untouched; only `fetch` is wrapped.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const hook = process.env.WALRUS_TEST_BEFORE_BLOB_READ;
const logFile = process.env.WALRUS_TEST_BEFORE_BLOB_READ_LOG;
if (hook && logFile) {
  const { command, args, cwd, env } = JSON.parse(hook) as { command: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv };
  const realFetch = globalThis.fetch;
  let ran = false;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    if (!ran && method === 'GET' && /\/v1\/blobs\/[^/]+$/.test(url.pathname)) {
      ran = true;
      // Synchronous on purpose: nothing else of this process runs until the command has finished.
      const result = spawnSync(command, args, { cwd, env, encoding: 'utf8' });
      appendFileSync(logFile, `status ${result.status}\n${result.stdout}${result.stderr}`);
    }
    return realFetch(input, init);
  }) as typeof fetch;
}
