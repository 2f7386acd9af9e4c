import { mkdir, readFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { homedir } from 'node:os';
import type { Keypair } from '@mysten/sui/cryptography';
import { readConfigFile } from './home.ts';
import type { Env } from './home.ts';
import { addressOfKey, generateEd25519Key, KeyFormatError, parseSuiPrivateKey } from './key-material.ts';
import type { KeyMaterial } from './key-material.ts';
import { encodeKeystore, parseKeystore } from './keystore.ts';
import { parseSuiClientYaml } from './sui-client-yaml.ts';
import { createFileExclusive } from '../fs/atomic.ts';

export type SignerSource = 'env' | 'sui-cli' | 'keystore';

export interface LoadedKey {
  material: KeyMaterial;
  /** Its Sui address, normalized. */
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
 * Only bytes and the address: who signs is known without the SDK's keypairs (`keypairOf` makes the signer).
 */
export async function loadKeyMaterial({ env, home }: { env: Env; home: string }): Promise<LoadedKey> {
  if (env.GIT_WALRUS_KEY) {
    const material = parseSuiPrivateKey(env.GIT_WALRUS_KEY, 'GIT_WALRUS_KEY');
    return { material, address: addressOfKey(material), source: 'env' };
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
  const keys = parseKeystore((await readIfExists(path)) ?? (await createKeystore(path)), path);
  return { ...pick(keys, readConfigFile(home).activeAddress, path), source: 'keystore', path };
}

/**
 * The keypair for a key, to sign with: its module (and the SDK's cryptography) loads here, on first use. Ed25519 keys
 * sign through Node's crypto (ed25519-keypair.ts says why).
 */
export async function keypairOf({ scheme, secretKey }: KeyMaterial): Promise<Keypair> {
  switch (scheme) {
    case 'ED25519': return new (await import('./ed25519-keypair.ts')).NodeEd25519Keypair(secretKey);
    case 'Secp256k1': return (await import('@mysten/sui/keypairs/secp256k1')).Secp256k1Keypair.fromSecretKey(secretKey);
    case 'Secp256r1': return (await import('@mysten/sui/keypairs/secp256r1')).Secp256r1Keypair.fromSecretKey(secretKey);
  }
}

function pick(keys: KeyMaterial[], activeAddress: string | undefined, path: string): { material: KeyMaterial; address: string } {
  if (keys.length === 0) throw new KeyFormatError(path, 'the keystore holds no keys');
  const wanted = activeAddress?.toLowerCase();
  for (const material of keys) {
    const address = addressOfKey(material);
    if (wanted === undefined || address === wanted) return { material, address };
  }
  throw new KeyFormatError(path, `the active address ${activeAddress} has no key in this keystore`);
}

/**
 * Writes a keystore with one new key, readable by the owner only. The file appears complete or not at all, and if
 * another process created one meanwhile, theirs wins (link fails with EEXIST) and is returned.
 */
async function createKeystore(path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const text = encodeKeystore([generateEd25519Key()]);
  return (await createFileExclusive(path, text, 0o600)) ? text : readFile(path, 'utf8');
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
