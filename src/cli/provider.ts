import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { formatPrice, formatSui, parseSuiAmount } from '../core/sui-amount.ts';
import type { CliArgs } from './app.ts';
import { providerArg, withMarket } from './market-services.ts';

interface ProviderArgs extends CliArgs {
  action: 'register' | 'show' | 'unbond' | 'withdraw' | 'claim';
  provider?: string;
  stake?: string;
  price?: string;
  endpoint?: string;
  attribute?: string[];
  lease?: string[];
  network?: string;
  json: boolean;
}

/** `key=value` attributes → a record; a repeated key or a missing `=` is a usage error. */
function attributes(pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`attribute '${pair}' is not key=value`);
    const key = pair.slice(0, at);
    if (key in out) throw new UsageError(`attribute '${key}' is given twice`);
    out[key] = pair.slice(at + 1);
  }
  return out;
}

/**
 * `git walrus provider register|show|unbond|withdraw|claim [provider]`: a compute provider's life on chain. Register
 * stakes SUI and posts a price; unbond stops new leases and starts the delay; withdraw takes the stake back once every
 * lease is closed and the delay passed; claim takes what the leases have earned.
 */
export const providerCommand: CommandModule<CliArgs, ProviderArgs> = {
  command: 'provider <action> [provider]',
  describe: 'register as a compute provider, show it, claim earnings, unbond and withdraw the stake',
  builder: (y) =>
    y
      .example('$0 provider register --stake 100 --price 2MIST --endpoint https://compute.example', 'stake 100 SUI and take leases at 2 MIST per millisecond')
      .example('$0 provider show --json', 'your provider\'s stake, price and leases, as JSON')
      .positional('action', { choices: ['register', 'show', 'unbond', 'withdraw', 'claim'] as const, demandOption: true })
      .positional('provider', { type: 'string', describe: 'provider object id (default: the one whose cap your key holds)' })
      .option('stake', { type: 'string', describe: 'register: the stake, in SUI (e.g. 100 or 100SUI) or MIST (e.g. 5MIST)' })
      .option('price', { type: 'string', describe: 'register: price per millisecond of a lease, e.g. 2MIST (1 MIST/ms = 0.0036 SUI/hour)' })
      .option('endpoint', { type: 'string', describe: 'register: where tenants reach you (URL)' })
      .option('attribute', { type: 'string', array: true, default: [], describe: 'register: key=value, repeatable (region=eu, cpu=4)' })
      .option('json', { type: 'boolean', default: false, describe: 'show: machine-readable output' })
      .option('lease', { type: 'string', array: true, describe: 'claim: only these leases (default: every lease of the provider not yet closed)' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const { formatProvider, providerJson } = await import('../remote/market/format.ts');
    await withMarket(app, argv, async (market) => {
      if (argv.action === 'register') {
        if (argv.stake === undefined || argv.price === undefined || argv.endpoint === undefined) throw new UsageError('provider register needs --stake, --price and --endpoint');
        const stake = parseSuiAmount(argv.stake, 'stake');
        const price = parseSuiAmount(argv.price, 'price');
        const { providerId, digest } = await market.register(stake, price, argv.endpoint, attributes(argv.attribute ?? []));
        app.log.info(`Registered with a stake of ${formatSui(stake)} at ${formatPrice(price)} (transaction ${digest}).`);
        app.stdout(`${providerId}\n`);
        return;
      }
      const id = await providerArg(market, argv.provider);
      if (argv.action === 'show') {
        const [provider, now] = await Promise.all([market.getProvider(id), market.clockMs()]);
        app.stdout(argv.json ? providerJson(provider, now) : formatProvider(provider, now));
      } else if (argv.action === 'unbond') {
        const { withdrawableAtMs, digest } = await market.requestUnbond(id);
        app.log.info(`Unbonding: no new lease from now on; the stake can be withdrawn from ${new Date(withdrawableAtMs).toISOString()} once every lease is closed (transaction ${digest}).`);
      } else if (argv.action === 'withdraw') {
        const { amount, digest } = await market.withdrawStake(id);
        app.log.info(`Withdrew ${formatSui(amount)} (transaction ${digest}).`);
      } else {
        const leases = argv.lease ?? (await market.listLeases(id)).filter((l) => l.state !== 'closed').map((l) => l.id);
        let total = 0n;
        for (const lease of leases) {
          const { paid, digest } = await market.claim(lease);
          total += paid;
          app.log.info(`lease ${lease}: claimed ${formatSui(paid)} (transaction ${digest})`);
        }
        app.stdout(`claimed ${formatSui(total)} from ${leases.length} lease${leases.length === 1 ? '' : 's'}\n`);
      }
    });
  },
};
