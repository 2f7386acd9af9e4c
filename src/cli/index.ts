import yargs from 'yargs';
import type { Argv, CommandModule } from 'yargs';
import { fileAccessErrorOf, InternalError, UsageError, WalrusGitError } from '../core/errors.ts';
import { NETWORK_NAMES } from '../core/network-names.ts';
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
  const parser = yargs([...args])
    .scriptName('git walrus')
    .usage('$0 <command> [options]\n\nGit hosting on Walrus and Sui: the commands beside git push and git clone.')
    .middleware((argv) => { (argv as Record<string, unknown>).app = app; })
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
      throw new UsageError(message);
    });
  skipHelpCacheOnRun(parser);
  return app.version === undefined ? parser.version(false) : parser.version(app.version);
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
      app.stderr(`fatal: ${error.message}\n`);
      return 129;
    }
    if (error instanceof WalrusGitError && !(error instanceof InternalError)) {
      app.stderr(`fatal: ${error.message}\n`);
      return 1;
    }
    const message = error instanceof InternalError ? error.message : `internal error: ${(error as Error)?.message ?? String(error)} (please report this)`;
    app.stderr(`fatal: ${message}\n`);
    if (app.log.verbosity >= 2) app.stderr(`${(error as Error)?.stack ?? ''}\n`);
    return 1;
  }
}
