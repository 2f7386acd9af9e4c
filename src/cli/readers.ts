import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

interface ReadersArgs extends CliArgs {
  action: 'add' | 'remove' | 'list';
  remote: string;
  address?: string;
  network?: string;
}

/**
 * `git walrus readers add|remove|list <remote|url> [address]`: who besides the owner and the writers may read a
 * private repository. A reader added later reads every earlier pack too (the key servers derive keys on request);
 * a removed reader gets no key from then on.
 */
export const readersCommand: CommandModule<CliArgs, ReadersArgs> = {
  command: 'readers <action> <remote> [address]',
  describe: 'add, remove or list the addresses allowed to read a private repository (the owner and writers always may)',
  builder: (y) =>
    y
      .positional('action', { choices: ['add', 'remove', 'list'] as const, demandOption: true })
      .positional('remote', REMOTE_ARG)
      .positional('address', { type: 'string', describe: 'Sui address (add, remove)' })
      .option('network', { type: 'string', describe: 'network to use' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (argv.action !== 'list' && argv.address === undefined) throw new UsageError(`readers ${argv.action} needs an address`);
    await withRemoteRepository(app, argv, async ({ ledger }, id) => {
      const info = await ledger.getRepository(id);
      if (!info.private) {
        throw new UsageError(`repository '${info.name}' (${id}) is public: anyone may read it, so it has no readers (create a private one with \`git walrus init --private\`)`, { repository: id });
      }
      if (argv.action === 'list') {
        app.stdout([`${info.owner} (owner)`, ...info.writers.map((w) => `${w} (writer)`), ...info.readers].join('\n') + '\n');
        return;
      }
      const address = normalizeSuiId(argv.address!);
      const receipt = argv.action === 'add' ? await ledger.addReader(id, address) : await ledger.removeReader(id, address);
      app.log.info(`${argv.action === 'add' ? 'Added' : 'Removed'} reader ${address} (transaction ${receipt.digest}).`);
    });
  },
};
