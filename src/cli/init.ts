import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { checkRepositoryName, formatWalrusUrl } from '../core/walrus-url.ts';
import type { CliArgs } from './app.ts';
import type { GitWorkspace } from '../ports/git-workspace.ts';

interface InitArgs extends CliArgs {
  name: string;
  network?: string;
  remote: string;
  head?: string;
  private?: boolean;
}

/** `git walrus init <name>`: creates the repository on chain and, inside a git repository, adds it as a remote. */
export const initCommand: CommandModule<CliArgs, InitArgs> = {
  command: 'init <name>',
  describe: 'create a repository on the active network (and add it as a remote of the current git repository)',
  builder: (y) =>
    y
      .example('$0 init myapp', 'create the repository myapp on chain and add it as the remote walrus')
      .example('$0 init myapp --private --network devnet', 'a private repository on a git walrus devnet server')
      .positional('name', { type: 'string', demandOption: true, describe: 'repository name' })
      .option('remote', { type: 'string', default: 'walrus', describe: 'name of the git remote to add' })
      .option('head', { type: 'string', describe: 'the branch HEAD points to (default: the current branch, else git config init.defaultBranch, else main)' })
      .option('private', { type: 'boolean', default: false, describe: 'encrypt every pack: only the owner, writers and readers (git walrus readers add) can read it' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const name = checkRepositoryName(argv.name);
    const inRepository = await app.workspace.isRepository();
    // Checked before the transaction, so a taken remote name never leaves an orphan repository behind.
    if (inRepository && (await app.workspace.remoteUrl(argv.remote)) !== null) {
      throw new UsageError(`this git repository already has a remote named '${argv.remote}'; choose another with --remote NAME`, { remote: argv.remote });
    }
    const head = argv.head === undefined ? await defaultHead(app.workspace, inRepository) : fullBranchName(argv.head);
    const services = await app.open({ network: argv.network });
    try {
      if (argv.private && services.keyService === undefined) {
        throw new UsageError(`network ${services.networkName} has no Seal key servers configured, so it cannot hold a private repository (README: Private repositories)`, { network: services.networkName });
      }
      const { id, digest } = await services.ledger.createRepository(name, head, { private: argv.private ?? false });
      const url = formatWalrusUrl({ id });
      app.log.info(`Created ${argv.private ? 'private ' : ''}repository '${name}' on ${services.networkName} (transaction ${digest}).`);
      if (argv.private) app.log.info(`Its packs are encrypted; let others read it with: git walrus readers add ${url} <address>`);
      const owner = await services.ledger.signerAddress();
      app.log.info(`Owner ${owner}; also reachable as ${formatWalrusUrl({ owner, name })}`);
      if (inRepository) {
        await app.workspace.addRemote(argv.remote, url);
        // A repository lives on one network: an explicit choice is remembered, so later pushes need no flag.
        if (argv.network !== undefined) await app.workspace.setConfig?.('walrus.network', services.networkName);
        app.log.info(`Added remote '${argv.remote}'. Push with: git push ${argv.remote} ${head.replace(/^refs\/heads\//, '')}`);
      }
      app.stdout(`${url}\n`);
    } finally {
      await services.close();
    }
  },
};

const fullBranchName = (branch: string) => (branch.startsWith('refs/') ? branch : `refs/heads/${branch}`);

/**
 * The branch a clone should check out: the one being worked on (so the first push creates it), else the
 * repository's configured default for new branches, else `main`. Outside a repository there is nothing to follow.
 */
async function defaultHead(workspace: GitWorkspace, inRepository: boolean): Promise<string> {
  if (inRepository) {
    const current = await workspace.currentBranch?.();
    if (current) return current;
    const configured = await workspace.getConfig?.('init.defaultBranch');
    if (configured) return fullBranchName(configured);
  }
  return 'refs/heads/main';
}
