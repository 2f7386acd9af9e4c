import { randomBytes } from 'node:crypto';
import type { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { bcs } from '@mysten/sui/bcs';
import { toBase58, normalizeSuiAddress } from '@mysten/sui/utils';
import type { CommitRecord } from './store.ts';
import { CLOCK_ID, CLOCK_TYPE, ClockContents, CoinContents, GAS_COIN_TYPE, PACKAGE_TYPE, deriveObjectId, storeObject, type ChainObject } from './objects.ts';
import { DEVNET_PACKAGE_ID, SYSTEM_TRANSACTIONS } from './fixed-ids.ts';
import type { CallContext } from './packages.ts';
import { WorkingSet, tableStore } from './working-set.ts';
import { MIST_PER_SUI, storageCost } from './limits.ts';
import { normalizeType } from './move-types.ts';

/** Every devnet's beginning: the genesis commit (the Clock, the faucet's coin, our package) and the market's publication. */

const GENESIS_DIGEST = SYSTEM_TRANSACTIONS.genesis.digest;
const MARKET_DIGEST = SYSTEM_TRANSACTIONS.market.digest;
const FAUCET_RESERVE = 1_000_000_000n * MIST_PER_SUI;
export const GENESIS_VERSION = 1n;
export const EPOCH = 0;

/** The genesis commit: the Clock, the faucet's coin, and our package published with its `init` run (the Registry). */
export async function genesisCommit(faucet: Ed25519Keypair): Promise<CommitRecord> {
  const { initWalrusGitPackage } = await import('./walrus-git-package.ts');
  const now = Date.now();
  const working = new WorkingSet({ get: () => undefined });
  let created = 1; // creation index 0 is the package itself
  const ctx = publicationContext(GENESIS_DIGEST, '0x0', working, () => created++);
  initWalrusGitPackage(DEVNET_PACKAGE_ID, ctx);
  const registry = [...working.written.values()].find((object) => object.type.endsWith('::repository::Registry'));
  if (!registry) throw new Error('package init created no Registry');
  const faucetCoinId = deriveObjectId(GENESIS_DIGEST, created++);
  const objects: ChainObject[] = [
    ...[...working.written.values()].map((object) => ({ ...object, version: GENESIS_VERSION, storageRebate: storageCost(object.contents.length) })),
    genesisObject(CLOCK_ID, CLOCK_TYPE, ClockContents.serialize({ id: CLOCK_ID, timestamp_ms: BigInt(now) }).toBytes(), { $kind: 'Shared', Shared: { initialSharedVersion: GENESIS_VERSION.toString() } }),
    { ...genesisObject(faucetCoinId, GAS_COIN_TYPE, CoinContents.serialize({ id: faucetCoinId, balance: FAUCET_RESERVE }).toBytes(), { $kind: 'AddressOwner', AddressOwner: faucet.toSuiAddress() }), hasPublicTransfer: true },
  ];
  return {
    genesis: {
      chainId: toBase58(randomBytes(32)),
      packageId: DEVNET_PACKAGE_ID,
      registryId: registry.id,
      registryInitialVersion: GENESIS_VERSION.toString(),
      faucetKey: faucet.getSecretKey(),
      timestampMs: now,
    },
    writes: objects.map(storeObject),
    deletes: [],
  };
}

/** The `market` module's publication: its `init` run by the faucet's address, which receives the AdminCap. */
export async function marketGenesis(admin: string): Promise<{ writes: ReturnType<typeof storeObject>[]; marketId: string; adminCapId: string }> {
  const { initMarketModule } = await import('./walrus-git-package.ts');
  const working = new WorkingSet({ get: () => undefined });
  let created = 0;
  const ctx = publicationContext(MARKET_DIGEST, admin, working, () => created++);
  const { marketId, adminCapId } = initMarketModule(DEVNET_PACKAGE_ID, ctx);
  return { writes: [...working.written.values()].map(storeObject), marketId, adminCapId };
}

/** The context a module's `init` runs in at publication: what it shares or sends is written at the genesis version. */
function publicationContext(digest: string, sender: string, working: WorkingSet, nextIndex: () => number): CallContext {
  const write = (type: string, contents: Uint8Array, owner: ChainObject['owner'], hasPublicTransfer: boolean) =>
    working.write({ ...genesisObject(bcs.Address.parse(contents.slice(0, 32)), type, contents, owner), hasPublicTransfer });
  return {
    sender: normalizeSuiAddress(sender),
    txDigest: digest,
    epoch: EPOCH,
    newId: () => deriveObjectId(digest, nextIndex()),
    emit: () => {},
    share: (type, contents) => write(type, contents, { $kind: 'Shared', Shared: { initialSharedVersion: GENESIS_VERSION.toString() } }, false),
    transfer: (type, contents, recipient) => write(type, contents, { $kind: 'AddressOwner', AddressOwner: normalizeSuiAddress(recipient) }, true),
    tables: tableStore(working, digest),
  };
}

export function genesisObject(id: string, type: string, contents: Uint8Array, owner: ChainObject['owner']): ChainObject {
  return {
    id, version: GENESIS_VERSION, owner, type: type === PACKAGE_TYPE ? type : normalizeType(type), contents, hasPublicTransfer: false, previousTransaction: GENESIS_DIGEST,
    storageRebate: storageCost(contents.length),
  };
}
