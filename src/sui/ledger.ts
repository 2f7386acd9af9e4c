import type { ClientWithCoreApi, SuiClientTypes } from '@mysten/sui/client';
import type { Transaction } from '@mysten/sui/transactions';
import { bcs } from '@mysten/sui/bcs';
import { deriveDynamicFieldID, normalizeSuiAddress, normalizeStructTag } from '@mysten/sui/utils';
import { TypeTagSerializer } from '@mysten/sui/bcs';
import type { Ledger, PackEntry, PushEvent, PushEventPage, RefUpdate, RepositoryInfo, RepositoryLocator, TxReceipt } from '../ports/ledger.ts';
import { messageOf } from '../core/errors.ts';
import type { Log } from '../core/log.ts';
import { silentLog } from '../core/log.ts';
import { abortName } from '../contract/abort-codes.ts';
import { fromChainBytes } from '../contract/chain-bytes.ts';
import {
  PackEntry as PackEntryBcs, Pushed, Registry, RegistryKey, Repository, eventType, packEntryType, registryKeyType, repositoryType,
  type PushedValue, type RepositoryValue,
} from '../contract/bcs.ts';
import { blobIdToU256, u256ToBlobId } from '../core/blob-id-codec.ts';
import {
  ContractAbortError, HashLengthError, InvalidNameError, InvalidUpdateError, LimitReachedError, NameTakenError, NoChangeError,
  NotOwnerError, NotPrivateError, NotWriterError, PackageVersionError, ProtectedRefError, RefConflictError, RepositoryNotFoundError, StaleRepackError, TransactionFailedError,
  type AbortDetails,
} from './errors.ts';
import { TransactionRunner } from './transactions.ts';
import type { Compose, ExecutedTransaction, ModuleAbort, TransactionRunnerOptions, TransactionSubmitter } from './transactions.ts';
import { mapOrdered } from '../core/ordered-parallel.ts';

/**
 * The repository ledger over `client.core` of `@mysten/sui`: the same code serves the embedded devnet, a devnet
 * server (JSON-RPC), testnet and mainnet (gRPC). Reads decode objects and dynamic fields with the contract's BCS
 * layouts; writes are one programmable transaction each, and a Move abort of our package comes back as the typed
 * error of its group (src/sui/errors.ts). The signing stack (the key, `@mysten/sui/transactions`) loads on the first
 * write (or `signerAddress()` when no lighter way to know the address is given), never for reads: a clone does not
 * pay for it.
 */
export interface SuiLedgerOptions extends TransactionRunnerOptions {
  registryId: string;
}

/** What a failed call was about, to name it in the typed error. */
interface Subject {
  what: string; refs?: string[]; names?: string[]; subject?: string; repositoryId?: string; name?: string;
  /** A repack's expected seq, for the error when the repository moved on. */
  expectedSeq?: number;
}

const PAGE = 50;
/** Pages of a listing whose ids are known ahead (the packs) read at once: a few, to stay well inside a node's rate limit. */
const PAGES_IN_FLIGHT = 4;
const CLOCK = '0x6';
/**
 * What a push's early dry run resolved: the gas budget, and for a transaction paid with gas coins, the coins, the gas
 * price and the initial versions of the shared objects it names (the repository, the clock), with which the SDK
 * builds the push without asking the node anything.
 */
interface PreparedPush {
  budget: string;
  resolved?: { price: string; payment: NonNullable<ReturnType<Transaction['getData']>['gasData']['payment']>; sharedVersions: Map<string, string> };
}

/** What gas depends on in a push: the repository, the updates, and the pack's shape (not its blob ids or digest). */
function pushShapeKey(id: string, updates: RefUpdate[], pack: PackEntry | null): string {
  return JSON.stringify([normalizeSuiAddress(id), updates, pack && [pack.chunks.length, pack.size, pack.sealedKey ?? null]]);
}

