import { join } from 'node:path';
import { writeFileAtomic } from '../../fs/atomic.ts';
import type { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { Transaction, TransactionObjectArgument } from '@mysten/sui/transactions';
import { normalizeSuiAddress, normalizeStructTag } from '@mysten/sui/utils';
import type { GenesisInfo } from './snapshot.ts';
import { ChainStore, type CommitRecord, type EventPosition, type TxRecord } from './store.ts';
import { CLOCK_ID, ClockContents, PACKAGE_TYPE, coinBalance, objectDigest, storeObject, type ChainObject } from './objects.ts';
import type { ExecutionResult } from './execution.ts';
import { DevnetCertifier, epochOfCheckpoint } from './certification.ts';
import { DEVNET_EPOCH_CHECKPOINTS } from '../../core/devnet-protocol.ts';
import { frameworkPackages, type MoveFunction, type MovePackage } from './packages.ts';
import { SYSTEM_TYPE, WAL_FAUCET_AMOUNT, WAL_TYPE, systemObjectContents, walCoinType, walReserveContents, walrusSystemPackage } from './walrus-system-package.ts';
import { DEVNET_PACKAGE_ID, SYSTEM_TRANSACTIONS, WAL_RESERVE_COIN_ID, WALRUS_SYSTEM_OBJECT_ID, WALRUS_SYSTEM_PACKAGE_ID } from './fixed-ids.ts';
import { ChainNotFoundError } from './errors.ts';
import { InternalError, UsageError } from '../../core/errors.ts';
import { FAUCET_AMOUNT, REFERENCE_GAS_PRICE, storageCost } from './limits.ts';
import { normalizeType } from './move-types.ts';
import { GENESIS_VERSION, genesisCommit, marketGenesis, genesisObject } from './genesis.ts';


/**
 * The devnet chain: one state directory, executing signed transactions and answering reads. Both fronts (the
 * in-process CoreClient and the JSON-RPC server) are thin translations over this class.
 */

export const SUI_TYPE = '0x2::sui::SUI';

/** An object the network itself writes outside any user transaction (a package, a key server's registration). */
export interface SystemObject {
  id: string;
  type: string;
  owner: ChainObject['owner'];
  contents: Uint8Array;
  /** Types with `store` (a Blob, a coin) can be sent on with `public_transfer`. */
  hasPublicTransfer?: boolean;
  /** Written only when missing: a later state (a coin spent from) is never reset. */
  createOnly?: boolean;
}

export interface EventQuery {
  /** A full Move event type; null = all events. */
  eventType: string | null;
  /** Position after (ascending) or before (descending) which to read. */
  cursor: { txDigest: string; eventSeq: number } | null;
  limit: number;
  descending: boolean;
}

/**
 * The faucet's key class, loaded when the faucet signs or a chain is created: @mysten/sui's keypairs pull its whole
 * cryptography (zkLogin, poseidon: ~15 MB and ~0.1 s), which a process that only reads the chain never needs.
 */
async function keypairClass(): Promise<typeof Ed25519Keypair> {
  return (await import('@mysten/sui/keypairs/ed25519')).Ed25519Keypair;
}

/**
 * The executor and the SDK's transaction builder, loaded at the first transaction or dry run: a process that only
 * reads the chain (a clone, a fetch, a listing) never needs them (~35 modules).
 */
const executor = () => import('./executor.ts');
/** What the faucet's own transfers may spend on gas. */
const FAUCET_GAS_BUDGET = 10_000_000n;

export class ChainEngine {
  readonly store: ChainStore;
  #packages: Promise<Map<string, MovePackage>> | null = null;
  /** Reads the storage epoch of the devnet Walrus service attached (null before one is), whose package the chain runs. */
  #walrusEpoch: (() => number) | null = null;

  private constructor(store: ChainStore) {
    this.store = store;
    this.certifier = new DevnetCertifier(store);
  }

  /** The chain's checkpoints, certified by its committees. */
  readonly certifier: DevnetCertifier;

  /**
   * The Move packages the chain runs, loaded and built at the first call or dry run: a process that only reads the
   * chain (a listing, a clone) never runs Move, and our package's model (src/contract/, ~45 KB of code) took ~5 ms of
   * its start.
   */
  packages(): Promise<Map<string, MovePackage>> {
    return (this.#packages ??= Promise.all([import('./walrus-git-package.ts'), import('./walrus-certificate.ts')]).then(([{ walrusGitPackage }, certificates]) => {
      const packages = [...frameworkPackages(), walrusGitPackage(DEVNET_PACKAGE_ID)];
      if (this.#walrusEpoch) packages.push(walrusSystemPackage(this.#walrusEpoch, certificates));
      return new Map(packages.map((pkg) => [pkg.id, pkg]));
    }));
  }

  /** Opens (creating at genesis if empty) the chain state in `dir`. */
  static async open(dir: string): Promise<ChainEngine> {
    const engine = new ChainEngine(new ChainStore(dir));
    await engine.store.refresh();
    if (!engine.store.genesis) {
      const Keypair = await keypairClass();
      const created = await engine.store.transact(async () => {
        if (engine.store.genesis) return { commit: null, result: false };
        return { commit: await genesisCommit(Keypair.generate()), result: true };
      });
      // The ids, also for people and tools that look into the directory (the log stays the source of truth).
      if (created) await writeFileAtomic(join(dir, 'genesis.json'), `${JSON.stringify(await engine.#publicGenesis(), null, 2)}\n`);
    }
    // The market module came after the first devnets: a chain without it gets it now, as a package upgrade would.
    if (!engine.genesis.marketId) {
      const faucet = await engine.faucetAddress();
      const published = await engine.store.transact(async () => {
        const genesis = engine.store.requireGenesis();
        if (genesis.marketId) return { commit: null, result: false };
        const { writes, marketId, adminCapId } = await marketGenesis(faucet);
        return { commit: { genesis: { ...genesis, marketId, adminCapId }, writes, deletes: [] }, result: true };
      });
      if (published) await writeFileAtomic(join(dir, 'genesis.json'), `${JSON.stringify(await engine.#publicGenesis(), null, 2)}\n`);
    }
    // Our package as an object at version 1 (Seal's SDK reads it to check it names a first version); also on chains
    // created before packages were objects.
    await engine.putSystemObjects([{ id: engine.genesis.packageId, type: PACKAGE_TYPE, owner: { $kind: 'Immutable', Immutable: true }, contents: new Uint8Array() }]);
    return engine;
  }

  /**
   * Writes objects outside any transaction, as genesis and system updates do: a missing object is created at version
   * 1 as part of genesis, one whose contents differ gets its next version (an operator's update, e.g. a key server's
   * new URL). Nothing is committed when every object is already as given, so opening a chain stays read-only.
   */
  async putSystemObjects(given: SystemObject[]): Promise<void> {
    const objects = given.map((object) => ({ ...object, id: normalizeSuiAddress(object.id), type: object.type === PACKAGE_TYPE ? PACKAGE_TYPE : normalizeType(object.type) }));
    const same = (object: SystemObject) => {
      const current = this.store.objects.get(object.id);
      if (current !== undefined && object.createOnly) return true;
      return current !== undefined && current.type === object.type && Buffer.from(current.contents).equals(object.contents);
    };
    await this.refresh();
    if (objects.every(same)) return;
    await this.store.transact(async () => {
      const writes = objects.filter((object) => !same(object)).map((object) => {
        const current = this.store.objects.get(object.id);
        const written: ChainObject = current
          ? { ...current, owner: object.owner, type: object.type, contents: object.contents, version: current.version + 1n, previousTransaction: SYSTEM_TRANSACTIONS.systemUpdate.digest }
          : genesisObject(object.id, object.type, object.contents, object.owner);
        return storeObject({ ...written, hasPublicTransfer: object.hasPublicTransfer ?? written.hasPublicTransfer, storageRebate: storageCost(object.contents.length) });
      });
      return { commit: writes.length ? { writes, deletes: [] } : null, result: undefined };
    });
  }

  /**
   * Publishes the devnet's Walrus system package (its System object, and the faucet's WAL) on this chain, with the
   * storage epoch of the devnet Walrus service that runs beside it (src/devnet/chain/walrus-system-package.ts).
   */
  async attachWalrus(epochNow: () => number): Promise<void> {
    this.#walrusEpoch = epochNow;
    if (this.#packages) (await this.#packages).set(WALRUS_SYSTEM_PACKAGE_ID, walrusSystemPackage(epochNow, await import('./walrus-certificate.ts')));
    await this.putSystemObjects([
      { id: WALRUS_SYSTEM_PACKAGE_ID, type: PACKAGE_TYPE, owner: { $kind: 'Immutable', Immutable: true }, contents: new Uint8Array() },
      { id: WALRUS_SYSTEM_OBJECT_ID, type: SYSTEM_TYPE, owner: { $kind: 'Shared', Shared: { initialSharedVersion: GENESIS_VERSION.toString() } }, contents: systemObjectContents() },
    ]);
  }

  /** Sends `amount` FROST of WAL to `address`, by a real transaction signed by the faucet's key (storage is paid in WAL). */
  async faucetWal(address: string, amount = WAL_FAUCET_AMOUNT): Promise<TxRecord> {
    const keypair = (await keypairClass()).fromSecretKey(this.genesis.faucetKey);
    // The faucet's WAL appears with its first request (its key, and so its address, loads only now).
    if (!this.#walrusEpoch) throw new UsageError('this devnet chain has no Walrus system attached: its faucet holds no WAL');
    await this.putSystemObjects([{ id: WAL_RESERVE_COIN_ID, type: walCoinType(), owner: { $kind: 'AddressOwner', AddressOwner: keypair.toSuiAddress() }, contents: walReserveContents(), hasPublicTransfer: true, createOnly: true }]);
    return this.store.transact(async () => {
      const sender = keypair.toSuiAddress();
      const gas = this.#faucetCoin(sender, SUI_TYPE, FAUCET_GAS_BUDGET);
      const wal = this.#faucetCoin(sender, WAL_TYPE, amount);
      return this.#faucetTransfer(keypair, gas, (tx) => tx.objectRef({ objectId: wal.id, version: wal.version.toString(), digest: objectDigest(wal) }), amount, address);
    });
  }

  get genesis(): GenesisInfo {
    return this.store.requireGenesis();
  }

  async #publicGenesis() {
    const { chainId, packageId, registryId, marketId, adminCapId, timestampMs } = this.genesis;
    return { chainId, packageId, registryId, marketId, adminCapId, faucetAddress: await this.faucetAddress(), genesisTimestampMs: timestampMs };
  }

  async faucetAddress(): Promise<string> {
    return (await keypairClass()).fromSecretKey(this.genesis.faucetKey).toSuiAddress();
  }

  async refresh(): Promise<void> {
    await this.store.refresh();
  }

  /** Executes a signed transaction and commits it; returns the record (also for a transaction already executed). */
  async execute(txBytes: Uint8Array, signatures: string[]): Promise<TxRecord> {
    return this.store.transact(() => this.#executeLocked(txBytes, signatures));
  }

  /**
   * Dry-runs a transaction (no signatures, nothing committed). `checks: false` is Sui's simulation with transaction
   * checks disabled (what an SDK resolving a transaction kind asks for, sender 0x0): owned inputs are not required to
   * be the sender's. A Seal key server's dry run keeps them: passing an owned object is how a policy proves holding it.
   */
  async simulate(txBytes: Uint8Array, options: { checks?: boolean } = {}): Promise<ExecutionResult> {
    await this.refresh();
    const { executeTransaction } = await executor();
    return executeTransaction({ ...this.#request(txBytes, [], true, this.#tickClock(Date.now()), await this.packages()), checks: options.checks ?? true });
  }

  /** Sends `amount` MIST to `address` in a new coin, by a real transaction signed by the faucet's key. */
  async faucet(address: string, amount = FAUCET_AMOUNT): Promise<TxRecord> {
    const keypair = (await keypairClass()).fromSecretKey(this.genesis.faucetKey);
    return this.store.transact(async () => this.#faucetTransfer(keypair, this.#faucetCoin(keypair.toSuiAddress(), SUI_TYPE, amount + FAUCET_GAS_BUDGET), (tx) => tx.gas, amount, address));
  }

  /**
   * The faucet's richest coin of `coinType`, holding at least `needed`. Its own address gets coins too (a test's admin
   * is funded from it), so a coin it holds may be too small to pay a transfer out of.
   */
  #faucetCoin(faucet: string, coinType: string, needed: bigint): ChainObject {
    const richest = this.coins(faucet, coinType).reduce<ChainObject | undefined>((best, coin) => (best && coinBalance(best) >= coinBalance(coin) ? best : coin), undefined);
    if (!richest || coinBalance(richest) < needed) throw new UsageError(`the devnet faucet has no ${coinType === WAL_TYPE ? 'WAL' : 'SUI'} left to give`);
    return richest;
  }

  /** A faucet's transfer: `amount` split from the coin `source` picks, paid with `gas`, signed by the faucet's key. */
  async #faucetTransfer(keypair: Ed25519Keypair, gas: ChainObject, source: (tx: Transaction) => TransactionObjectArgument, amount: bigint, address: string) {
    const tx = new (await import('@mysten/sui/transactions')).Transaction();
    tx.setSender(keypair.toSuiAddress());
    tx.setGasPrice(REFERENCE_GAS_PRICE);
    tx.setGasBudget(FAUCET_GAS_BUDGET);
    tx.setGasPayment([{ objectId: gas.id, version: gas.version.toString(), digest: objectDigest(gas) }]);
    const [sent] = tx.splitCoins(source(tx), [tx.pure.u64(amount)]);
    tx.transferObjects([sent], tx.pure.address(normalizeSuiAddress(address)));
    const bytes = await tx.build();
    const { signature } = await keypair.signTransaction(bytes);
    return this.#executeLocked(bytes, [signature], { mustSucceed: 'the devnet faucet' });
  }

  /** `mustSucceed` names the devnet's own sender whose failed transaction is refused whole rather than recorded. */
  async #executeLocked(txBytes: Uint8Array, signatures: string[], options: { mustSucceed?: string } = {}): Promise<{ commit: CommitRecord | null; result: TxRecord }> {
    const now = Date.now();
    const clock = this.#tickClock(now);
    const { executeTransaction } = await executor();
    const result = await executeTransaction(this.#request(txBytes, signatures, false, clock, await this.packages()));
    if (options.mustSucceed && !result.success) throw new InternalError(`${options.mustSucceed}'s transaction ${result.digest} failed; nothing was sent`, { digest: result.digest });
    const existing = await this.store.transaction(result.digest);
    if (existing) return { commit: null, result: existing };
    const commit = { ...result.commit, writes: [storeObject(clock), ...result.commit.writes] };
    return { commit, result: result.commit.tx! };
  }

  /** The Clock's time now (ms), as the next transaction would see it. */
  async clockMs(): Promise<bigint> {
    await this.refresh();
    return BigInt(ClockContents.parse(this.#tickClock(Date.now()).contents).timestamp_ms);
  }

  /**
   * Sets the Clock (a devnet control: tests at time boundaries, demos of delays). From then on it runs at real time
   * from `timestampMs`, or stays there when `frozen` until the next call. It never goes backwards: an earlier time
   * is refused. Committed like a transaction, so every process on this state directory sees the same clock.
   */
  async setClock(timestampMs: bigint, options: { frozen: boolean }): Promise<void> {
    await this.store.transact(async () => {
      const now = Date.now();
      const current = this.#tickClock(now);
      const previous = BigInt(ClockContents.parse(current.contents).timestamp_ms);
      if (timestampMs < previous) throw new UsageError(`the devnet clock is at ${previous} ms and never goes back (asked for ${timestampMs})`, { clockMs: previous.toString() });
      const clock = { ...current, contents: ClockContents.serialize({ id: CLOCK_ID, timestamp_ms: timestampMs }).toBytes() };
      return { commit: { clock: { offsetMs: Number(timestampMs) - now, frozen: options.frozen }, writes: [storeObject(clock)], deletes: [] }, result: undefined };
    });
  }

  /** The Clock as the consensus commit before this transaction sets it: real time (moved by `setClock`), never going backwards. */
  #tickClock(now: number): ChainObject {
    const clock = this.store.objects.get(CLOCK_ID)!;
    const previous = BigInt(ClockContents.parse(clock.contents).timestamp_ms);
    const control = this.store.clock;
    const target = control.frozen ? previous : BigInt(now + control.offsetMs);
    const timestamp = target > previous ? target : previous;
    return { ...clock, version: clock.version + 1n, contents: ClockContents.serialize({ id: CLOCK_ID, timestamp_ms: timestamp }).toBytes() };
  }

  #request(txBytes: Uint8Array, signatures: string[], simulate: boolean, clock: ChainObject, packages: Map<string, MovePackage>) {
    const objects = this.store.objects;
    return {
      objects: { get: (id: string) => (id === CLOCK_ID ? clock : objects.get(id)) },
      packages,
      chainId: this.genesis.chainId,
      epoch: Number(this.epoch),
      checkpoint: this.store.checkpoint + 1,
      txBytes,
      signatures,
      simulate,
      now: Date.now(),
    };
  }

  // --- reads (callers refresh first) ---

  /**
   * The epoch the next transaction runs in, which its effects record: the epoch of the next checkpoint. Once an
   * epoch's last checkpoint exists (the one naming the next committee) the network has moved on, as Sui's does at
   * its end-of-epoch checkpoint.
   */
  get epoch(): bigint {
    return epochOfCheckpoint(this.store.checkpoint + 1);
  }

  /** When `epoch` began: the time of the previous epoch's last checkpoint (genesis for epoch 0). */
  async epochStartMs(epoch: bigint = this.epoch): Promise<number> {
    return this.#checkpointTimeMs(Number(epoch) * DEVNET_EPOCH_CHECKPOINTS - 1);
  }

  /** When `epoch` ended: the time of its last checkpoint, the one naming the next committee; null while it runs. */
  async epochEndMs(epoch: bigint): Promise<number | null> {
    return epoch < this.epoch ? this.#checkpointTimeMs((Number(epoch) + 1) * DEVNET_EPOCH_CHECKPOINTS - 1) : null;
  }

  async #checkpointTimeMs(checkpoint: number): Promise<number> {
    if (checkpoint <= 0) return this.genesis.timestampMs;
    // Checkpoint n ≥ 1 holds the n-th transaction (in commit order).
    const at = [...this.store.transactions.values()][checkpoint - 1];
    return at ? (await this.store.read([at]))[0]!.timestampMs : this.genesis.timestampMs;
  }

  /**
   * An object as a read sees it now. Sui's consensus commits move the Clock whether or not any transaction runs, so a
   * read of it gets the time the next transaction would see (`#tickClock`), not the last transaction's.
   */
  object(id: string): ChainObject | undefined {
    const normalized = normalizeSuiAddress(id);
    return normalized === CLOCK_ID ? this.#tickClock(Date.now()) : this.store.objects.get(normalized);
  }

  /** Coins of `coinType` owned by `owner`, by id. */
  coins(owner: string, coinType: string): ChainObject[] {
    const type = normalizeStructTag(`0x2::coin::Coin<${coinType}>`);
    return this.ownedObjects(owner).filter((object) => object.type === type);
  }

  ownedObjects(owner: string): ChainObject[] {
    const ids = [...(this.store.owned.get(normalizeSuiAddress(owner)) ?? [])].sort();
    return ids.map((id) => this.store.objects.get(id)!);
  }

  balance(owner: string, coinType: string): bigint {
    return this.coins(owner, coinType).reduce((sum, coin) => sum + coinBalance(coin), 0n);
  }

  /** Dynamic fields of `parentId` in id order, after `cursor` (a field id). */
  dynamicFields(parentId: string, cursor: string | null, limit: number): { fields: ChainObject[]; hasNextPage: boolean } {
    const ids = [...(this.store.children.get(normalizeSuiAddress(parentId)) ?? [])].sort();
    const start = cursor ? ids.findIndex((id) => id > normalizeSuiAddress(cursor)) : 0;
    const page = start < 0 ? [] : ids.slice(start, start + limit);
    return { fields: page.map((id) => this.store.objects.get(id)!), hasNextPage: start >= 0 && start + limit < ids.length };
  }

  async events(query: EventQuery): Promise<{ events: EventPosition[]; hasNextPage: boolean }> {
    const all = query.eventType === null
      ? this.store.events.map((_, index) => index)
      : this.store.eventsByType.get(normalizeType(query.eventType)) ?? [];
    const positions = query.descending ? [...all].reverse() : all;
    let start = 0;
    if (query.cursor) {
      const { txDigest, eventSeq } = query.cursor;
      const at = positions.findIndex((p) => this.store.events[p].tx.digest === txDigest && this.store.events[p].eventSeq === eventSeq);
      start = at < 0 ? positions.length : at + 1;
    }
    const events = await this.store.eventsAt(positions.slice(start, start + query.limit).map((p) => this.store.events[p]));
    return { events, hasNextPage: start + query.limit < positions.length };
  }

  transaction(digest: string): Promise<TxRecord | undefined> {
    return this.store.transaction(digest);
  }

  async moveFunction(packageId: string, module: string, name: string): Promise<MoveFunction> {
    const fn = (await this.packages()).get(normalizeSuiAddress(packageId))?.modules.get(module)?.get(name);
    if (!fn) throw new ChainNotFoundError(`Move function ${normalizeSuiAddress(packageId)}::${module}::${name}`, { packageId, module, name });
    return fn;
  }
}
