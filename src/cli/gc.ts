import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { collectGarbage } from '../remote/gc.ts';
import { formatBytes } from '../remote/progress.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

interface GcArgs extends CliArgs {
  remote: string;
  network?: string;
}

/**
 * `git walrus gc <remote|url>`, run in a clone: one consolidated pack of everything the refs reach, then `repack`
 * moves `live_from` to it, so new clones read one pack (DESIGN.md §12).
 */
export const gcCommand: CommandModule<CliArgs, GcArgs> = {
  command: 'gc <remote>',
  describe: 'consolidate the live packs into one (new clones then read one pack); run in a clone of the repository',
  builder: (y) => y.positional('remote', REMOTE_ARG).option('network', { type: 'string', describe: 'network to use' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const local = (await app.workspace.localRepository?.()) ?? null;
    if (local === null) throw new UsageError('git walrus gc builds the consolidated pack from a local repository: run it inside a clone of the remote');
    await withRemoteRepository(app, argv, async ({ ledger, blobStore, keyService }, id) => {
      const result = await collectGarbage({ ledger, blobStore, keyService, local, log: app.log }, id, app.log.verbosity >= 1);
      if (result === null) {
        app.log.info('Nothing to do: the repository has at most one live pack.');
        return;
      }
      app.stdout(`repacked ${result.replaced} live pack(s) into pack #${result.packIndex}: ${formatBytes(result.pack.size)} in ${result.pack.chunks.length} blob(s), seq ${result.seq}\n`);
    });
  },
};
