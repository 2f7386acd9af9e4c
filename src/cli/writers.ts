import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

interface WritersArgs extends CliArgs {
  action: 'add' | 'remove' | 'list';
  remote: string;
  address?: string;
  network?: string;
}

/** `git walrus writers add|remove|list <remote|url> [address]`: who besides the owner may push. */
export const writersCommand: CommandModule<CliArgs, WritersArgs> = {
  command: 'writers <action> <remote> [address]',
  describe: 'add, remove or list the addresses allowed to push (the owner always may)',
  builder: (y) =>
    y
      .positional('action', { choices: ['add', 'remove', 'list'] as const, demandOption: true })
      .positional('remote', REMOTE_ARG)
      .positional('address', { type: 'string', describe: 'Sui address (add, remove)' })
      .option('network', { type: 'string', describe: 'network to use' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (argv.action !== 'list' && argv.address === undefined) throw new UsageError(`writers ${argv.action} needs an address`);
    await withRemoteRepository(app, argv, async ({ ledger }, id) => {
      if (argv.action === 'list') {
        const info = await ledger.getRepository(id);
        app.stdout([`${info.owner} (owner)`, ...info.writers].join('\n') + '\n');
        return;
      }
      const address = normalizeSuiId(argv.address!);
      const receipt = argv.action === 'add' ? await ledger.addWriter(id, address) : await ledger.removeWriter(id, address);
      app.log.info(`${argv.action === 'add' ? 'Added' : 'Removed'} writer ${address} (transaction ${receipt.digest}).`);
    });
  },
};
