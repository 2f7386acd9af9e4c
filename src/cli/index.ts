import yargs from 'yargs';
import type { CommandModule } from 'yargs';
import { fileAccessErrorOf, UsageError, WalrusGitError } from '../core/errors.ts';
import type { CliApp } from './app.ts';
import { ExitError } from './app.ts';
import { commands } from './commands.ts';

/**
 * Runs `git walrus <args>` and returns the exit code. The one place that catches: expected failures (our typed
 * errors) print one `fatal:` line; anything else is a bug and says so, with the stack at -v.
 */
export async function runCli(args: readonly string[], app: CliApp, verbose = false): Promise<number> {
  const parser = yargs([...args])
    .scriptName('git walrus')
    .middleware((argv) => { (argv as Record<string, unknown>).app = app; })
    .command(commands as CommandModule[])
    .demandCommand(1, 'name a command (see git walrus -h)')
    .strict()
    .help()
    .alias('help', 'h')
    .version(false)
    .fail((message, error) => {
      if (error) throw error;
      throw new UsageError(message);
    });
  try {
    await parser.parseAsync();
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
    if (error instanceof WalrusGitError) {
      app.stderr(`fatal: ${error.message}\n`);
      return 1;
    }
    app.stderr(`fatal: internal error: ${(error as Error)?.message ?? String(error)} (please report this)\n`);
    if (verbose) app.stderr(`${(error as Error)?.stack ?? ''}\n`);
    return 1;
  }
}
