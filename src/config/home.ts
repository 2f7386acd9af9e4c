import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { messageOf, WalrusGitError } from '../core/errors.ts';
import { jsonSyntaxProblem } from '../core/json-syntax.ts';

export type Env = Record<string, string | undefined>;

/** Settings a user may pin per network in the config file (the same names as the `walrus.*` git config keys). */
export interface NetworkSettings {
  packageId?: string;
  registryId?: string;
  /** The compute market's Market object. */
  marketId?: string;
  suiUrl?: string;
  publisherUrl?: string;
  aggregatorUrl?: string;
  uploadRelayUrl?: string;
  faucetUrl?: string;
  /** Seal key servers for private repositories: `<object id>[:<weight>]`, comma-separated. */
  sealKeyServers?: string;
  /** Key servers (by weight) needed to open a key. */
  sealThreshold?: string;
  /** API keys some key servers' operators require: `<object id>=<header name>:<value>`, comma-separated (secret). */
  sealApiKeys?: string;
  /** More gRPC nodes of the network whose answers certified reads verify too: URLs, comma-separated. */
  certifiedRpcs?: string;
  /** The committee certified reads start from (testnet, mainnet): a JSON file `{epoch, members: [{publicKey, stake}]}`. */
  certifiedAnchor?: string;
  /** `true`: clone and fetch refuse heads they cannot prove certified. */
  requireCertified?: string;
  /** Devnet: write and read through the storage nodes with the Walrus SDK (its direct mode) instead of the publisher. */
  direct?: string;
}

/** `$GIT_WALRUS_HOME/config.json`. Every field is optional; an absent file is an empty one. */
export interface WalrusConfigFile {
  network?: string;
  devnetUrl?: string;
  epochs?: number;
  /** Store packs as deletable blobs, which a later gc deletes to reclaim storage (README: what readers may rely on). */
  deletablePacks?: boolean;
  /** Compute blob ids in a daemon that outlives one helper (README: The warm encoder). */
  warmEncoder?: boolean;
  /** Which key of the keystore signs (default: the first one). */
  activeAddress?: string;
  networks?: Record<string, NetworkSettings>;
}

export class ConfigFileError extends WalrusGitError {
  constructor(path: string, problem: string) {
    super('CONFIG_FILE', `${path}: ${problem}; fix or remove the file`, { path });
  }
}

/** GIT_WALRUS_HOME (or its default) cannot be used as git walrus's directory. */
export class WalrusHomeError extends WalrusGitError {
  constructor(home: string, problem: string) {
    super('WALRUS_HOME', `${home} cannot hold git walrus's keystore and settings: ${problem}; set GIT_WALRUS_HOME to a directory you can write (default ~/.git-walrus)`, { home });
  }
}

/** Where git-walrus keeps its keystore, config file and the embedded network's state. */
export function walrusHome(env: Env): string {
  return env.GIT_WALRUS_HOME || join(env.HOME || homedir(), '.git-walrus');
}

export function configFilePath(home: string): string {
  return join(home, 'config.json');
}

export function readConfigFile(home: string): WalrusConfigFile {
  const path = configFilePath(home);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return {};
    if (code === 'EISDIR') throw new ConfigFileError(path, 'is a directory, not a file');
    if (code === 'ENOTDIR') throw new WalrusHomeError(home, 'a part of its path is a file, not a directory');
    throw new ConfigFileError(path, `cannot be read (${code ?? messageOf(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(path, jsonSyntaxProblem(error, text));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ConfigFileError(path, 'expected a JSON object');
  const file = parsed as WalrusConfigFile;
  for (const key of ['network', 'devnetUrl', 'activeAddress'] as const) {
    if (file[key] !== undefined && typeof file[key] !== 'string') throw new ConfigFileError(path, `"${key}" must be a string`);
  }
  if (file.epochs !== undefined && (!Number.isInteger(file.epochs) || file.epochs < 1)) throw new ConfigFileError(path, '"epochs" must be a positive integer');
  if (file.deletablePacks !== undefined && typeof file.deletablePacks !== 'boolean') throw new ConfigFileError(path, '"deletablePacks" must be true or false');
  if (file.warmEncoder !== undefined && typeof file.warmEncoder !== 'boolean') throw new ConfigFileError(path, '"warmEncoder" must be true or false');
  if (file.networks !== undefined && (typeof file.networks !== 'object' || file.networks === null)) throw new ConfigFileError(path, '"networks" must be an object keyed by network name');
  return file;
}
