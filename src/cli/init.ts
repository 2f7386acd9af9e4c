import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { checkRepositoryName, formatWalrusUrl } from '../core/walrus-url.ts';
import type { CliArgs } from './app.ts';

interface InitArgs extends CliArgs {
  name: string;
  network?: string;
  remote: string;
  head: string;
}

/** `git walrus init <name>`: creates the repository on chain and, inside a git repository, adds it as a remote. */
export const initCommand: CommandModule<CliArgs, InitArgs> = {
  command: 'init <name>',
  describe: 'create a repository on the active network (and add it as a remote of the current git repository)',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'repository name' })
      .option('network', { type: 'string', describe: 'local, devnet, testnet or mainnet (default: GIT_WALRUS_NETWORK, git config walrus.network, else local)' })
      .option('remote', { type: 'string', default: 'walrus', describe: 'name of the git remote to add' })
      .option('head', { type: 'string', default: 'refs/heads/main', describe: 'the branch HEAD points to' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const name = checkRepositoryName(argv.name);
    const inRepository = await app.workspace.isRepository();
    // Checked before the transaction, so a taken remote name never leaves an orphan repository behind.
    if (inRepository && (await app.workspace.remoteUrl(argv.remote)) !== null) {
      throw new UsageError(`this git repository already has a remote named '${argv.remote}'; choose another with --remote NAME`, { remote: argv.remote });
    }
    const head = argv.head.startsWith('refs/') ? argv.head : `refs/heads/${argv.head}`;
    const services = await app.open({ network: argv.network });
    try {
      const { id, digest } = await services.ledger.createRepository(name, head);
      const url = formatWalrusUrl({ id });
      app.log.info(`Created repository '${name}' on ${services.networkName} (transaction ${digest}).`);
      app.log.info(`Owner ${services.ledger.address}; also reachable as ${formatWalrusUrl({ owner: services.ledger.address, name })}`);
      if (inRepository) {
        await app.workspace.addRemote(argv.remote, url);
        // A repository lives on one network: an explicit choice is remembered, so later pushes need no flag.
        if (argv.network !== undefined) await app.workspace.setConfig?.('walrus.network', services.networkName);
        app.log.info(`Added remote '${argv.remote}'. Push with: git push ${argv.remote} main`);
      }
      app.stdout(`${url}\n`);
    } finally {
      await services.close();
    }
  },
};
