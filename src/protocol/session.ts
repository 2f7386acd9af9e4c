import { WalrusGitError } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { listLines, optionLine, pushLines } from './answers.ts';
import { parseCommand } from './parse.ts';
import type { FetchRequest, HelperBackend, PushRequest } from '../ports/helper-backend.ts';

/** The capabilities this helper announces. `object-format` makes git send `option object-format` before `list`. */
export const CAPABILITIES = ['fetch', 'check-connectivity', 'push', 'option', 'object-format'] as const;

/**
 * git sent something this helper does not speak.
 * What to do: use a git that speaks the remote-helper protocol (git 2.x); report it if it persists.
 */
export class ProtocolError extends WalrusGitError {
  constructor(line: string) {
    super('PROTOCOL', `unexpected command from git: '${line}'`, { line });
  }
}

/**
 * Runs one helper session: reads commands, batches `fetch` and `push` lines up to the blank line, and writes exactly
 * one answer per command or batch. This is the only code that writes the helper's stdout. Returns when git ends the
 * session (a blank line outside a batch, or end of input).
 */
export async function runSession(
  lines: AsyncIterable<string>,
  write: (text: string) => Promise<void>,
  backend: HelperBackend,
  log: Log,
): Promise<void> {
  let fetches: FetchRequest[] = [];
  let pushes: PushRequest[] = [];
  for await (const raw of lines) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    log.debug(`git> ${line}`);
    const command = parseCommand(line);
    switch (command.kind) {
      case 'capabilities':
        await write(`${CAPABILITIES.join('\n')}\n\n`);
        break;
      case 'option':
        await write(optionLine(backend.option(command.name, command.value)));
        break;
      case 'list':
        await write(listLines(await backend.list(command.forPush)));
        break;
      case 'fetch':
        fetches.push({ id: command.id, name: command.name });
        break;
      case 'push':
        pushes.push({ src: command.src, dst: command.dst, force: command.force });
        break;
      case 'blank':
        if (fetches.length > 0) {
          const batch = fetches;
          fetches = [];
          const fetched = await backend.fetch(batch);
          await write(`${fetched?.lock ? `lock ${fetched.lock}\n` : ''}${fetched?.connected ? 'connectivity-ok\n' : ''}\n`);
        } else if (pushes.length > 0) {
          const batch = pushes;
          pushes = [];
          await write(pushLines(await backend.push(batch)));
        } else {
          return;
        }
        break;
      case 'unknown':
        throw new ProtocolError(command.line);
    }
  }
}
