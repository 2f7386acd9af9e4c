import type { CommandModule } from 'yargs';
import { UsageError } from '../core/errors.ts';
import { formatBytes } from '../remote/progress.ts';
import type { ReclaimResult } from '../remote/reclaim.ts';
import type { CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

interface GcArgs extends CliArgs {
  remote: string;
  delete: boolean;
  network?: string;
}

/**
 * `git walrus gc <remote|url>`, run in a clone: one consolidated pack of everything the refs reach, then `repack`
 * moves `live_from` to it, so new clones read one pack (docs/architecture.md, Storage lifecycle).
 */
export const gcCommand: CommandModule<CliArgs, GcArgs> = {
  command: 'gc <remote>',
  describe: 'consolidate the live packs into one (new clones then read one pack); run in a clone of the repository',
  builder: (y) =>
    y
      .example('$0 gc walrus', 'consolidate every live pack into one and delete the replaced blobs you may')
      .example('$0 gc walrus --no-delete', 'consolidate, keeping every replaced blob')
      .positional('remote', REMOTE_ARG)
      .option('delete', { type: 'boolean', default: true, describe: 'delete your deletable Blob objects of the replaced packs afterwards (--no-delete keeps them)' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    const local = (await app.workspace.localRepository?.()) ?? null;
    if (local === null) throw new UsageError('git walrus gc builds the consolidated pack from a local repository: run it inside a clone of the remote');
    const [{ collectGarbage }, { reclaimReplacedPacks }] = await Promise.all([import('../remote/gc.ts'), import('../remote/reclaim.ts')]);
    await withRemoteRepository(app, argv, async ({ ledger, blobStore, blobObjects, keyService }, id) => {
      const result = await collectGarbage({ ledger, blobStore, keyService, local, log: app.log }, id, app.log.verbosity >= 1);
      if (result === null) {
        app.log.info('Nothing to do: the repository has at most one live pack.');
        return;
      }
      app.stdout(`repacked ${result.replaced} live pack(s) into pack #${result.packIndex}: ${formatBytes(result.pack.size)} in ${result.pack.chunks.length} blob(s), seq ${result.seq}\n`);
      if (!argv.delete) return;
      if (blobObjects === undefined) {
        app.log.info('The replaced packs stay stored until they expire: this network\'s Walrus System object is not known here.');
        return;
      }
      const reclaimed = await reclaimReplacedPacks({ ledger, blobStore, blobObjects: await blobObjects(), log: app.log }, id);
      app.stdout(`${reclaimedSummary(reclaimed)}\n`);
    });
  },
};

/** What the deletion after a gc did, in one line. */
function reclaimedSummary(r: ReclaimResult): string {
  const deleted = r.deleted === 0 ? 'deleted no replaced blob' : `deleted ${r.deleted} replaced blob(s), reclaiming ${formatBytes(r.bytes)} of Walrus storage (transaction ${r.digest})`;
  const kept = [
    r.permanent === 0 ? '' : `${r.permanent} permanent (they stay until their end epoch)`,
    r.notOwned === 0 ? '' : `${r.notOwned} held by others' Blob objects`,
  ].filter(Boolean);
  return kept.length === 0 ? deleted : `${deleted}; kept ${kept.join(', ')}`;
}