/** The Repository object's fields as the port names them. */
export function repositoryInfo(id: string, repo: RepositoryValue): RepositoryInfo {
  return {
    id: normalizeSuiAddress(id),
    name: repo.name,
    owner: repo.owner,
    writers: [...repo.writers.contents],
    private: repo.private,
    readers: [...repo.readers.contents],
    protectedRefs: [...repo.protected.contents],
    head: repo.head,
    hashLength: repo.hash_len as 0 | 20 | 32,
    seq: Number(repo.seq),
    logHead: Buffer.from(repo.log_head).toString('hex'),
    packCount: Number(repo.pack_count),
    liveFrom: Number(repo.live_from),
  };
}

export class SuiLedger implements Ledger, TransactionSubmitter {
  readonly #client: ClientWithCoreApi;
  readonly #transactions: TransactionRunner;
  readonly #packageId: string;
  readonly #registryId: string;
  readonly #log: Log;
  /** The last push dry-run ahead of time (preparePush): its shape, and what the dry run resolved (null: none). */
  #pushEstimate: { key: string; prepared: Promise<PreparedPush | null> } | null = null;
  /** The refs and packs tables of each repository read so far: a repository's tables are made with it and never replaced. */
  readonly #tables = new Map<string, { refs: string; packs: string }>();

  constructor(options: SuiLedgerOptions) {
    this.#client = options.client;
    this.#transactions = new TransactionRunner(options);
    this.#packageId = normalizeSuiAddress(options.packageId);
    this.#registryId = normalizeSuiAddress(options.registryId);
    this.#log = options.log ?? silentLog;
  }

  signerAddress(): Promise<string> {
    return this.#transactions.signerAddress();
  }

  prepareWrites(): void {
    this.#transactions.prepareWrites();
  }

