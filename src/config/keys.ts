import { link, mkdir, open, readFile, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, isAbsolute, join } from 'node:path';
import { homedir } from 'node:os';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { Keypair } from '@mysten/sui/cryptography';
import { readConfigFile } from './home.ts';
import type { Env } from './home.ts';
import { encodeKeystore, keypairFromSuiPrivateKey, KeyFormatError, parseKeystore } from './keystore.ts';
import { parseSuiClientYaml } from './sui-client-yaml.ts';

export type SignerSource = 'env' | 'sui-cli' | 'keystore';

export interface LoadedSigner {
  signer: Keypair;
  address: string;
  source: SignerSource;
  /** The keystore file the key came from (not for `env`). */
  path?: string;
}

/**
 * The key that signs transactions and pays for storage, in this order:
 * 1. GIT_WALRUS_KEY (`suiprivkey1…`);
 * 2. the Sui CLI's active address, when `client.yaml` exists ($SUI_CONFIG_DIR or ~/.sui/sui_config);
 * 3. `$GIT_WALRUS_HOME/keystore` (Sui keystore format), created with one new Ed25519 key on first use. Its active
 *    key is config.json's "activeAddress", else the first key.
 */
export async function loadSigner({ env, home }: { env: Env; home: string }): Promise<LoadedSigner> {
  if (env.GIT_WALRUS_KEY) {
    const signer = keypairFromSuiPrivateKey(env.GIT_WALRUS_KEY, 'GIT_WALRUS_KEY');
    return { signer, address: signer.toSuiAddress(), source: 'env' };
  }
  const userHome = env.HOME || homedir();
  const suiConfigDir = env.SUI_CONFIG_DIR || join(userHome, '.sui', 'sui_config');
  const clientYaml = await readIfExists(join(suiConfigDir, 'client.yaml'));
  if (clientYaml !== undefined) {
    const client = parseSuiClientYaml(clientYaml);
    const path = resolvePath(client.keystorePath ?? 'sui.keystore', suiConfigDir, userHome);
    const text = await readIfExists(path);
    if (text === undefined) throw new KeyFormatError(path, `the Sui CLI config ${join(suiConfigDir, 'client.yaml')} names this keystore, but it does not exist`);
    return { ...pick(parseKeystore(text, path), client.activeAddress, path), source: 'sui-cli', path };
  }
  const path = join(home, 'keystore');
  const keypairs = parseKeystore((await readIfExists(path)) ?? (await createKeystore(path)), path);
  return { ...pick(keypairs, readConfigFile(home).activeAddress, path), source: 'keystore', path };
}

function pick(keypairs: Keypair[], activeAddress: string | undefined, path: string): { signer: Keypair; address: string } {
  if (keypairs.length === 0) throw new KeyFormatError(path, 'the keystore holds no keys');
  const wanted = activeAddress?.toLowerCase();
  const signer = wanted === undefined ? keypairs[0]! : keypairs.find((k) => k.toSuiAddress() === wanted);
  if (signer === undefined) throw new KeyFormatError(path, `the active address ${activeAddress} has no key in this keystore`);
  return { signer, address: signer.toSuiAddress() };
}

/**
 * Writes a keystore with one new key, readable by the owner only. The file appears complete or not at all, and if
 * another process created one meanwhile, theirs wins (link fails with EEXIST) and is returned.
 */
async function createKeystore(path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const text = encodeKeystore([Ed25519Keypair.generate()]);
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(tmp, path);
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readFile(path, 'utf8');
  } finally {
    await unlink(tmp).catch(() => {});
  }
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function resolvePath(path: string, base: string, userHome: string): string {
  if (path.startsWith('~/')) return join(userHome, path.slice(2));
  return isAbsolute(path) ? path : join(base, path);
}
