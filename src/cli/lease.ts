import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { normalizeSuiId } from '../core/walrus-url.ts';
import { formatPrice, formatSui, parseSuiAmount } from '../core/sui-amount.ts';
import type { CliArgs } from './app.ts';
import { withMarket } from './market-services.ts';
import { resolveRemoteArg } from './remote-arg.ts';
import type { WindowArgs } from './lease-window.ts';

interface LeaseArgs extends CliArgs, WindowArgs {
  action: 'open' | 'top-up' | 'close' | 'show' | 'status' | 'logs' | 'events' | 'require-reproduced';
  target: string;
  provider?: string;
  deposit?: string;
  amount?: string;
  ref?: string;
  'allow-missing-ref'?: boolean;
  'require-reproduced'?: number;
  count?: number;
  network?: string;
}

/**
 * `git walrus lease open <remote> --provider <id> --deposit <amount>` and `lease top-up|close|show <lease>`: a
 * tenant leases a provider to run one ref of a repository, paying into an escrow the clock settles; close refunds
 * what is not yet earned.
 */
export const leaseCommand: CommandModule<CliArgs, LeaseArgs> = {
  command: 'lease <action> <target>',
  describe: 'lease a compute provider for a repository (open), fund it (top-up), end it (close), show it, or see its app through the provider\'s gateway (status, logs, events)',
  builder: (y) =>
    y
      .example('$0 lease open walrus --provider 0x… --deposit 5', 'lease a provider for the remote\'s HEAD with 5 SUI of escrow')
      .example('$0 lease show 0x… --json', 'escrow, accrued, last deployment and, once it ended, why, as JSON')
      .example('$0 lease status 0x… --wait 1a2b3c4', 'follow a pushed commit to live or to its refusal, through the provider\'s gateway')
      .example('$0 lease logs 0x… --build', 'what the latest build and its tests printed')
      .example('$0 lease logs 0x… --follow', 'the app\'s logs as they are written, every replica, across rolling updates')
      .example('$0 lease require-reproduced 0x… --count 2', 'roll a release out only once 2 other providers reproduced its build')
      .positional('action', { choices: ['open', 'top-up', 'close', 'show', 'status', 'logs', 'events', 'require-reproduced'] as const, demandOption: true })
      .positional('target', { type: 'string', demandOption: true, describe: 'open: a git remote or walrus:// URL; otherwise the lease id' })
      .option('provider', { type: 'string', describe: 'open: the provider object id (see `git walrus providers`)' })
      .option('deposit', { type: 'string', describe: 'open: the escrow, in SUI (e.g. 5 or 5SUI) or MIST' })
      .option('ref', { type: 'string', describe: "open: the ref to serve (default: the repository's HEAD)" })
      .option('allow-missing-ref', { type: 'boolean', describe: 'open: lease a ref that does not exist yet (it runs once it is pushed)' })
      .option('require-reproduced', { type: 'number', describe: 'open: roll each release out only once this many other providers attested the same build' })
      .option('count', { type: 'number', describe: 'require-reproduced: how many other providers must agree (0 lifts the requirement)' })
      .option('json', { type: 'boolean', default: false, describe: 'show, status, logs, events: machine-readable output' })
      .option('wait', { type: 'string', describe: 'status: follow this commit to live or to its refusal, printing each stage' })
      .option('build', { type: 'string', describe: 'logs: what a build printed, step by step (the latest, or the commit given)' })
      .option('follow', { type: 'boolean', describe: 'logs: keep printing as the app writes, new replicas joining' })
      .option('since', { type: 'string', describe: 'logs: only lines newer than this (30s, 5m, 2h, 1d)' })
      .option('tail', { type: 'number', describe: 'logs: the last N lines of each replica (default 100)' })
      .option('replica', { type: 'number', describe: 'logs: only replica N (0-based, by pod name)' })
      .option('previous', { type: 'boolean', describe: 'logs: the run before the current one of each replica (the one that crashed)' })
      .option('amount', { type: 'string', describe: 'top-up: how much to add, in SUI or MIST' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const { formatApproxDuration, formatLease, leaseJson } = await import('../remote/market/format.ts');
    await withMarket(app, argv, async (market, services) => {
      const requireReproduced = async (leaseId: string, required: number) => {
        const { digest } = await market.attestations().requireReproduced(leaseId, required);
        app.log.info(required === 0
          ? `Lease ${leaseId} rolls releases out without waiting for attestations (transaction ${digest}).`
          : `Lease ${leaseId} rolls a release out only once ${required} other provider${required === 1 ? '' : 's'} attested the same build (transaction ${digest}).`);
      };
      if (argv.action === 'open') {
        if (argv.provider === undefined || argv.deposit === undefined) throw new UsageError('lease open needs --provider and --deposit');
        const deposit = parseSuiAmount(argv.deposit, 'deposit');
        const required = argv['require-reproduced'] === undefined ? undefined : requiredCount(argv['require-reproduced'], '--require-reproduced');
        const provider = await market.getProvider(normalizeSuiId(argv.provider));
        const { id } = await resolveRemoteArg(argv.target, services.ledger, app.workspace);
        const ref = argv.ref ?? (await services.ledger.getRepository(id)).head;
        if (!argv['allow-missing-ref'] && !(await services.ledger.listRefs(id)).has(ref)) {
          throw new UsageError(`${ref} does not exist in ${argv.target}: push it first, name another with --ref, or pass --allow-missing-ref to pay for it before it exists`, { ref });
        }
        const { openLease } = await import('../remote/market/open-lease.ts');
        const { leaseId, digest } = await openLease({ ledger: services.ledger, market }, provider.id, id, ref, deposit);
        const lasts = Number(deposit / provider.pricePerMs);
        app.log.info(`Opened a lease of ${ref} with ${formatSui(deposit)} at ${formatPrice(provider.pricePerMs)}: funded for about ${formatApproxDuration(lasts)} (transaction ${digest}).`);
        if (required !== undefined) await requireReproduced(leaseId, required);
        app.stdout(`${leaseId}\n`);
        return;
      }
      const lease = normalizeSuiId(argv.target);
      if (argv.action === 'require-reproduced') {
        if (argv.count === undefined) throw new UsageError('lease require-reproduced needs --count');
        await requireReproduced(lease, requiredCount(argv.count, '--count'));
        return;
      }
      if (argv.action === 'status' || argv.action === 'logs' || argv.action === 'events') {
        if (!services.signPersonalMessage) throw new UsageError('this build cannot sign requests to a provider\'s gateway');
        const window = await import('./lease-window.ts');
        const target = await window.gatewayOf(market, lease);
        const run = { status: window.leaseStatus, logs: window.leaseLogs, events: window.leaseEvents }[argv.action];
        await run(app, target, services.signPersonalMessage, argv);
        return;
      }
      if (argv.action === 'show') {
        const [info, now, required] = await Promise.all([market.getLease(lease), market.clockMs(), market.attestations().requiredReproductions(lease)]);
        const { reproductionsOf } = await import('../remote/market/reproductions.ts');
        const reproduction = info.lastDeploy ? (await reproductionsOf(market.attestations(), info.repository, [{ ...info.lastDeploy, provider: info.provider }]))[0] : undefined;
        app.stdout(argv.json ? leaseJson(info, now, required, reproduction) : formatLease(info, now, required, reproduction));
      } else if (argv.action === 'top-up') {
        if (argv.amount === undefined) throw new UsageError('lease top-up needs --amount');
        const amount = parseSuiAmount(argv.amount, 'amount');
        const { digest } = await market.topUp(lease, amount);
        app.log.info(`Added ${formatSui(amount)} to lease ${lease} (transaction ${digest}).`);
      } else {
        const { paid, refunded, digest } = await market.close(lease);
        app.stdout(`closed: ${formatSui(refunded)} refunded to the tenant, ${formatSui(paid)} paid to the provider\n`);
        app.log.info(`transaction ${digest}`);
      }
    });
  },
};

/** A number of agreeing attestations: a whole number from 0 to 16 (the contract's bound). */
function requiredCount(value: number, option: string): number {
  if (!Number.isInteger(value) || value < 0 || value > 16) throw new UsageError(`${option} takes a whole number from 0 to 16, not ${value}`);
  return value;
}
