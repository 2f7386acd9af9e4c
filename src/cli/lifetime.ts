import type { CommandModule } from 'yargs';
import { DEFAULT_EXPIRY_WARNING_EPOCHS, MAX_EPOCHS_AHEAD } from '../core/blob-lifetime.ts';
import { UsageError } from '../core/errors.ts';
import type { LiveLifetimes } from '../remote/lifetime.ts';
import type { BlobStore } from '../ports/blob-store.ts';
import type { Ledger, RepositoryInfo } from '../ports/ledger.ts';
import type { CliApp, CliArgs } from './app.ts';
import { REMOTE_ARG, withRemoteRepository } from './remote-arg.ts';

/** The yargs option of `log` and `verify`: how many epochs ahead an expiring live pack is reported. */
export const EXPIRY_WARNING_OPTION = {
  type: 'number',
  describe: `warn when a live pack expires within this many Walrus epochs (default: git config walrus.expiryWarningEpochs, else ${DEFAULT_EXPIRY_WARNING_EPOCHS})`,
} as const;

/** The warning window: the flag, else `git config walrus.expiryWarningEpochs`, else the default. */
export async function expiryWarningEpochs(app: CliApp, flag: number | undefined): Promise<number> {
  const configured = flag ?? (await app.workspace.getConfig?.('walrus.expiryWarningEpochs')) ?? undefined;
  if (configured === undefined) return DEFAULT_EXPIRY_WARNING_EPOCHS;
  const epochs = Number(configured);
  if (!Number.isInteger(epochs) || epochs < 0) throw new UsageError(`the expiry warning must be a whole number of epochs (0 or more), got '${configured}'`);
  return epochs;
}

/**
 * Prints a warning for every live pack that expires within the window; returns the lifetimes (null: unknown).
 * `repository`: the caller's read of the repository, which the check then shares.
 */
export async function warnOfExpiry(app: CliApp, ports: { ledger: Ledger; blobStore: BlobStore }, id: string, remote: string, flag: number | undefined, repository?: Promise<RepositoryInfo>): Promise<LiveLifetimes | null> {
  const { expiryWarnings, liveLifetimes } = await import('../remote/lifetime.ts');
  const lifetimes = await liveLifetimes(ports.ledger, ports.blobStore, id, await expiryWarningEpochs(app, flag), repository);
  if (lifetimes === null) app.log.debug('this network\'s Walrus reports no blob lifetimes here: expiry not checked');
  else for (const warning of expiryWarnings(lifetimes, remote)) app.log.warn(warning);
  return lifetimes;
}

interface ExtendArgs extends CliArgs {
  remote: string;
  epochs: number;
  restore: boolean;
  network?: string;
}

/** `git walrus extend <remote|url> [--epochs N] [--restore]`: keeps every live pack stored for at least N more epochs. */
export const extendCommand: CommandModule<CliArgs, ExtendArgs> = {
  command: 'extend <remote>',
  describe: 'extend the Walrus storage of every live pack (your own Blob objects, on chain, paid in WAL)',
  builder: (y) =>
    y
      .example('$0 extend walrus --epochs 53', 'store every live pack until at least 53 epochs from now')
      .example('$0 extend walrus --restore', 'store again the packs whose Blob objects are someone else\'s')
      .positional('remote', REMOTE_ARG)
      .option('epochs', { type: 'number', default: 53, describe: 'keep every live pack stored at least this many epochs from now (at most 53)' })
      .option('restore', { type: 'boolean', default: false, describe: 'store again, under your key, the blobs whose Blob objects someone else owns (reads them; pays the write fee again)' }) as never,
  handler: async (argv) => {
    const { app } = argv;
    if (!Number.isInteger(argv.epochs) || argv.epochs < 1 || argv.epochs > MAX_EPOCHS_AHEAD) {
      throw new UsageError(`--epochs must be a whole number from 1 to ${MAX_EPOCHS_AHEAD} (Walrus stores at most ${MAX_EPOCHS_AHEAD} epochs ahead), got ${argv.epochs}`);
    }
    const { extendLivePacks, NotBlobOwnerError } = await import('../remote/lifetime.ts');
    await withRemoteRepository(app, argv, async ({ ledger, blobStore, blobObjects }, id) => {
      const objects = await blobObjects?.();
      const result = await extendLivePacks({ ledger, blobStore, ...(objects ? { blobObjects: objects } : {}), log: app.log }, id, argv.epochs, { restore: argv.restore });
      const restored = result.restored === 0 ? '' : `, ${result.restored} stored again`;
      const until = result.endEpoch === null ? '' : `; every live pack is stored until epoch ${result.endEpoch}`;
      const tx = result.digest === null ? '' : ` (transaction ${result.digest})`;
      app.stdout(`extended ${result.extended} blob(s)${tx}, ${result.kept} already stored long enough${restored}${until}\n`);
      if (result.notOwned.length > 0) throw new NotBlobOwnerError(id, objects ? await objects.owner() : 'this key', result.notOwned);
    });
  },
};
