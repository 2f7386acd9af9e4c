import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';

/** A fresh key: its address, and the environment that makes git and `git walrus` act as it. */
export function identity(): { address: string; env: { GIT_WALRUS_KEY: string } } {
  const key = new Ed25519Keypair();
  return { address: key.toSuiAddress(), env: { GIT_WALRUS_KEY: key.getSecretKey() } };
}
