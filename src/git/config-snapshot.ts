import { runGit } from './run-git.ts';
import type { GitOptions } from './run-git.ts';

/**
 * Whole sections of the git config (plain names: `walrus`, `remote`), read with one git process so that each lookup
 * costs none.
 */
export interface GitConfigSnapshot {
  /** The value `git config --get <key>` would give (the last one set); undefined when unset or not in the sections. */
  get(key: string): string | undefined;
}

/**
 * Reads every value of `sections` (`git config --null --get-regexp`). Outside a repository the global config still
 * answers; a config git cannot read answers as empty, as `git config --get` then finds nothing either.
 */
export async function readGitConfigSnapshot(sections: readonly string[], options: Pick<GitOptions, 'cwd' | 'env'>): Promise<GitConfigSnapshot> {
  const result = await runGit(['config', '--null', '--get-regexp', `^(${sections.join('|')})\\.`], options);
  return configSnapshot(result.code === 0 ? result.stdout : '');
}

/** The snapshot of `listing`, the output of `git config --null --get-regexp` (entries `key\nvalue\0`). */
function configSnapshot(listing: string): GitConfigSnapshot {
  const values = new Map<string, string>();
  for (const entry of listing.split('\0')) {
    const newline = entry.indexOf('\n');
    // A key without `=` (a bare boolean) has no newline: no setting we read is one.
    if (newline > 0) values.set(canonicalKey(entry.slice(0, newline)), entry.slice(newline + 1));
  }
  return { get: (key) => values.get(canonicalKey(key)) };
}

/**
 * A key as git compares it: section and variable name ignore case, a subsection (`remote.<name>.url`) does not. git
 * prints keys that way; a caller may spell them as the docs do (`walrus.expiryWarningEpochs`).
 */
function canonicalKey(key: string): string {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0) return key.toLowerCase();
  return `${key.slice(0, first).toLowerCase()}${key.slice(first, last)}${key.slice(last).toLowerCase()}`;
}