  async resolve(locator: RepositoryLocator): Promise<string> {
    if ('id' in locator) {
      await this.#repository(locator.id);
      return normalizeSuiAddress(locator.id);
    }
    const content = await this.#content(this.#registryId, 'the registry');
    const registry = fromChainBytes('the registry', () => Registry.parse(content));
    const key = RegistryKey.serialize({ owner: locator.owner, name: locator.name }).toBytes();
    const fieldId = deriveDynamicFieldID(registry.entries.id, TypeTagSerializer.parseFromStr(registryKeyType(this.#packageId), true), key);
    const [field] = (await this.#client.core.getObjects({ objectIds: [fieldId], include: { content: true } })).objects;
    if (field instanceof Error) throw new RepositoryNotFoundError(`${locator.owner}/${locator.name}`, `${locator.owner} has no repository of that name`);
    return fromChainBytes('a registry entry', () => bcs.Address.parse(field.content.slice(32 + key.length)));
  }

  async getRepository(id: string): Promise<RepositoryInfo> {
    return repositoryInfo(id, await this.#repository(id));
  }

  async listRefs(id: string): Promise<Map<string, string>> {
    // After getRepository (what `list` reads first) the table is known without reading the object again.
    const table = this.#tables.get(normalizeSuiAddress(id))?.refs ?? (await this.#repository(id)).refs.id;
    // The values of a page are read while the next page is listed: a listing of n pages takes n + 1 round trips.
    const pages: Promise<[string, string][]>[] = [];
    let cursor: string | null = null;
    do {
      const page: SuiClientTypes.ListDynamicFieldsResponse = await this.#client.core.listDynamicFields({ parentId: table, cursor, limit: PAGE });
      const values = this.#fieldValues(page.dynamicFields.map((field) => ({ id: field.fieldId, keyLength: field.name.bcs.length }))).then((fields) =>
        page.dynamicFields.map((field, index): [string, string] => [bcs.string().parse(field.name.bcs), Buffer.from(bcs.byteVector().parse(fields[index])).toString('hex')]));
      values.catch(() => {}); // awaited below, after the listing, which may fail first
      pages.push(values);
      cursor = page.hasNextPage ? page.cursor : null;
    } while (cursor !== null);
    return new Map((await Promise.all(pages)).flat());
  }

  async listPacks(id: string, from: number, until?: number): Promise<PackEntry[]> {
    // With the count the caller read, and the table known from an earlier read, the repository is not read again.
    let table = this.#tables.get(normalizeSuiAddress(id))?.packs;
    let count = until;
    if (table === undefined || count === undefined) {
      const repo = await this.#repository(id);
      table = repo.packs.id;
      count ??= Number(repo.pack_count);
    }
    const indexTag = TypeTagSerializer.parseFromStr('u64', true);
    const wanted: { id: string; keyLength: number }[] = [];
    for (let index = from; index < count; index++) {
      wanted.push({ id: deriveDynamicFieldID(table, indexTag, bcs.u64().serialize(index).toBytes()), keyLength: 8 });
    }
    // The pages' field ids are all known, so a few pages are read at a time rather than one after another.
    const pages: { id: string; keyLength: number }[][] = [];
    for (let start = 0; start < wanted.length; start += PAGE) pages.push(wanted.slice(start, start + PAGE));
    const packs: PackEntry[] = [];
    for await (const values of mapOrdered(pages, PAGES_IN_FLIGHT, (page) => this.#fieldValues(page))) {
      for (const value of values) packs.push(fromChainBytes('a pack entry', () => packEntryOf(PackEntryBcs.parse(value))));
    }
    return packs;
  }

  async listPushes(id: string): Promise<PushEvent[]> {
    const repositoryId = normalizeSuiAddress(id);
    const pushes: PushEvent[] = [];
    let after: string | null = null;
    do {
      const page: SuiClientTypes.ListEventsResponse = await this.#client.core.listEvents({ filter: { eventType: eventType(this.#packageId, 'Pushed') }, after, limit: PAGE });
      for (const event of page.events) {
        const pushed = fromChainBytes('a Pushed event', () => Pushed.parse(event.bcs));
        if (pushed.repository === repositoryId) pushes.push(fromChainBytes('a Pushed event', () => pushEventOf(pushed, event.transactionDigest)));
      }
      after = page.hasNextPage ? page.endCursor : null;
    } while (after !== null);
    return pushes.sort((a, b) => a.seq - b.seq);
  }

  async listPushesAfter(cursor: string | null): Promise<PushEventPage> {
    const page = await this.#client.core.listEvents({ filter: { eventType: eventType(this.#packageId, 'Pushed') }, after: cursor, limit: PAGE });
    const events = page.events.map((event) => pushEventFromBcs(event.bcs, event.transactionDigest));
    return { events, cursor: page.endCursor ?? null, hasNextPage: page.hasNextPage };
  }

  async latestPushCursor(): Promise<string | null> {
    const page = await this.#client.core.listEvents({ filter: { eventType: eventType(this.#packageId, 'Pushed') }, order: 'descending', limit: 1 });
    return page.startCursor ?? page.endCursor ?? null;
  }

  async createRepository(name: string, head = 'refs/heads/main', options: { private?: boolean } = {}): Promise<TxReceipt & { id: string }> {
    const result = await this.#execute((tx) => {
      tx.moveCall({ target: this.#target(options.private ? 'create_private' : 'create'), arguments: [tx.object(this.#registryId), tx.pure.string(name), tx.pure.string(head)] });
    }, { what: `creating repository '${name}'`, names: [name, head], name });
    const type = normalizeStructTag(repositoryType(this.#packageId));
    const id = Object.entries(result.objectTypes ?? {}).find(([objectId, objectType]) => objectType === type && result.effects?.changedObjects.some((c) => c.objectId === objectId && c.idOperation === 'Created'))?.[0];
    if (!id) throw new TransactionFailedError(`creating repository '${name}'`, 'the transaction created no Repository', { digest: result.digest });
    this.#log.debug(`created repository ${name} as ${id} (transaction ${result.digest})`);
    return { digest: result.digest, id };
  }

  async push(id: string, updates: RefUpdate[], pack: PackEntry | null): Promise<TxReceipt & { seq: number }> {
    const refs = updates.map((u) => u.name);
    const prepared = this.#pushEstimate?.key === pushShapeKey(id, updates, pack) ? await this.#pushEstimate.prepared : null;
    if (prepared !== null) this.#log.debug(`push: gas budget ${prepared.budget} MIST${prepared.resolved ? ' and gas coins' : ''} from the dry run made during the upload`);
    const result = await this.#execute((tx, attempt) => {
      // A retry (a gas coin spent meanwhile by another transaction of this signer) selects gas afresh, at once.
      const resolved = attempt === 0 ? prepared?.resolved : undefined;
      this.#composePush(tx, id, updates, pack, resolved?.sharedVersions);
      // Without a budget the SDK dry-runs the transaction first to compute one; without gas coins, a price and
      // resolved objects it asks the node for them (a dry run too, on gRPC).
      if (prepared !== null) tx.setGasBudget(BigInt(prepared.budget));
      if (!resolved) return false;
      tx.setGasPrice(BigInt(resolved.price));
      tx.setGasPayment(resolved.payment);
      return true;
    }, { what: `pushing ${refs.join(', ')}`, refs, names: refs, repositoryId: id });
    return { digest: result.digest, seq: this.#pushedSeq(result) };
  }

  /**
   * Dry-runs, in the background, the push `push(id, updates, pack)` will send, with `pack` a stand-in of the same
   * shape (chunk count, size, sealed key): gas depends on the transaction's sizes and the code it runs, not on blob
   * ids or digests. The SDK builds it as it builds every transaction (its own dry run selects the gas coins and sets
   * the budget), and the later `push` with those updates and a pack of that shape reuses what it resolved, so the SDK
   * sends it without a round trip of its own after the upload. A failed dry run (a ref moved, no gas coin yet) leaves
   * the push to the SDK's own dry run, which reports the failure in the usual words; gas paid from the address's
   * balance is selected anew at the push (only the budget carries over).
   */
  preparePush(id: string, updates: RefUpdate[], pack: PackEntry | null): void {
    const prepared = (async (): Promise<PreparedPush | null> => {
      const address = await this.signerAddress();
      const { Transaction } = await import('@mysten/sui/transactions');
      const tx = new Transaction();
      this.#composePush(tx, id, updates, pack);
      tx.setSender(address);
      await tx.build({ client: this.#client });
      const { gasData, inputs } = tx.getData();
      if (!gasData.budget) return null;
      const budget = String(gasData.budget);
      if (!gasData.price || !gasData.payment?.length) return { budget };
      const sharedVersions = new Map(inputs.flatMap((input) => {
        const shared = input.Object?.SharedObject;
        return shared ? [[normalizeSuiAddress(shared.objectId), String(shared.initialSharedVersion)] as const] : [];
      }));
      return { budget, resolved: { price: String(gasData.price), payment: gasData.payment, sharedVersions } };
    })().catch((error: unknown) => {
      this.#log.debug(`push: the early dry run failed (${messageOf(error)}); the SDK will dry-run before the transaction`);
      return null;
    });
    this.#pushEstimate = { key: pushShapeKey(id, updates, pack), prepared };
  }

  /** `sharedVersions`: the initial versions of the shared objects, where known (resolved inputs, no lookup). */
  #composePush(tx: Transaction, id: string, updates: RefUpdate[], pack: PackEntry | null, sharedVersions?: ReadonlyMap<string, string>): void {
    const hex = (value: string | null) => (value === null ? null : [...Buffer.from(value, 'hex')]);
    const shared = (objectId: string, mutable: boolean) => {
      const initialSharedVersion = sharedVersions?.get(normalizeSuiAddress(objectId));
      return initialSharedVersion === undefined ? tx.object(objectId) : tx.sharedObjectRef({ objectId, initialSharedVersion, mutable });
    };
    const option = pack
      ? tx.moveCall({ target: '0x1::option::some', typeArguments: [packEntryType(this.#packageId)], arguments: [this.#newPackEntry(tx, pack)] })
      : tx.moveCall({ target: '0x1::option::none', typeArguments: [packEntryType(this.#packageId)] });
    tx.moveCall({
      target: this.#target('push'),
      arguments: [
        shared(id, true),
        tx.pure.vector('string', updates.map((u) => u.name)),
        tx.pure.vector('option<vector<u8>>', updates.map((u) => hex(u.old))),
        tx.pure.vector('option<vector<u8>>', updates.map((u) => hex(u.new))),
        tx.pure.vector('bool', updates.map((u) => u.force)),
        option,
        shared(CLOCK, false),
      ],
    });
  }

  async repackAt(id: string, pack: PackEntry, expectedSeq: number): Promise<TxReceipt & { seq: number }> {
    const result = await this.#execute((tx) => {
      tx.moveCall({ target: this.#target('repack_at'), arguments: [tx.object(id), this.#newPackEntry(tx, pack), tx.pure.u64(expectedSeq), tx.object(CLOCK)] });
    }, { what: 'repacking', repositoryId: id, expectedSeq });
    return { digest: result.digest, seq: this.#pushedSeq(result) };
  }

  addWriter(id: string, address: string): Promise<TxReceipt> {
    return this.#ownerCall(id, 'add_writer', (tx) => tx.pure.address(address), { what: `adding writer ${address}`, subject: address, repositoryId: id });
  }

  removeWriter(id: string, address: string): Promise<TxReceipt> {
    return this.#ownerCall(id, 'remove_writer', (tx) => tx.pure.address(address), { what: `removing writer ${address}`, subject: address, repositoryId: id });
  }

  addReader(id: string, address: string): Promise<TxReceipt> {
    return this.#ownerCall(id, 'add_reader', (tx) => tx.pure.address(address), { what: `adding reader ${address}`, subject: address, repositoryId: id });
  }

  removeReader(id: string, address: string): Promise<TxReceipt> {
    return this.#ownerCall(id, 'remove_reader', (tx) => tx.pure.address(address), { what: `removing reader ${address}`, subject: address, repositoryId: id });
  }

  protectRef(id: string, ref: string): Promise<TxReceipt> {
    return this.#ownerCall(id, 'protect_ref', (tx) => tx.pure.string(ref), { what: `protecting ${ref}`, subject: ref, refs: [ref], names: [ref], repositoryId: id });
  }

  unprotectRef(id: string, ref: string): Promise<TxReceipt> {
    return this.#ownerCall(id, 'unprotect_ref', (tx) => tx.pure.string(ref), { what: `unprotecting ${ref}`, subject: ref, refs: [ref], names: [ref], repositoryId: id });
  }

  setHead(id: string, ref: string): Promise<TxReceipt> {
    return this.#ownerCall(id, 'set_head', (tx) => tx.pure.string(ref), { what: `setting HEAD to ${ref}`, subject: ref, names: [ref], repositoryId: id });
  }

  async transferOwnership(id: string, newOwner: string): Promise<TxReceipt> {
    const result = await this.#execute((tx) => {
      tx.moveCall({ target: this.#target('transfer_ownership'), arguments: [tx.object(this.#registryId), tx.object(id), tx.pure.address(newOwner)] });
    }, { what: `transferring ownership to ${newOwner}`, subject: newOwner, repositoryId: id });
    return { digest: result.digest };
  }

  /**
   * Signs and executes one transaction for another module of the package (the market), with this ledger's signer,
   * gas lock and retries: `compose` fills it, `onAbort` turns that module's aborts into typed errors (an abort of the
   * repository module it calls into gets the repository's, anything else becomes TransactionFailedError,
   * InsufficientGasError…). Resolves when the transaction is final.
   */
  submit(compose: (tx: Transaction) => void, what: string, onAbort: (abort: ModuleAbort) => Error | undefined): Promise<ExecutedTransaction> {
    return this.#transactions.execute(compose, { what, onAbort: async (abort, sender) => onAbort(abort) ?? this.#repositoryAbort(abort, sender, { what }) });
  }

  async #ownerCall(id: string, fn: string, argument: (tx: Transaction) => ReturnType<Transaction['pure']['string']>, subject: Subject): Promise<TxReceipt> {
    const result = await this.#execute((tx) => {
      tx.moveCall({ target: this.#target(fn), arguments: [tx.object(id), argument(tx)] });
    }, subject);
    return { digest: result.digest };
  }

  #target(fn: string): `${string}::${string}::${string}` {
    return `${this.#packageId}::repository::${fn}`;
  }

  #newPackEntry(tx: Transaction, pack: PackEntry) {
    const fields = [tx.pure.vector('u256', pack.chunks.map(blobIdToU256)), tx.pure.u64(pack.size), tx.pure.vector('u8', [...Buffer.from(pack.sha256, 'hex')])];
    if (pack.sealedKey === undefined) return tx.moveCall({ target: this.#target('new_pack_entry'), arguments: fields });
    return tx.moveCall({ target: this.#target('new_sealed_pack_entry'), arguments: [...fields, tx.pure.vector('u8', [...Buffer.from(pack.sealedKey, 'hex')])] });
  }

  #pushedSeq(result: SuiClientTypes.Transaction<{ events: true }>): number {
    const type = normalizeStructTag(eventType(this.#packageId, 'Pushed'));
    const event = result.events.find((e) => normalizeStructTag(e.eventType) === type);
    if (!event) throw new TransactionFailedError('the push', `transaction ${result.digest} emitted no Pushed event`, { digest: result.digest });
    return Number(fromChainBytes('a Pushed event', () => Pushed.parse(event.bcs)).seq);
  }

  async #repository(id: string): Promise<RepositoryValue> {
    const content = await this.#content(id, `repository ${id}`, repositoryType(this.#packageId));
    const repo = fromChainBytes(`repository ${id}`, () => Repository.parse(content));
    this.#tables.set(normalizeSuiAddress(id), { refs: repo.refs.id, packs: repo.packs.id });
    return repo;
  }

  async #content(id: string, what: string, expectedType?: string): Promise<Uint8Array> {
    const [object] = (await this.#client.core.getObjects({ objectIds: [normalizeSuiAddress(id)], include: { content: true } })).objects;
    if (object instanceof Error) throw new RepositoryNotFoundError(id, `${what} does not exist on this network`);
    if (expectedType && normalizeStructTag(object.type) !== normalizeStructTag(expectedType)) {
      throw new RepositoryNotFoundError(id, `object ${id} is a ${object.type}, not a repository of package ${this.#packageId}`);
    }
    return object.content;
  }

  /** Values of dynamic fields (`Field<K, V>` content is UID ‖ key ‖ value). */
  async #fieldValues(fields: { id: string; keyLength: number }[]): Promise<Uint8Array[]> {
    if (fields.length === 0) return [];
    const { objects } = await this.#client.core.getObjects({ objectIds: fields.map((f) => f.id), include: { content: true } });
    return objects.map((object, index) => {
      if (object instanceof Error) throw new TransactionFailedError('reading repository state', `dynamic field ${fields[index].id} vanished while reading; retry`, {}, true);
      return object.content.slice(32 + fields[index].keyLength);
    });
  }

  #execute(compose: Compose, subject: Subject): Promise<ExecutedTransaction> {
    return this.#transactions.execute(compose, {
      what: subject.what,
      onAbort: (abort, sender) => this.#repositoryAbort(abort, sender, subject),
      ...(subject.repositoryId ? { notFound: () => new RepositoryNotFoundError(subject.repositoryId!, 'it does not exist on this network') } : {}),
    });
  }

  /** The typed error of an abort of the repository module (`sender`: who was refused); undefined for another module's. */
  async #repositoryAbort(moduleAbort: ModuleAbort, sender: string, subject: Subject): Promise<Error | undefined> {
    const name = moduleAbort.module !== 'market' ? abortName(moduleAbort.code) : undefined;
    if (!name) return undefined;
    const abort: AbortDetails = { abortName: name, abortCode: moduleAbort.code, module: moduleAbort.module, functionName: moduleAbort.functionName, digest: moduleAbort.digest };
    const owner = async () => (subject.repositoryId ? (await this.#repository(subject.repositoryId).catch(() => null))?.owner ?? 'unknown' : 'unknown');
    switch (name) {
      case 'ERefMismatch': case 'ERefExists': case 'ERefClash': return new RefConflictError(abort, subject.refs ?? []);
      case 'ENotWriter': return new NotWriterError(abort, sender, await owner());
      case 'ENotOwner': return new NotOwnerError(abort, sender, await owner());
      case 'EProtected': return new ProtectedRefError(abort, subject.refs ?? []);
      case 'ENameTaken': return new NameTakenError(abort, sender, subject.name ?? '');
      case 'EInvalidName': case 'EInvalidRefName': case 'EInvalidHead': return new InvalidNameError(abort, subject.names ?? []);
      case 'EBadHashLen': case 'EHashLenMismatch': return new HashLengthError(abort);
      case 'ETooManyWriters': case 'ETooManyProtected': case 'ETooManyReaders': return new LimitReachedError(abort);
      case 'EAlreadyWriter': case 'ENotAWriter': case 'EAlreadyProtected': case 'ENotProtected': case 'ESameOwner': case 'EAlreadyReader': case 'ENotAReader':
        return new NoChangeError(abort, subject.subject ?? '');
      case 'ENotPrivate': return new NotPrivateError(abort);
      case 'EStaleRepack': return new StaleRepackError(abort, subject.expectedSeq ?? null);
      case 'ESealedKeyRequired': case 'EUnexpectedSealedKey': return new InvalidUpdateError(abort);
      case 'EWrongVersion': return new PackageVersionError(abort);
      case 'ELengthMismatch': case 'EEmptyUpdate': case 'EDuplicateRef': case 'EInvalidUpdate': case 'EInvalidPack': case 'EBadLiveFrom': return new InvalidUpdateError(abort);
    }
    return new ContractAbortError('CONTRACT_ABORT', `${subject.what} failed`, abort);
  }
}

/** A pack entry as the port names it, from the contract's decoded `PackEntry`. */
export function packEntryOf(entry: ReturnType<typeof PackEntryBcs.parse>): PackEntry {
  const pack: PackEntry = { chunks: entry.chunks.map(u256ToBlobId), size: Number(entry.size), sha256: Buffer.from(entry.sha256).toString('hex') };
  if (entry.sealed_key !== null) pack.sealedKey = Buffer.from(entry.sealed_key).toString('hex');
  return pack;
}

/** A push log record from a `Pushed` event's BCS; a MalformedChainDataError when the node served bytes that are none. */
export function pushEventFromBcs(bytes: Uint8Array, txDigest: string): PushEvent {
  return fromChainBytes('a Pushed event', () => pushEventOf(Pushed.parse(bytes), txDigest));
}

function pushEventOf(pushed: PushedValue, txDigest: string): PushEvent {
  const hex = (value: Uint8Array | null) => (value === null ? null : Buffer.from(value).toString('hex'));
  return {
    repository: pushed.repository,
    seq: Number(pushed.seq),
    kind: pushed.kind,
    sender: pushed.sender,
    timestampMs: Number(pushed.timestamp_ms),
    updates: pushed.updates.map((u) => ({ name: u.name, old: hex(u.old), new: hex(u.new), force: u.forced })),
    pack: pushed.pack ? packEntryOf(pushed.pack) : null,
    packIndex: pushed.pack_index === null ? null : Number(pushed.pack_index),
    liveFrom: Number(pushed.live_from),
    logHead: Buffer.from(pushed.log_head).toString('hex'),
    txDigest,
  };
}


