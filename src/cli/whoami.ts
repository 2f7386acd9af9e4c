import type { CommandModule } from 'yargs';
import type { CliArgs } from './app.ts';

interface WhoamiArgs extends CliArgs {
  network?: string;
}

/** `git walrus whoami`: the address that signs pushes, and the network it signs on. */
export const whoamiCommand: CommandModule<CliArgs, WhoamiArgs> = {
  command: 'whoami',
  describe: 'print the active address and network',
  builder: (y) => y.example('$0 whoami --network devnet', 'the address that signs on the devnet') as never,
  handler: async (argv) => {
    const services = await argv.app.open({ network: argv.network });
    try {
      argv.app.stdout(`${await services.ledger.signerAddress()}\nnetwork: ${services.networkName}\n`);
    } finally {
      await services.close();
    }
  },
};
