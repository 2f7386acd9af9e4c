import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

interface ShowArgs extends CliArgs {
  remote: string;
  seq: number;
  json?: boolean;
  network?: string;
}

/** `git walrus show <remote|url> <seq>`: one push in full, with the commits it introduced, read from its pack. */
export const showCommand: CommandModule<CliArgs, ShowArgs> = {
  command: 'show <remote> <seq>',
  describe: 'show one push in full, with the commits its pack introduced (no clone needed)',
  builder: (y) =>
    y
      .example('$0 show walrus 3', 'push 3 with the commits its pack introduced')
      .positional('remote', REMOTE_ARG)
      .positional('seq', { type: 'number', demandOption: true, describe: 'the push number, as `git walrus log` shows it' })
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!(Number.isInteger(argv.seq) && argv.seq >= 1)) throw new UsageError(`the push number must be 1 or more, got ${argv.seq}`);
    const [{ ansiStyle, plainStyle }, { formatShowJson, formatShowText }, { showPush }] = await Promise.all([
      import('../remote/history/format-log.ts'),
      import('../remote/history/format-show.ts'),
      import('../remote/history/show-push.ts'),
    ]);
    await withRemoteRepository(app, argv, async (services, id) => {
      const details = await showPush(
        { ledger: services.ledger, blobStore: services.blobStore, blobIdOf: services.blobIdOf, openPackObjects: services.openPackObjects, keyService: services.keyService, log: app.log },
        id,
        argv.seq,
      );
      app.stdout(argv.json ? formatShowJson(details) : formatShowText(details, app.stdoutColor ? ansiStyle : plainStyle));
    }, { readsRepositoryFirst: true });
  },
};
