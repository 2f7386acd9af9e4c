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

/** A devnet epoch lasts this many checkpoints (one transaction each): its last one names the next committee. */
export const DEVNET_EPOCH_CHECKPOINTS = 16;

/**
 * The committee every devnet chain starts with (epoch 0): the trust anchor a client pins for the devnet, as it pins
 * a published committee for testnet or mainnet. Its keys are BLS12-381 min_sig public keys (96-byte G2), stakes
 * out of 10,000. Later committees are learnt from the chain, each certified by the one before.
 */
export const DEVNET_GENESIS_COMMITTEE = {
  epoch: 0,
  members: [
    { publicKey: '99851848cb0b8cf4275d168fa35c5819068b4bd36b3ff5f4d3d3ecfe136b9413124640a6e952e1993032523817a0b8a3068d74a791f7e450df2bf95960c8e417aa3d502224eb71b59ee86b1a8f830c0520c7db29bed54b1ce728fbbc977c0947', stake: 4000 },
    { publicKey: '80cbbcdb9a8e1230a41b5e01296446a7c50f1f1b970384e42a06ab35c3c00cef041048c467ce045579fe586b0b6f1b2e00c418c4bc582345be4dc8c6fc00860177315b3332d489e3a8d55d63f27510f883017ef3154fdc9c1ffa33b9a7267662', stake: 3000 },
    { publicKey: 'a6bbfabb2e327dac4c1bf9cf451f7d0b14e020cc987167abd4a0f942419bff810292016cf1a43d56edae613e937b8a8c0b61253eedd459ca9cca1c773b0039993763fa95ea2e22b18af01c31a6e5e043993c9c14ceae3be4325734a016ca368e', stake: 2000 },
    { publicKey: 'b531bf1898bdd0daf1dc237265d3693428da4dab45504efced08c4ec7763b1786b87ccc46b26ca404dfd4c7ce4ec90a60c681065defcff16589a4ee923a6fb27723bb92319a77c7a785fd34c28ccdc2fed46cd9dd66c4ed136c60e9e3a28c1b4', stake: 1000 },
  ],
};
