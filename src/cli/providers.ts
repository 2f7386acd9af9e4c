import type { CommandModule } from 'yargs';
import type { CliArgs } from './app.ts';
import { withMarket } from './market-services.ts';

interface ProvidersArgs extends CliArgs {
  network?: string;
  json: boolean;
}

/** `git walrus providers`: every registered provider with its stake, price, active and completed leases. */
export const providersCommand: CommandModule<CliArgs, ProvidersArgs> = {
  command: 'providers',
  describe: 'list the compute providers: stake, price, active and completed leases',
  builder: (y) =>
    y
      .example('$0 providers', 'every provider: stake, price, leases, status')
      .example('$0 providers --json', 'the same, as JSON')
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' }) as never,
  handler: async (argv) => {
    const { formatProviders, providersJson } = await import('../remote/market/format.ts');
    await withMarket(argv.app, argv, async (market) => {
      const [providers, params, now] = await Promise.all([market.listProviders(), market.params(), market.clockMs()]);
      argv.app.stdout(argv.json ? providersJson(providers, params, now) : formatProviders(providers, params, now));
    });
  },
};
