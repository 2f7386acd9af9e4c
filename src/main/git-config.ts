import { runGit } from '../git/run-git.ts';

/**
 * Reads every `walrus.*` git config value once (git prints keys in lower case), so the synchronous lookups the
 * network resolver makes cost one git process. Outside a repository, the global config still answers.
 */
export async function readWalrusGitConfig(env: NodeJS.ProcessEnv, cwd?: string): Promise<(key: string) => string | undefined> {
  const result = await runGit(['config', '--null', '--get-regexp', '^walrus\\.'], { env, cwd });
  const values = new Map<string, string>();
  for (const entry of result.stdout.split('\0')) {
    const newline = entry.indexOf('\n');
    if (newline > 0) values.set(entry.slice(0, newline).toLowerCase(), entry.slice(newline + 1));
  }
  return (key) => values.get(key.toLowerCase());
}
