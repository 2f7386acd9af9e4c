import type { CommandModule } from 'yargs';
import { formatProviders } from '../remote/market/format.ts';
import type { CliArgs } from './app.ts';
import { NETWORK_OPTION, withMarket } from './market-services.ts';

interface ProvidersArgs extends CliArgs {
  network?: string;
}

/** `git walrus providers`: every registered provider with its stake, price, active and completed leases. */
export const providersCommand: CommandModule<CliArgs, ProvidersArgs> = {
  command: 'providers',
  describe: 'list the compute providers: stake, price, active and completed leases',
  builder: (y) => y.option('network', NETWORK_OPTION) as never,
  handler: async (argv) => {
    await withMarket(argv.app, argv, async (market) => {
      const [providers, params, now] = await Promise.all([market.listProviders(), market.params(), market.clockMs()]);
      argv.app.stdout(formatProviders(providers, params, now));
    });
  },
};
