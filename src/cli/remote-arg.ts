import { UsageError } from '../core/errors.ts';
import { isWalrusUrl, parseWalrusUrl } from '../core/walrus-url.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { CliApp, CliServices } from './app.ts';
import type { GitWorkspace } from '../ports/git-workspace.ts';

/** The yargs positional of every command that works on one repository. */
export const REMOTE_ARG = { type: 'string', demandOption: true, describe: 'a git remote name or a walrus:// URL' } as const;

export interface ResolvedRemote {
  /** The repository object id. */
  id: string;
  /** The walrus:// URL the argument named (directly or through the git remote). */
  url: string;
}

/**
 * Resolves a `<remote|url>` argument: a walrus:// URL, or the name of a git remote of the current repository whose
 * URL is one. Throws a UsageError that says which it expected, or RepositoryNotFoundError from the ledger.
 */
export async function resolveRemoteArg(arg: string, ledger: Ledger, workspace: Pick<GitWorkspace, 'remoteUrl'>): Promise<ResolvedRemote> {
  const url = await walrusUrlOf(arg, workspace);
  return { id: await ledger.resolve(parseWalrusUrl(url)), url };
}

/** The walrus:// URL that `arg` names, itself or as a git remote (a git process), or a UsageError. */
async function walrusUrlOf(arg: string, workspace: Pick<GitWorkspace, 'remoteUrl'>): Promise<string> {
  if (isWalrusUrl(arg)) return arg;
  const configured = await workspace.remoteUrl(arg);
  if (configured === null) throw new UsageError(`'${arg}' is neither a walrus:// URL nor a git remote of this repository`, { arg });
  if (!isWalrusUrl(configured)) throw new UsageError(`remote '${arg}' points to ${configured}, not to a walrus:// repository`, { arg, url: configured });
  return configured;
}

/**
 * Opens the network, resolves `remote` on it and runs `use`; the network is closed whatever happens. With
 * `readsRepositoryFirst` (a `use` whose first step reads the repository, which throws RepositoryNotFoundError for a
 * wrong id as resolving does), an id is not read on its own first: one round trip less on a real network.
 */
export async function withRemoteRepository<T>(
  app: CliApp,
  args: { remote: string; network?: string },
  use: (services: CliServices, id: string) => Promise<T>,
  options: { readsRepositoryFirst?: boolean } = {},
): Promise<T> {
  // The remote's URL is looked up while the network opens; a failure to open still comes first.
  const named = walrusUrlOf(args.remote, app.workspace);
  named.catch(() => {}); // awaited below, once the network is open
  const services = await app.open({ network: args.network });
  try {
    const locator = parseWalrusUrl(await named);
    const id = options.readsRepositoryFirst && 'id' in locator ? locator.id : await services.ledger.resolve(locator);
    return await use(services, id);
  } finally {
    await services.close();
  }
}
