/**
 * What the devnet (src/devnet/) and its clients (src/config/) agree on: the paths of its own HTTP endpoints and its
 * Seal key servers. One definition, so the stand-in and the configuration that finds it never drift apart.
 */

/** Where a `git walrus devnet` server describes itself (ids, URLs, shard count). */
export const DEVNET_INFO_PATH = '/v1/devnet';
/** The devnet faucet's WAL endpoint, beside the Sui faucet's `/v2/gas` (same request body). */
export const WAL_FAUCET_PATH = '/v2/wal';

export interface SealConfig {
  keyServers: { objectId: string; weight: number; apiKeyName?: string; apiKey?: string }[];
  threshold: number;
}

/**
 * The devnet's Seal key servers (the embedded `local` network and `git walrus devnet`): three independent servers,
 * each with its own master key, whose `KeyServer` objects every devnet chain holds at these ids; any 2 of the 3 open a
 * key, so one may be down. Testnet and mainnet name the key servers by configuration (`sealKeyServers`,
 * `sealThreshold`): Mysten's and other providers' published object ids.
 */
export const DEVNET_SEAL: SealConfig = {
  keyServers: [
    '0xbd8ccedf3f20ba43f15180a4ee50b6daa5568ae700f0c5f2d47da47c9ff2309b',
    '0x8466418fd7b65ba6b3baae75d18bcb8361e3c3e8f441f3a26c3531794da4cbb2',
    '0x0b97b06a269d80d4c0c3cf63005cfc2b8fde1c5d020129463f8e93b686eb7bc1',
  ].map((objectId) => ({ objectId, weight: 1 })),
  threshold: 2,
};
