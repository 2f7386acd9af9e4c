import type { CommandModule } from 'yargs';
import type { DeploymentLine } from '../remote/market/format.ts';
import type { CliArgs } from './app.ts';
import { rebuildHere, unsealer } from './artifact.ts';
import { ExitError } from './app.ts';
import { withMarket } from './market-services.ts';
import { REMOTE_ARG, resolveRemoteArg } from './remote-arg.ts';

interface DeploymentsArgs extends CliArgs {
  remote: string;
  verify?: boolean;
  rebuild?: boolean;
  network?: string;
  json: boolean;
}

/**
 * `git walrus deployments <remote|url> [--verify]`: what providers recorded deploying from this repository, oldest
 * first, each with how many other providers reproduced its build (their attestations on chain). With --verify each artifact is fetched from Walrus and checked against its sha256 (a private repository's
 * encrypted artifact by its members; anyone else is told it was not checked), and each commit against the push log;
 * exit 1 when anything does not hold. With --rebuild as well, each record's build is repeated on this machine
 * (`artifact rebuild`): a digest this machine does not reproduce is a problem naming the files that differ.
 */
export const deploymentsCommand: CommandModule<CliArgs, DeploymentsArgs> = {
  command: 'deployments <remote>',
  describe: 'list what providers deployed from a repository; --verify checks every artifact and commit',
  builder: (y) =>
    y
      .example('$0 deployments walrus --verify', 'what was deployed, each artifact and commit checked')
      .example('$0 deployments walrus --json', 'the same, as JSON')
      .positional('remote', REMOTE_ARG)
      .option('json', { type: 'boolean', default: false, describe: 'machine-readable output' })
      .option('verify', { type: 'boolean', default: false, describe: 'fetch each artifact from Walrus and check its sha256, and check each commit was pushed' })
      .option('rebuild', { type: 'boolean', default: false, describe: 'with --verify: also repeat each recorded build here and compare digests' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const [{ deploymentsJson, formatDeployments }, { verifyDeployments }, { artifactSha256 }, { reproductionsOf }] = await Promise.all([
      import('../remote/market/format.ts'),
      import('../remote/market/deployments.ts'),
      import('../remote/artifacts.ts'),
      import('../remote/market/reproductions.ts'),
    ]);
    const problems = await withMarket(app, argv, async (market, services) => {
      const { id } = await resolveRemoteArg(argv.remote, services.ledger, app.workspace);
      const records = await market.listDeployments(id);
      const unseal = unsealer(services, undefined);
      const lines: DeploymentLine[] = argv.verify ? await verifyDeployments({ ledger: services.ledger, artifactSha256: (blobId) => artifactSha256({ blobStore: services.blobStore, archive: services.archive }, blobId, unseal) }, id, records) : records.map((record) => ({ record }));
      const reproductions = await reproductionsOf(market.attestations(), id, records);
      lines.forEach((line, i) => { line.reproduction = reproductions[i]!; });
      if (argv.verify && argv.rebuild) {
        const { formatVerdict } = await import('../gitops/build/rebuild.ts');
        for (const line of lines) {
          const verdict = await rebuildHere(services, app, { repository: id, commit: line.record.commit, artifact: line.record.artifact, sha256: line.record.sha256, lease: line.record.lease });
          if (!verdict.reproduced) line.problems!.push(formatVerdict(verdict).trimEnd());
        }
      }
      app.stdout(argv.json ? deploymentsJson(lines) : formatDeployments(lines));
      return lines.reduce((n, l) => n + (l.problems?.length ?? 0), 0);
    });
    if (problems > 0) throw new ExitError('', 1);
  },
};
