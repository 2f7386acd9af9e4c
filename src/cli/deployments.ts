import type { CommandModule } from 'yargs';
import { formatDeployments } from '../remote/market/format.ts';
import type { DeploymentLine } from '../remote/market/format.ts';
import { verifyDeployments } from '../remote/market/deployments.ts';
import { artifactSha256 } from '../gitops/artifact/store.ts';
import type { CliArgs } from './app.ts';
import { unsealer } from './artifact.ts';
import { ExitError } from './app.ts';
import { NETWORK_OPTION, withMarket } from './market-services.ts';
import { REMOTE_ARG, resolveRemoteArg } from './remote-arg.ts';

interface DeploymentsArgs extends CliArgs {
  remote: string;
  verify?: boolean;
  network?: string;
}

/**
 * `git walrus deployments <remote|url> [--verify]`: what providers recorded deploying from this repository, oldest
 * first. With --verify each artifact is fetched from Walrus and checked against its sha256 (a private repository's
 * encrypted artifact by its members; anyone else is told it was not checked), and each commit against the push log;
 * exit 1 when anything does not hold.
 */
export const deploymentsCommand: CommandModule<CliArgs, DeploymentsArgs> = {
  command: 'deployments <remote>',
  describe: 'list what providers deployed from a repository; --verify checks every artifact and commit',
  builder: (y) =>
    y
      .positional('remote', REMOTE_ARG)
      .option('verify', { type: 'boolean', default: false, describe: 'fetch each artifact from Walrus and check its sha256, and check each commit was pushed' })
      .option('network', NETWORK_OPTION) as never,
  handler: async (argv) => {
    const { app } = argv;
    const problems = await withMarket(app, argv, async (market, services) => {
      const { id } = await resolveRemoteArg(argv.remote, services.ledger, app.workspace);
      const records = await market.listDeployments(id);
      const unseal = unsealer(services, undefined);
      const lines: DeploymentLine[] = argv.verify ? await verifyDeployments({ ledger: services.ledger, artifactSha256: (blobId) => artifactSha256(services.blobStore, blobId, unseal) }, id, records) : records.map((record) => ({ record }));
      app.stdout(formatDeployments(lines));
      return lines.reduce((n, l) => n + (l.problems?.length ?? 0), 0);
    });
    if (problems > 0) throw new ExitError('', 1);
  },
};
