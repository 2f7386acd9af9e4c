import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';
import { EXPIRY_WARNING_OPTION, warnOfExpiry } from './lifetime.ts';

interface LogArgs extends CliArgs {
  remote: string;
  ref?: string;
  limit?: number;
  json?: boolean;
  network?: string;
  expiryWarning?: number;
}

/**
 * `git walrus log <remote|url>`: every push, newest first, from the chain's `Pushed` events; a private repository's
 * log first says who may read it.
 */
export const logCommand: CommandModule<CliArgs, LogArgs> = {
  command: 'log <remote>',
  describe: 'list every push (who, when, which refs moved, pack, transaction), newest first',
  builder: (y) =>
    y
      .example('$0 log walrus -n 5', 'the last five pushes')
      .example('$0 log walrus://0x5f1c…e2a9 --ref main --json', 'every push that moved main, as JSON')
      .positional('remote', REMOTE_ARG)
      .option('ref', { type: 'string', describe: 'only pushes that updated this ref (e.g. main, v1.0, refs/heads/main)' })
      .option('limit', { alias: 'n', type: 'number', describe: 'at most this many pushes' })
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
      .option('expiry-warning', EXPIRY_WARNING_OPTION) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (argv.limit !== undefined && !(Number.isInteger(argv.limit) && argv.limit >= 1)) {
      throw new UsageError(`--limit must be a whole number of 1 or more, got ${argv.limit}`);
    }
    const { formatAccessText, formatLogJson, formatLogText, plainStyle, ansiStyle, selectPushes } = await import('../remote/history/format-log.ts');
    await withRemoteRepository(app, argv, async ({ ledger, blobStore }, id) => {
      // The expiry check (the packs, then Walrus) runs beside the log's reads and shares its read of the repository;
      // its warnings still come first.
      const repository = ledger.getRepository(id);
      const [, info, events] = await Promise.all([
        warnOfExpiry(app, { ledger, blobStore }, id, argv.remote, argv.expiryWarning, repository),
        repository,
        ledger.listPushes(id),
      ]);
      const pushes = selectPushes(events, { ref: argv.ref, limit: argv.limit });
      const style = app.stdoutColor ? ansiStyle : plainStyle;
      if (argv.json) {
        app.stdout(formatLogJson(id, pushes, info));
        return;
      }
      app.stdout(formatAccessText(info, style));
      if (pushes.length === 0) app.log.info(argv.ref === undefined ? 'No pushes yet.' : `No push updated ${argv.ref}.`);
      else app.stdout(formatLogText(pushes, style));
    }, { readsRepositoryFirst: true });
  },
};
