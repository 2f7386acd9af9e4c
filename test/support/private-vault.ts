/**
 * The world of the Seal adapter's tests: an embedded devnet (chain and its three key servers in process) in a
 * temporary directory, and a private repository `vault` created by a funded owner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { DEVNET_SEAL } from '../../src/core/devnet-protocol.ts';
import { silentLog } from '../../src/core/log.ts';
import { openLocalNetwork, type LocalNetwork } from '../../src/devnet/local-network.ts';
import { SealKeyService, type SealKeyServiceOptions } from '../../src/seal/key-service.ts';
import { SuiLedger } from '../../src/sui/ledger.ts';

export interface PrivateVault {
  dir: string;
  network: LocalNetwork;
  ownerKey: Ed25519Keypair;
  owner: SuiLedger;
  repository: { id: string; name: string; owner: string };
}

/** Fills `context` (a uvu suite context) with a fresh vault; `prefix` names its temporary directory. */
export async function openPrivateVault(context: PrivateVault, prefix: string): Promise<void> {
  context.dir = mkdtempSync(join(tmpdir(), prefix));
  context.network = await openLocalNetwork(join(context.dir, 'net'));
  context.ownerKey = Ed25519Keypair.generate();
  await context.network.faucet(context.ownerKey.toSuiAddress());
  context.owner = new SuiLedger({ client: context.network.client, signer: context.ownerKey, packageId: context.network.packageId, registryId: context.network.registryId });
  const { id } = await context.owner.createRepository('vault', 'refs/heads/main', { private: true });
  context.repository = { id, name: 'vault', owner: context.ownerKey.toSuiAddress() };
}

export async function closePrivateVault(context: PrivateVault): Promise<void> {
  await context.network.close();
  rmSync(context.dir, { recursive: true, force: true });
}

/** The Seal adapter as `key` against the vault's network and its key servers (2 of 3); `options` override. */
export function vaultKeyService(context: PrivateVault, key: Ed25519Keypair, options: Partial<SealKeyServiceOptions> = {}): SealKeyService {
  return new SealKeyService({
    suiClient: context.network.client,
    packageId: context.network.packageId,
    keyServers: DEVNET_SEAL.keyServers,
    threshold: DEVNET_SEAL.threshold,
    signer: async () => key,
    fetch: context.network.keyServerFetch,
    log: silentLog,
    ...options,
  });
}
