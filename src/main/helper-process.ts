/**
 * The remote helper process (started by remote-helper.ts, the entry git runs for walrus:// URLs): reads the
 * environment git prepared (GIT_DIR), opens the network, and hands stdin/stdout to the protocol session.
 *
 * The session starts at once on what the first answer needs (the protocol, the options): `capabilities` and `option`
 * touch no network. Once `capabilities` is answered, while git sends its options, the git process that reads the
 * config starts and the adapters load (open-backend.ts) and open the network; `list`, `fetch` and `push` wait for them.
 */
import { fileAccessErrorOf, UsageError, WalrusGitError } from '../core/errors.ts';
import { adjustableLog } from '../core/log.ts';
import { visibleText } from '../core/terminal-text.ts';
import { parseWalrusUrl } from '../core/walrus-url.ts';
import { runSession } from '../protocol/session.ts';
import type { HelperBackend } from '../ports/helper-backend.ts';
import { applyOption, defaultOptions } from '../remote/options.ts';
import { mark } from './marks.ts';
import { linesOfDescriptor, writeAll } from './stdio.ts';
import type { OpenedBackend } from './open-backend.ts';

const STDIN = 0;
const STDOUT = 1;

async function main(args: string[]): Promise<number> {
  const options = defaultOptions();
  const log = adjustableLog((text) => process.stderr.write(text), () => options.verbosity, () => process.stderr.isTTY === true);
  const [remote, url = remote] = args;
  let opening: Promise<OpenedBackend> | null = null;
  try {
    if (remote === undefined) throw new UsageError('usage: git-remote-walrus <remote> [<url>] (git runs this for walrus:// URLs)');
    const locator = parseWalrusUrl(url);
    // Opened once the first answer is out (git asks for `capabilities` first), or at the first command needing it.
    // A failure to open is reported by the first command that needs the network (or not at all, if none does).
    const opened = () => {
      if (opening === null) {
        // The config is read through its own small module, not the adapters' chunk: measured a few ms sooner to the
        // listing, although its git process starts only once the adapters' chunk has been evaluated too.
        const gitConfig = import('../git/config-snapshot.ts').then(({ readGitConfigSnapshot }) => readGitConfigSnapshot(['walrus'], { env: process.env }));
        gitConfig.catch(() => {});
        opening = import('./open-backend.ts').then(({ openBackend }) => openBackend(locator, gitConfig, options, log));
        opening.catch(() => {});
      }
      return opening;
    };
    const backend: HelperBackend = {
      option: (name, value) => applyOption(options, name, value),
      list: async (forPush) => {
        const listing = await (await opened()).list(forPush);
        mark('listed');
        return listing;
      },
      fetch: async (requests) => (await opened()).fetch(requests),
      push: async (requests) => (await opened()).push(requests),
    };
    const write = (text: string) => writeAll(STDOUT, text).then(() => {
      mark('first-answer');
      void opened();
    });
    await runSession(linesOfDescriptor(STDIN), write, backend, log);
    return 0;
  } catch (thrown) {
    const error = fileAccessErrorOf(thrown);
    // One clear line for what the user can act on; a stack only for bugs at -v.
    const message = error instanceof WalrusGitError ? error.message : `internal error: ${(error as Error)?.message ?? String(error)} (please report this)`;
    process.stderr.write(`fatal: ${visibleText(message)}\n`);
    if (!(error instanceof WalrusGitError) && options.verbosity >= 2) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
    return 1;
  } finally {
    // Whatever was opened is closed, also when git asked for nothing that needed it.
    await (opening as Promise<OpenedBackend> | null)?.then((opened) => opened.close()).catch(() => {});
  }
}

// Exit explicitly: after a failure git still holds our stdin open waiting for an answer, so waiting for it to close
// would deadlock. stdout answers are written by then (the session awaits each write); stderr is synchronous on pipes.
process.exit(await main(process.argv.slice(2)));
