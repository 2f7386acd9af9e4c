/**
 * The devnet's virtual system transactions and the objects they create: the same digests and ids on every devnet.
 * Each digest is `hashTyped('TransactionData', <its seed>)` in Base58 and each id `deriveObjectId(<digest>, <creation
 * index>)` (objects.ts), written out rather than derived at load: deriving them ran blake2b, cold, in every process
 * that opened the devnet (~5 ms of a helper's `list`, which has no other use for it). The devnet's tests derive each
 * again from the seeds below.
 */
export const SYSTEM_TRANSACTIONS = {
  /** Publishes our package (creation index 0) and creates the faucet's coin. */
  genesis: { seed: 'walrus_git devnet genesis', digest: 'HzV2breHFGAsvgYw7AmFgnZ4WZGtCGTVQgo6KJjoZ7Zr' },
  /** `previousTransaction` of an object the network updated outside a user transaction. */
  systemUpdate: { seed: 'walrus_git devnet system update', digest: 'J6m9QdQS8QPGQXCAodtVqjy5u9a5w18etdk4okgCbZUb' },
  /** Runs the `market` module's `init`, after genesis. */
  market: { seed: 'walrus_git devnet market', digest: '43ZmLWTTZfVXjTgUKa4piQBVV1Wi51XiZKXupipYppby' },
  /** Publishes the devnet's Walrus package (index 0), its System object (1) and the faucet's WAL (2). */
  walrusGenesis: { seed: 'walrus devnet system genesis', digest: 'HwjrbpxR5tfQgM6A59ex9UWRrb5UKddJ9bYswGT1qqXD' },
} as const;

/** Our package: `genesis`, creation index 0. */
export const DEVNET_PACKAGE_ID = '0x5be41031de1f451a6ccbdec3cab1c291457afda0fc5d9f4736e31e0919dccfe7';
/** `walrusGenesis`, creation indices 0, 1 and 2. */
export const WALRUS_SYSTEM_PACKAGE_ID = '0x67546e8b28522c15226f04f8ba4ba120a0eaaa9e5c7a7a70d3a257111f95c527';
export const WALRUS_SYSTEM_OBJECT_ID = '0xa637ad0ea9eb4e1a4da03e784912b4a36a40cd91ff74e8d3c2f17bd54aefa3ba';
export const WAL_RESERVE_COIN_ID = '0x73d903c7c081b97aa2005f0e6d941fe0de21b686e191417c7002d105ee167b54';
/** `walrusGenesis`, creation indices 3 and 4: the Staking object naming the storage committee, and its pools' table. */
export const WALRUS_STAKING_OBJECT_ID = '0xa7e68a6f51d6c7d96f9912384d49caf007ecdbbabc76361ffae4b474f4275112';
export const WALRUS_POOLS_TABLE_ID = '0x64bf9b479b95df59e255c1d7b871d30d6dca741f8a364c7122afacfa92167e21';
