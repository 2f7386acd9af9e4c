import yargs from 'yargs';
import type { Argv, CommandModule } from 'yargs';
import { fileAccessErrorOf, InternalError, UsageError, WalrusGitError } from '../core/errors.ts';
import { isBlobId } from '../core/blob-id-codec.ts';
import { NETWORK_NAMES } from '../core/network-names.ts';
import { visibleText } from '../core/terminal-text.ts';
import type { CliApp } from './app.ts';
import { ExitError } from './app.ts';
import { commands } from './commands.ts';

/** Widest help text: yargs otherwise follows the terminal, and the man page is generated from this same text. */
export const HELP_WIDTH = 100;

/**
 * The `git walrus` parser: the command table and the options every command takes. The man page
 * (scripts/gen-man.ts) is generated from it, so what `-h` shows and what `git walrus --help` shows agree.
 */
export function cliParser(args: readonly string[], app: CliApp): Argv {
  const operands = protectOperands(args);
  const parser = yargs(operands.args)
    .scriptName('git walrus')
    .usage('$0 <command> [options]\n\nGit hosting on Walrus and Sui: the commands beside git push and git clone.')
    .middleware((argv) => {
      operands.restore(argv);
      (argv as Record<string, unknown>).app = app;
    })
    .command(commands as CommandModule[])
    .option('network', {
      type: 'string',
      choices: NETWORK_NAMES,
      global: true,
      describe: 'network to use (default: GIT_WALRUS_NETWORK, else git config walrus.network, else local)',
    })
    .option('verbose', { alias: 'v', type: 'boolean', global: true, describe: 'say more (transactions, blobs, timings; the stack of an internal error)' })
    .option('quiet', { alias: 'q', type: 'boolean', global: true, describe: 'print only results and errors' })
    .group(['network', 'verbose', 'quiet', 'help', 'version'], 'Global options:')
    .demandCommand(1, 'name a command (see git walrus -h)')
    .strict()
    .help()
    .alias('help', 'h')
    .epilogue('git walrus --help (or git help walrus) opens the manual; every command has -h.')
    .wrap(HELP_WIDTH)
    .fail((message, error) => {
      if (error) throw error;
      throw new UsageError(operands.restoreText(message));
    });
  skipHelpCacheOnRun(parser);
  return app.version === undefined ? parser.version(false) : parser.version(app.version);
}

/** What `protectOperands` hands yargs, and how to undo it. */
export interface Operands {
  /** The arguments for yargs: without the `--`, each operand that starts with '-' replaced by a stand-in. */
  args: string[];
  /** Puts the operands back into the parsed arguments (every key, positionals and `_`), before a command runs. */
  restore(argv: Record<string, unknown>): void;
  /** A message from yargs (a usage error) with the operands in place of their stand-ins. */
  restoreText(text: string): string;
}

const STAND_IN = /\u0000(\d+)\u0000/g;

/**
 * Operands that start with '-': a blob id may (base64url's alphabet has '-'), and yargs cannot take such a
 * positional, `--` or not: it reads it as a group of short options (and one with an `h` in it prints the command's
 * help and succeeds, having done nothing). Two kinds are operands: every argument after `--`, which ends the options as
 * for any POSIX utility, and anywhere, an argument that is a blob id (43 characters of base64url: no option is). Each
 * reaches yargs as a stand-in that cannot look like an option, and is put back before the command runs.
 */
export function protectOperands(args: readonly string[]): Operands {
  const end = args.indexOf('--');
  const operands: string[] = [];
  const standIn = (operand: string) => (operand.startsWith('-') ? `\u0000${operands.push(operand) - 1}\u0000` : operand);
  const blobIdOperand = (arg: string) => (isBlobId(arg) ? standIn(arg) : arg);
  const restoreText = (text: string) => text.replace(STAND_IN, (standInText, index: string) => operands[Number(index)] ?? standInText);
  const original = (value: unknown): unknown => (typeof value === 'string' ? restoreText(value) : Array.isArray(value) ? value.map(original) : value);
  return {
    args: end < 0 ? args.map(blobIdOperand) : [...args.slice(0, end).map(blobIdOperand), ...args.slice(end + 1).map(standIn)],
    restore(argv) {
      if (operands.length === 0) return;
      for (const key of Object.keys(argv)) argv[key] = original(argv[key]);
    },
    restoreText,
  };
}

/** The part of yargs' internal API (on every instance, not in its types) that `skipHelpCacheOnRun` replaces. */
export interface YargsUsageInternals {
  getInternalMethods?(): { getUsageInstance?(): { cacheHelpMessage?(): void; hasCachedHelpMessage?(): boolean } };
}

/**
 * yargs renders the running command's whole help text as each command starts, and keeps it for a `showHelp()` from
 * inside a handler, which none of ours makes: ~10-20 ms of every `git walrus` command's own time. `-h` and usage errors
 * render help as before. test/cli/help.test.ts fails if yargs no longer has this hook.
 */
function skipHelpCacheOnRun(parser: Argv): void {
  // Where a later yargs lacks the hook, commands keep yargs' own behaviour: slower, never wrong.
  const usage = (parser as unknown as YargsUsageInternals).getInternalMethods?.().getUsageInstance?.();
  if (typeof usage?.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {};
}

/**
 * Runs `git walrus <args>` and returns the exit code. The one place that catches: expected failures (our typed
 * errors) print one `fatal:` line; anything else is a bug and says so, with the stack at -v.
 */
export async function runCli(args: readonly string[], app: CliApp): Promise<number> {
  try {
    await cliParser(args, app).parseAsync();
    return 0;
  } catch (thrown) {
    const error = fileAccessErrorOf(thrown);
    if (error instanceof ExitError) {
      if (error.message) app.log.warn(error.message);
      return error.exitCode;
    }
    if (error instanceof UsageError) {
      app.stderr(`fatal: ${visibleText(error.message)}\n`);
      return 129;
    }
    // A message may quote a remote's words (a key server's, a publisher's): shown, never obeyed by the terminal.
    if (error instanceof WalrusGitError && !(error instanceof InternalError)) {
      app.stderr(`fatal: ${visibleText(error.message)}\n`);
      return 1;
    }
    const message = error instanceof InternalError ? error.message : `internal error: ${(error as Error)?.message ?? String(error)} (please report this)`;
    app.stderr(`fatal: ${visibleText(message)}\n`);
    if (app.log.verbosity >= 2) app.stderr(`${(error as Error)?.stack ?? ''}\n`);
    return 1;
  }
}
