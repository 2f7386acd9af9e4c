import type { GitWorkspace } from '../ports/git-workspace.ts';
import { readGitConfigSnapshot } from './config-snapshot.ts';
import type { GitConfigSnapshot } from './config-snapshot.ts';
import { git, runGit } from './run-git.ts';
import type { GitOptions } from './run-git.ts';

/** The workspace of a `git walrus` process, which also hands its config snapshot to the network's settings. */
export interface ProcessWorkspace extends GitWorkspace {
  /**
   * The `walrus` and `remote` sections of the git config, read by one git process on first need and again after this
   * workspace changes the config: the network's settings, the remote's URL and a command's own `walrus.*` option
   * then cost one process instead of one each.
   */
  configSnapshot(): Promise<GitConfigSnapshot>;
}

const SNAPSHOT_SECTIONS = ['walrus', 'remote'];

/**
 * The git repository around `options.cwd` (default: the working directory), as `git walrus` commands see it; git runs
 * with `options.env` (the composition root passes the process's).
 */
export function gitWorkspace(options: Pick<GitOptions, 'cwd'> & { env: NodeJS.ProcessEnv }): ProcessWorkspace {
  let snapshot: Promise<GitConfigSnapshot> | null = null;
  const configSnapshot = () => (snapshot ??= readGitConfigSnapshot(SNAPSHOT_SECTIONS, options));
  const getConfig = async (key: string): Promise<string | null> => {
    if (SNAPSHOT_SECTIONS.includes(key.split('.')[0]!.toLowerCase())) return (await configSnapshot()).get(key) ?? null;
    const result = await runGit(['config', '--get', key], options);
    return result.code === 0 ? result.stdout.trim() : null;
  };
  const changingConfig = async (args: string[]) => {
    snapshot = null;
    await git(args, options);
  };
  return {
    configSnapshot,
    isRepository: async () => (await runGit(['rev-parse', '--git-dir'], options)).code === 0,
    remoteUrl: (name) => getConfig(`remote.${name}.url`),
    addRemote: (name, url) => changingConfig(['remote', 'add', name, url]),
    getConfig,
    setConfig: (key, value) => changingConfig(['config', key, value]),
    localRepository: async () => {
      const result = await runGit(['rev-parse', '--absolute-git-dir'], options);
      // Only `gc` works on the local repository: the other commands never load it.
      return result.code === 0 ? new (await import('./native-repository.ts')).NativeGitRepository(result.stdout.trim(), options.env) : null;
    },
    // `symbolic-ref` names the branch even before its first commit; it fails (exit 1 with -q) on a detached HEAD.
    currentBranch: async () => {
      const result = await runGit(['symbolic-ref', '-q', 'HEAD'], options);
      return result.code === 0 ? result.stdout.trim() : null;
    },
  };
}
