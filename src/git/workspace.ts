import type { GitWorkspace } from '../ports/git-workspace.ts';
import { git, runGit } from './run-git.ts';
import type { GitOptions } from './run-git.ts';

/**
 * The git repository around `options.cwd` (default: the working directory), as `git walrus` commands see it; git runs
 * with `options.env` (the composition root passes the process's).
 */
export function gitWorkspace(options: Pick<GitOptions, 'cwd'> & { env: NodeJS.ProcessEnv }): GitWorkspace {
  const getConfig = async (key: string): Promise<string | null> => {
    const result = await runGit(['config', '--get', key], options);
    return result.code === 0 ? result.stdout.trim() : null;
  };
  return {
    isRepository: async () => (await runGit(['rev-parse', '--git-dir'], options)).code === 0,
    remoteUrl: (name) => getConfig(`remote.${name}.url`),
    addRemote: async (name, url) => { await git(['remote', 'add', name, url], options); },
    getConfig,
    setConfig: async (key, value) => { await git(['config', key, value], options); },
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
