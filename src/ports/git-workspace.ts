import type { LocalRepository } from './local-repository.ts';

/** The git repository around the working directory, as the `git walrus` commands see it (src/git/workspace.ts). */
export interface GitWorkspace {
  /** Whether the working directory is inside a git repository. */
  isRepository(): Promise<boolean>;
  /** The URL of a configured remote; null when there is no such remote. */
  remoteUrl(name: string): Promise<string | null>;
  addRemote(name: string, url: string): Promise<void>;
  /** A value of the git config as the repository sees it (`git config --get <key>`); null when unset. */
  getConfig?(key: string): Promise<string | null>;
  /** Sets a value in the repository's git config (`git config <key> <value>`). */
  setConfig?(key: string, value: string): Promise<void>;
  /** The full name of the branch HEAD points to (even before its first commit); null when HEAD is detached. */
  currentBranch?(): Promise<string | null>;
  /** The repository's objects, for commands that build packs (`git walrus gc`); null outside a repository. */
  localRepository?(): Promise<LocalRepository | null>;
}
