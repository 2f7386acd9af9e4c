import { resolve } from 'node:path';
import { walrusHome } from '../config/home.ts';
import type { LoadedKey } from '../config/keys.ts';
import { resolveNetwork } from '../config/networks.ts';
import type { NetworkConfig } from '../config/networks.ts';
import { readGitConfigSnapshot } from '../git/config-snapshot.ts';
import type { GitConfigSnapshot } from '../git/config-snapshot.ts';

/** The network a process works on and the key it signs with, as the environment, git config and config.json say. */
export interface ActiveNetwork {
  /** The environment, with GIT_WALRUS_NETWORK set where a --network flag overrides it. */
  env: NodeJS.ProcessEnv;
  /** GIT_WALRUS_HOME, absolute. */
  home: string;
  config: NetworkConfig;
  /** The signing key, read once, on first need: a clone or fetch never reads it. */
  loadKey(): Promise<LoadedKey>;
}

export interface ActiveNetworkOptions {
  env: NodeJS.ProcessEnv;
  /** Overrides GIT_WALRUS_NETWORK and config (the --network flag). */
  network?: string;
  /** The git config with its `walrus` section, when the caller started reading it already (the helper does, at once). */
  gitConfig?: Promise<GitConfigSnapshot>;
}

/**
 * Resolves the active network's settings without opening it: no client is made and the embedded network's state is
 * not touched (only `devnet` asks its server for its ids). `git walrus whoami` needs no more; openNetwork goes on from
 * here. Knowing the key's address takes @noble/curves only; @mysten/sui's keypairs load when a transaction is signed.
 */
export async function activeNetwork(options: ActiveNetworkOptions): Promise<ActiveNetwork> {
  const env = options.network ? { ...options.env, GIT_WALRUS_NETWORK: options.network } : options.env;
  const home = resolve(walrusHome(env));
  const gitConfig = await (options.gitConfig ?? readGitConfigSnapshot(['walrus'], { env }));
  const config = await resolveNetwork({ env, gitConfig: gitConfig.get, home });
  let key: Promise<LoadedKey> | null = null;
  const loadKey = () => (key ??= import('../config/keys.ts').then((keys) => keys.loadKeyMaterial({ env, home })));
  return { env, home, config, loadKey };
}
