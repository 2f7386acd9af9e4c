import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { InternalError } from '../core/errors.ts';
import { leaseKeyService } from './market-services.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, resolveRemoteArg } from './remote-arg.ts';

interface CheckoutArgs extends CliArgs {
  remote: string;
  dir: string;
  commit?: string;
  lease?: string;
  network?: string;
}

/**
 * `git walrus checkout <url> <dir> [--commit <sha>]`: a clone of the repository into a new or empty directory with
 * every pack verified against the chain, checked out detached at `commit` (default: the commit of the repository's
 * HEAD branch), refused unless a branch or tag of the repository reaches it. A private repository is read as a member
 * (owner, writer, reader), or with `--lease <id>` as the provider of that lease. The build Job's first step; usable by
 * hand. Prints the commit on stdout; leaves the source (repository, commit, commit time) in the tree's build report.
 */
export const checkoutCommand: CommandModule<CliArgs, CheckoutArgs> = {
  command: 'checkout <remote> <dir>',
  describe: 'clone a repository into a new or empty directory and check one commit out (detached), verified against the chain',
  builder: (y) =>
    y
      .example('$0 checkout walrus://0x6cc8…cee0/myapp build', 'clone into build/ and check out the HEAD branch\'s commit')
      .example('$0 checkout walrus build --commit 39363cd6', 'check out one commit, detached')
      .positional('remote', REMOTE_ARG)
      .positional('dir', { type: 'string', demandOption: true, describe: 'where to check out (created if missing; must be empty)' })
      .option('commit', { type: 'string', describe: 'full commit id; it must be reachable from a branch or tag (default: the HEAD branch’s commit)' })
      .option('lease', { type: 'string', describe: 'read a private repository as the provider of this lease (the signer holds its ProviderCap)' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!app.createClone) throw new InternalError('this build of git walrus cannot create repositories');
    const createClone = app.createClone;
    const [{ claimEmptyDirectory, emptyDirectory }, { checkoutCommit }, { writeSource }] = await Promise.all([import('../fs/empty-directory.ts'), import('../remote/checkout.ts'), import('../gitops/build/build-report.ts')]);
    const dir = resolve(argv.dir);
    await claimEmptyDirectory(dir, 'checkout');
    const services = await app.open({ network: argv.network });
    let result;
    try {
      const { id, url } = await resolveRemoteArg(argv.remote, services.ledger, app.workspace);
      // A lease matters only for a private repository: a public one is read by anyone, with or without a cap.
      const underLease = argv.lease !== undefined && (await services.ledger.getRepository(id)).private;
      const keyService = underLease ? await leaseKeyService(services, argv.lease!, id) : services.keyService;
      result = await checkoutCommit({ ledger: services.ledger, blobStore: services.blobStore, log: app.log, createClone, ...(keyService ? { keyService } : {}) }, id, url, dir, argv.commit, app.log.verbosity >= 1);
      // Where the tree came from, for the reproducible build's plan and key (never packed).
      await writeSource(dir, { repository: id, commit: result.commit, commitTime: result.commitTime });
    } catch (error) {
      // Nothing half-cloned stays behind: the directory is as empty as it was.
      await emptyDirectory(dir);
      throw error;
    } finally {
      await services.close();
    }
    app.log.info(`Checked out ${result.commit} (reachable from ${result.refs.join(', ')}) into ${dir}`);
    app.stdout(`${result.commit}\n`);
  },
};
