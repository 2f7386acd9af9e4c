import type { CommandModule } from 'yargs';
import type { CliArgs } from './app.ts';
import { ExitError } from './app.ts';
import { UsageError } from '../core/errors.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';
import { EXPIRY_WARNING_OPTION, expiryWarningEpochs } from './lifetime.ts';

interface VerifyArgs extends CliArgs {
  remote: string;
  deep?: boolean;
  certified?: boolean;
  json?: boolean;
  network?: string;
  expiryWarning?: number;
}

/**
 * `git walrus verify <remote|url> [--deep]`: proves the history from chain and Walrus alone. Exits 0 only when every
 * check holds; each problem names the push, the blob and what differs. Progress goes to stderr.
 */
export const verifyCommand: CommandModule<CliArgs, VerifyArgs> = {
  command: 'verify <remote>',
  describe: 'check the push log against the chain, every live pack against Walrus, and with --deep the whole history',
  builder: (y) =>
    y
      .example('$0 verify walrus', 'the push log, the chain state and every live pack')
      .example('$0 verify walrus --deep', 'also every commit a ref ever pointed to')
      .positional('remote', REMOTE_ARG)
      .option('deep', { type: 'boolean', default: false, describe: 'also apply every pack in order and check every commit any ref pointed to' })
      .option('certified', { type: 'boolean', describe: 'prove the repository state against the validators\' certificates, asking every configured RPC (default: where the network has a trust anchor; --no-certified: trust the one node)' })
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
      .option('expiry-warning', EXPIRY_WARNING_OPTION) as never,
  handler: async (argv) => {
    const { app } = argv;
    const [{ ansiStyle, plainStyle }, { formatVerifyJson, formatVerifyText }, { verifyRepository }, { expiryWarnings }] = await Promise.all([
      import('../remote/history/format-log.ts'),
      import('../remote/history/format-verify.ts'),
      import('../remote/history/verify-repository.ts'),
      import('../remote/lifetime.ts'),
    ]);
    const problems = await withRemoteRepository(app, argv, async (services, id) => {
      if (argv.certified === true && services.certified === undefined) {
        throw new UsageError(`network ${services.networkName} has no trust anchor for certified reads: set walrus.certifiedAnchor (see README, Certified reads), or run without --certified`);
      }
      const certified = argv.certified === false ? undefined : await services.certified?.();
      const report = await verifyRepository(
        { ledger: services.ledger, blobStore: services.blobStore, blobIdOf: services.blobIdOf, openPackObjects: services.openPackObjects, keyService: services.keyService, log: app.log, ...(certified ? { certified } : {}) },
        id,
        { deep: argv.deep, expiryWarningEpochs: await expiryWarningEpochs(app, argv.expiryWarning) },
      );
      if (report.lifetimes) for (const warning of expiryWarnings(report.lifetimes, argv.remote)) app.log.warn(warning);
      app.stdout(argv.json ? formatVerifyJson(report) : formatVerifyText(report, app.stdoutColor ? ansiStyle : plainStyle));
      return report.findings.length;
    }, { readsRepositoryFirst: true });
    // The report on stdout already names every problem: exit 1 with nothing more to say.
    if (problems > 0) throw new ExitError('', 1);
  },
};
