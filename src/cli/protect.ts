import type { CommandModule } from 'yargs';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

interface ProtectArgs extends CliArgs {
  remote: string;
  ref: string;
  network?: string;
}

/** A branch name as the user types it (`main`) or a full ref (`refs/tags/v1`). */
export function fullRefName(ref: string): string {
  return ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
}

function protectionCommand(protect: boolean): CommandModule<CliArgs, ProtectArgs> {
  const verb = protect ? 'protect' : 'unprotect';
  return {
    command: `${verb} <remote> <ref>`,
    describe: protect ? 'only the owner may force-push or delete <ref>' : 'lift the protection of <ref>',
    builder: (y) =>
      y
        .example(`$0 ${verb} walrus main`, protect ? 'only the owner may force-push or delete main' : 'any writer may force-push or delete main again')
        .positional('remote', REMOTE_ARG)
        .positional('ref', { type: 'string', demandOption: true, describe: 'branch name or full ref' }) as never,
    handler: async (argv) => {
      const { app } = argv;
      await withRemoteRepository(app, argv, async ({ ledger }, id) => {
        const ref = fullRefName(argv.ref);
        const receipt = protect ? await ledger.protectRef(id, ref) : await ledger.unprotectRef(id, ref);
        app.log.info(`${protect ? 'Protected' : 'Unprotected'} ${ref} (transaction ${receipt.digest}).`);
      });
    },
  };
}

export const protectCommand = protectionCommand(true);
export const unprotectCommand = protectionCommand(false);
