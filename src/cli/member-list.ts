import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import type { Ledger, RepositoryInfo, TxReceipt } from '../ports/ledger.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

interface MemberArgs extends CliArgs {
  action: 'add' | 'remove' | 'list';
  remote: string;
  address?: string;
  network?: string;
}

/** One list of addresses on a repository (writers, readers): how to show it and change it. */
export interface MemberList {
  /** `writer`, `reader`: the command is its plural. */
  noun: string;
  describe: string;
  /** The lines `list` prints, one address each. */
  lines(info: RepositoryInfo): string[];
  /** Refuses (throws) when the repository has no such list, before anything is sent. */
  check?(info: RepositoryInfo): void;
  add(ledger: Ledger, id: string, address: string): Promise<TxReceipt>;
  remove(ledger: Ledger, id: string, address: string): Promise<TxReceipt>;
}

/** `git walrus <noun>s add|remove|list <remote|url> [address]`. */
export function memberListCommand(members: MemberList): CommandModule<CliArgs, MemberArgs> {
  const command = `${members.noun}s`;
  return {
    command: `${command} <action> <remote> [address]`,
    describe: members.describe,
    builder: (y) =>
      y
        .example(`$0 ${command} add walrus 0x9f3e…`, `make an address a ${members.noun}`)
        .example(`$0 ${command} list walrus`, `every ${members.noun}`)
        .positional('action', { choices: ['add', 'remove', 'list'] as const, demandOption: true })
        .positional('remote', REMOTE_ARG)
        .positional('address', { type: 'string', describe: 'Sui address (add, remove)' }) as never,
    handler: async (argv) => {
      const { app } = argv;
      if (argv.action !== 'list' && argv.address === undefined) throw new UsageError(`${command} ${argv.action} needs an address`);
      await withRemoteRepository(app, argv, async ({ ledger }, id) => {
        if (argv.action === 'list' || members.check) {
          const info = await ledger.getRepository(id);
          members.check?.(info);
          if (argv.action === 'list') {
            app.stdout(members.lines(info).join('\n') + '\n');
            return;
          }
        }
        const address = normalizeSuiId(argv.address!);
        const receipt = argv.action === 'add' ? await members.add(ledger, id, address) : await members.remove(ledger, id, address);
        app.log.info(`${argv.action === 'add' ? 'Added' : 'Removed'} ${members.noun} ${address} (transaction ${receipt.digest}).`);
      });
    },
  };
}
