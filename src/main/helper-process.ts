/**
 * The remote helper process (started by remote-helper.ts, the entry git runs for walrus:// URLs): reads the
 * environment git prepared (GIT_DIR), opens the network, and hands stdin/stdout to the protocol session.
 */
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { fileAccessErrorOf, WalrusGitError } from '../core/errors.ts';
import { adjustableLog } from '../core/log.ts';
import { parseWalrusUrl } from '../core/walrus-url.ts';
import { NativeGitRepository } from '../git/native-repository.ts';
import { runSession } from '../protocol/session.ts';
import { createHelperBackend } from '../remote/helper.ts';
import { defaultOptions } from '../remote/options.ts';
import { openNetwork } from './context.ts';

async function main(args: string[]): Promise<number> {
  const options = defaultOptions();
  const log = adjustableLog((text) => process.stderr.write(text), () => options.verbosity, process.stderr.isTTY === true);
  const [remote, url = remote] = args;
  let close = async () => {};
  try {
    if (remote === undefined) throw new WalrusGitError('USAGE', 'usage: git-remote-walrus <remote> [<url>] (git runs this for walrus:// URLs)');
    const locator = parseWalrusUrl(url);
    const network = await openNetwork({ env: process.env, log, role: 'helper' });
    const gitDir = process.env.GIT_DIR;
    const local = gitDir ? new NativeGitRepository(resolve(gitDir), process.env) : null;
    const backend = createHelperBackend({ ledger: network.ledger, blobStore: network.blobStore, keyService: network.keyService, local, log, locator, options });
    close = async () => {
      try {
        await backend.close();
      } finally {
        await network.close();
      }
    };
    const lines = createInterface({ input: process.stdin, crlfDelay: Infinity, terminal: false });
    const write = (text: string) => new Promise<void>((done, fail) => process.stdout.write(text, (error) => (error ? fail(error) : done())));
    await runSession(lines, write, backend, log);
    return 0;
  } catch (thrown) {
    const error = fileAccessErrorOf(thrown);
    // One clear line for what the user can act on; a stack only for bugs at -v.
    const message = error instanceof WalrusGitError ? error.message : `internal error: ${(error as Error)?.message ?? String(error)} (please report this)`;
    process.stderr.write(`fatal: ${message}\n`);
    if (!(error instanceof WalrusGitError) && options.verbosity >= 2) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
    return 1;
  } finally {
    await close().catch(() => {});
  }
}

// Exit explicitly: after a failure git still holds our stdin open waiting for an answer, so waiting for it to close
// would deadlock. stdout answers are flushed by then (the session awaits each write); stderr is synchronous on pipes.
process.exit(await main(process.argv.slice(2)));
