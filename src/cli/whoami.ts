import type { CommandModule } from 'yargs';
import { InternalError } from '../core/errors.ts';
import type { CliArgs } from './app.ts';

interface WhoamiArgs extends CliArgs {
  network?: string;
}

/** `git walrus whoami`: the address that signs pushes, and the network it signs on (which it does not open). */
export const whoamiCommand: CommandModule<CliArgs, WhoamiArgs> = {
  command: 'whoami',
  describe: 'print the active address and network',
  builder: (y) => y.example('$0 whoami --network devnet', 'the address that signs on the devnet') as never,
  handler: async (argv) => {
    if (!argv.app.identity) throw new InternalError('this build of git walrus cannot read its key');
    const { address, networkName } = await argv.app.identity({ network: argv.network });
    argv.app.stdout(`${address}\nnetwork: ${networkName}\n`);
  },
};
