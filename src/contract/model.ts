/**
 * The pure TypeScript twin of contracts/sources/repository.move: the same checks in the same order, the same abort
 * codes, the same state transitions and events. Objects are the decoded structs of bcs.ts and are changed in place;
 * every function checks everything before it changes anything, so an aborted call leaves its inputs untouched.
 * Keep each function in step with its Move counterpart (the scenario vectors in contracts/tests/scenarios.json run
 * against both). Longer than most modules on purpose: it follows repository.move function by function, in its order,
 * so that the two read side by side; splitting one without the other would lose that.
 */
import { MoveAbort } from './abort-codes.ts';
import type { AbortName } from './abort-codes.ts';
import {
  Bytes,
  Events,
  ID,
  ID_TYPE,
  MoveString,
  PackEntry,
  RegistryKey,
  RefDir,
  STRING_TYPE,
  U64,
  packEntryType,
  registryKeyType,
  refDirType,
} from './bcs.ts';
import type { EventName, PackEntryValue, RefUpdateValue, RegistryValue, RepositoryValue } from './bcs.ts';
import type { MoveContext } from './context.ts';
import { GENESIS_LOG_HEAD, RecordKind, nextLogHead } from './push-log.ts';
import { isValidRefName } from './ref-name.ts';


/** Package version; objects carry the version that created them and every call checks it. */
export const VERSION = 1n;
export const MAX_NAME_LENGTH = 100;
export const MAX_WRITERS = 100;
export const MAX_PROTECTED = 64;
export const MAX_READERS = 1000;
export const MAX_SEALED_KEY_LENGTH = 4096;
export const DEFAULT_HEAD = 'refs/heads/main';

const MODULE = 'repository';
const U64_TYPE = 'u64';
const BYTES_TYPE = 'vector<u8>';
const utf8 = new TextEncoder();

function check(condition: boolean, fn: string, name: AbortName): asserts condition {
  if (!condition) throw new MoveAbort(MODULE, fn, name);
}

function emit<N extends EventName>(ctx: MoveContext, name: N, value: Parameters<(typeof Events)[N]['serialize']>[0]): void {
  const layout = Events[name] as { serialize(v: unknown): { toBytes(): Uint8Array } };
  ctx.emit(`events::${name}`, layout.serialize(value).toBytes());
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// --- name rules (identical to is_valid_name / is_valid_ref_name in Move) ---

/** Repository names: 1–100 bytes of [A-Za-z0-9._-], not starting with '.'. */
export function isValidName(name: string): boolean {
  const b = utf8.encode(name);
  if (b.length === 0 || b.length > MAX_NAME_LENGTH || b[0] === 0x2e) return false;
  return b.every((c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x5f || c === 0x2d);
}

// --- tables ---

function refKey(name: string): Uint8Array {
  return MoveString.serialize(name).toBytes();
}

function refDirKey(name: string): Uint8Array {
  return RefDir.serialize({ name }).toBytes();
}

function getRef(ctx: MoveContext, repo: RepositoryValue, name: string): Uint8Array | null {
  const value = ctx.tables.get(repo.refs.id, STRING_TYPE, refKey(name));
  return value === null ? null : Bytes.parse(value);
}

function registryKey(owner: string, name: string): Uint8Array {
  return RegistryKey.serialize({ owner, name }).toBytes();
}

function lookupKey(ctx: MoveContext, registry: RegistryValue, owner: string, name: string): string | null {
  const value = ctx.tables.get(registry.entries.id, registryKeyType(ctx.packageId), registryKey(owner, name));
  return value === null ? null : ID.parse(value);
}

function checkVersion(fn: string, object: { version: bigint }): void {
  check(object.version === VERSION, fn, 'EWrongVersion');
}

function isWriter(repo: RepositoryValue, who: string): boolean {
  return who === repo.owner || repo.writers.contents.includes(who);
}

// --- functions ---

/** Module initializer: the shared Registry, created once at publish. */
export function init(ctx: MoveContext): RegistryValue {
  return { id: ctx.newId(), version: VERSION, entries: { id: ctx.newId(), size: 0n } };
}

/** `create`: a new Repository owned by the sender, registered as (sender, name). The caller shares it. */
export function create(ctx: MoveContext, registry: RegistryValue, name: string, head: string): RepositoryValue {
  return newRepository('create', ctx, registry, name, head, false);
}

/**
 * `create_private`: like `create`, for a repository whose packs are encrypted (docs/architecture.md, Private
 * repositories (Seal)).
 */
export function createPrivate(ctx: MoveContext, registry: RegistryValue, name: string, head: string): RepositoryValue {
  return newRepository('create_private', ctx, registry, name, head, true);
}

function newRepository(fn: string, ctx: MoveContext, registry: RegistryValue, name: string, head: string, isPrivate: boolean): RepositoryValue {
  checkVersion(fn, registry);
  check(isValidName(name), fn, 'EInvalidName');
  check(isValidRefName(head), fn, 'EInvalidHead');
  check(lookupKey(ctx, registry, ctx.sender, name) === null, fn, 'ENameTaken');
  // Field initialisers run in declaration order in Move: the object id first, then the refs and packs tables.
  const id = ctx.newId();
  const refs = { id: ctx.newId(), size: 0n };
  const packs = { id: ctx.newId(), size: 0n };
  const repo: RepositoryValue = {
    id,
    version: VERSION,
    name,
    owner: ctx.sender,
    writers: { contents: [] },
    protected: { contents: [] },
    head,
    hash_len: 0,
    refs,
    packs,
    pack_count: 0n,
    live_from: 0n,
    seq: 0n,
    log_head: GENESIS_LOG_HEAD.slice(),
    private: isPrivate,
    readers: { contents: [] },
  };
  ctx.tables.add(registry.entries.id, registryKeyType(ctx.packageId), registryKey(ctx.sender, name), ID_TYPE, ID.serialize(id).toBytes());
  registry.entries.size += 1n;
  emit(ctx, 'RepositoryCreated', { repository: id, owner: ctx.sender, name, head });
  return repo;
}

/** `new_pack_entry`: the only way to build a PackEntry (its fields are private in Move). */
export function newPackEntry(chunks: bigint[], size: bigint, sha256: Uint8Array): PackEntryValue {
  const fn = 'new_pack_entry';
  check(chunks.length > 0 && size > 0n && sha256.length === 32, fn, 'EInvalidPack');
  return { chunks: [...chunks], size, sha256: sha256.slice(), sealed_key: null };
}

/** `new_sealed_pack_entry`: a pack entry with the Seal `EncryptedObject` of its data key (1–4096 bytes). */
export function newSealedPackEntry(chunks: bigint[], size: bigint, sha256: Uint8Array, sealedKey: Uint8Array): PackEntryValue {
  const fn = 'new_sealed_pack_entry';
  check(chunks.length > 0 && size > 0n && sha256.length === 32, fn, 'EInvalidPack');
  check(sealedKey.length > 0 && sealedKey.length <= MAX_SEALED_KEY_LENGTH, fn, 'EInvalidPack');
  return { chunks: [...chunks], size, sha256: sha256.slice(), sealed_key: sealedKey.slice() };
}

/** A private repository's packs carry their sealed data key, a public repository's do not. */
function checkPackKey(fn: string, repo: RepositoryValue, pack: PackEntryValue): void {
  if (repo.private) check(pack.sealed_key !== null, fn, 'ESealedKeyRequired');
  else check(pack.sealed_key === null, fn, 'EUnexpectedSealedKey');
}

function appendPack(ctx: MoveContext, repo: RepositoryValue, pack: PackEntryValue): bigint {
  const index = repo.pack_count;
  ctx.tables.add(repo.packs.id, U64_TYPE, U64.serialize(index).toBytes(), packEntryType(ctx.packageId), PackEntry.serialize(pack).toBytes());
  repo.packs.size += 1n;
  repo.pack_count += 1n;
  return index;
}

function record(ctx: MoveContext, repo: RepositoryValue, kind: number, clockMs: bigint, updates: RefUpdateValue[], pack: PackEntryValue | null, packIndex: bigint | null): void {
  repo.seq += 1n;
  const rec = {
    repository: repo.id,
    seq: repo.seq,
    kind,
    sender: ctx.sender,
    timestamp_ms: clockMs,
    updates,
    pack,
    live_from: repo.live_from,
  };
  repo.log_head = nextLogHead(repo.log_head, rec);
  emit(ctx, 'Pushed', { ...rec, pack_index: packIndex, log_head: repo.log_head });
}

/**
 * `push`: compare-and-swap every ref (`old` null = must not exist; `new` null = delete), append the pack, advance
 * `seq` and `log_head`, emit `Pushed`.
 */
export function push(
  ctx: MoveContext,
  repo: RepositoryValue,
  names: string[],
  olds: (Uint8Array | null)[],
  news: (Uint8Array | null)[],
  forces: boolean[],
  pack: PackEntryValue | null,
  clockMs: bigint,
): void {
  const fn = 'push';
  checkVersion(fn, repo);
  check(isWriter(repo, ctx.sender), fn, 'ENotWriter');
  const n = names.length;
  check(olds.length === n && news.length === n && forces.length === n, fn, 'ELengthMismatch');
  check(n > 0, fn, 'EEmptyUpdate');
  if (pack !== null) checkPackKey(fn, repo, pack);
  let hashLen = repo.hash_len;
  const current: (Uint8Array | null)[] = [];
  for (let i = 0; i < n; i++) {
    const name = names[i]!;
    const old = olds[i]!;
    const next = news[i]!;
    check(isValidRefName(name), fn, 'EInvalidRefName');
    check(!names.slice(0, i).includes(name), fn, 'EDuplicateRef');
    check(old !== null || next !== null, fn, 'EInvalidUpdate');
    if (next !== null) {
      check(next.length === 20 || next.length === 32, fn, 'EBadHashLen');
      if (hashLen === 0) hashLen = next.length;
      else check(next.length === hashLen, fn, 'EHashLenMismatch');
    }
    const value = getRef(ctx, repo, name);
    if (old === null) check(value === null, fn, 'ERefExists');
    else check(value !== null && equalBytes(value, old), fn, 'ERefMismatch');
    if (repo.protected.contents.includes(name) && (forces[i] || next === null)) check(ctx.sender === repo.owner, fn, 'EProtected');
    if (old === null && next !== null) check(!clashes(ctx, repo, names, news, i), fn, 'ERefClash');
    current.push(value);
  }

  const updates: RefUpdateValue[] = [];
  for (let i = 0; i < n; i++) {
    const key = refKey(names[i]!);
    const next = news[i]!;
    if (next === null) {
      ctx.tables.remove(repo.refs.id, STRING_TYPE, key);
      repo.refs.size -= 1n;
    } else if (current[i] === null) {
      ctx.tables.add(repo.refs.id, STRING_TYPE, key, BYTES_TYPE, Bytes.serialize(next).toBytes());
      repo.refs.size += 1n;
    } else {
      ctx.tables.set(repo.refs.id, STRING_TYPE, key, BYTES_TYPE, Bytes.serialize(next).toBytes());
    }
    if (olds[i] === null || next === null) countBelow(ctx, repo, names[i]!, next !== null);
    updates.push({ name: names[i]!, old: olds[i]!, new: next, forced: forces[i]! });
  }
  repo.hash_len = hashLen;
  const packIndex = pack === null ? null : appendPack(ctx, repo, pack);
  record(ctx, repo, RecordKind.push, clockMs, updates, pack, packIndex);
}

/** The proper prefixes of a ref name, cut at each `/`: `refs`, `refs/heads` for `refs/heads/main`. */
function dirsOf(name: string): string[] {
  const dirs: string[] = [];
  for (let k = name.indexOf('/'); k !== -1; k = name.indexOf('/', k + 1)) dirs.push(name.slice(0, k));
  return dirs;
}

/** `RefDir` counts: refs below a name (a dynamic field on the repository; absent is 0). */
function refsBelow(ctx: MoveContext, repo: RepositoryValue, dir: string): bigint {
  const value = ctx.tables.get(repo.id, refDirType(ctx.packageId), refDirKey(dir));
  return value === null ? 0n : U64.parse(value);
}

/** `clashes`: creating `names[i]` would leave a ref as a directory of another once the push applied. */
function clashes(ctx: MoveContext, repo: RepositoryValue, names: string[], news: (Uint8Array | null)[], i: number): boolean {
  const name = names[i]!;
  for (const dir of dirsOf(name)) {
    const j = names.indexOf(dir);
    const deleted = j !== -1 && news[j] === null;
    if ((getRef(ctx, repo, dir) !== null || j !== -1) && !deleted) return true;
  }
  let below = refsBelow(ctx, repo, name);
  for (let j = 0; j < names.length; j++) {
    if (!names[j]!.startsWith(`${name}/`)) continue;
    if (news[j] !== null) return true;
    if (below > 0n) below -= 1n;
  }
  return below > 0n;
}

/** `count_below`: a ref created (`added`) or deleted is counted in the `RefDir` of each proper prefix of its name. */
function countBelow(ctx: MoveContext, repo: RepositoryValue, name: string, added: boolean): void {
  const type = refDirType(ctx.packageId);
  for (const dir of dirsOf(name)) {
    const count = refsBelow(ctx, repo, dir);
    const key = refDirKey(dir);
    if (added && count === 0n) ctx.tables.add(repo.id, type, key, U64_TYPE, U64.serialize(1n).toBytes());
    else if (added) ctx.tables.set(repo.id, type, key, U64_TYPE, U64.serialize(count + 1n).toBytes());
    else if (count === 0n) continue; // a ref created before refs were counted has no count to take back
    else if (count === 1n) ctx.tables.remove(repo.id, type, key);
    else ctx.tables.set(repo.id, type, key, U64_TYPE, U64.serialize(count - 1n).toBytes());
  }
}

/**
 * `repack`: append a consolidated pack and make it the first live one (recorded in the log with no ref updates).
 * `liveFrom` must be the index it gets: a smaller one means a pack was pushed since the consolidated pack was built.
 */
export function repack(ctx: MoveContext, repo: RepositoryValue, pack: PackEntryValue, liveFrom: bigint, clockMs: bigint): void {
  const fn = 'repack';
  checkVersion(fn, repo);
  check(isWriter(repo, ctx.sender), fn, 'ENotWriter');
  check(liveFrom >= repo.live_from && liveFrom <= repo.pack_count, fn, 'EBadLiveFrom');
  checkPackKey(fn, repo, pack);
  check(liveFrom === repo.pack_count, fn, 'EStaleRepack');
  consolidate(ctx, repo, pack, clockMs);
}

/** `repack_at`: `repack` as a compare-and-swap on the whole state: only while the repository is at `expectedSeq`. */
export function repackAt(ctx: MoveContext, repo: RepositoryValue, pack: PackEntryValue, expectedSeq: bigint, clockMs: bigint): void {
  const fn = 'repack_at';
  checkVersion(fn, repo);
  check(isWriter(repo, ctx.sender), fn, 'ENotWriter');
  check(repo.seq === expectedSeq, fn, 'EStaleRepack');
  checkPackKey(fn, repo, pack);
  consolidate(ctx, repo, pack, clockMs);
}

function consolidate(ctx: MoveContext, repo: RepositoryValue, pack: PackEntryValue, clockMs: bigint): void {
  const packIndex = appendPack(ctx, repo, pack);
  repo.live_from = packIndex;
  record(ctx, repo, RecordKind.repack, clockMs, [], pack, packIndex);
}

function checkOwner(fn: string, ctx: MoveContext, repo: RepositoryValue): void {
  checkVersion(fn, repo);
  check(ctx.sender === repo.owner, fn, 'ENotOwner');
}

export function addWriter(ctx: MoveContext, repo: RepositoryValue, writer: string): void {
  const fn = 'add_writer';
  checkOwner(fn, ctx, repo);
  check(!isWriter(repo, writer), fn, 'EAlreadyWriter');
  check(repo.writers.contents.length < MAX_WRITERS, fn, 'ETooManyWriters');
  repo.writers.contents.push(writer);
  emit(ctx, 'WriterAdded', { repository: repo.id, writer });
}

export function removeWriter(ctx: MoveContext, repo: RepositoryValue, writer: string): void {
  const fn = 'remove_writer';
  checkOwner(fn, ctx, repo);
  const index = repo.writers.contents.indexOf(writer);
  check(index >= 0, fn, 'ENotAWriter');
  repo.writers.contents.splice(index, 1);
  emit(ctx, 'WriterRemoved', { repository: repo.id, writer });
}

export function protectRef(ctx: MoveContext, repo: RepositoryValue, name: string): void {
  const fn = 'protect_ref';
  checkOwner(fn, ctx, repo);
  check(isValidRefName(name), fn, 'EInvalidRefName');
  check(!repo.protected.contents.includes(name), fn, 'EAlreadyProtected');
  check(repo.protected.contents.length < MAX_PROTECTED, fn, 'ETooManyProtected');
  repo.protected.contents.push(name);
  emit(ctx, 'RefProtected', { repository: repo.id, name });
}

export function unprotectRef(ctx: MoveContext, repo: RepositoryValue, name: string): void {
  const fn = 'unprotect_ref';
  checkOwner(fn, ctx, repo);
  const index = repo.protected.contents.indexOf(name);
  check(index >= 0, fn, 'ENotProtected');
  repo.protected.contents.splice(index, 1);
  emit(ctx, 'RefUnprotected', { repository: repo.id, name });
}

export function setHead(ctx: MoveContext, repo: RepositoryValue, head: string): void {
  const fn = 'set_head';
  checkOwner(fn, ctx, repo);
  check(isValidRefName(head), fn, 'EInvalidHead');
  repo.head = head;
  emit(ctx, 'HeadSet', { repository: repo.id, head });
}

/**
 * `transfer_ownership`: re-keys the registry entry to (new owner, name). The new owner leaves the writer and reader
 * lists (the owner always writes and reads); the old owner keeps no access unless added back as a writer.
 */
export function transferOwnership(ctx: MoveContext, registry: RegistryValue, repo: RepositoryValue, newOwner: string): void {
  const fn = 'transfer_ownership';
  checkVersion(fn, registry);
  checkOwner(fn, ctx, repo);
  check(newOwner !== repo.owner, fn, 'ESameOwner');
  check(lookupKey(ctx, registry, newOwner, repo.name) === null, fn, 'ENameTaken');
  const keyType = registryKeyType(ctx.packageId);
  ctx.tables.remove(registry.entries.id, keyType, registryKey(repo.owner, repo.name));
  ctx.tables.add(registry.entries.id, keyType, registryKey(newOwner, repo.name), ID_TYPE, ID.serialize(repo.id).toBytes());
  const index = repo.writers.contents.indexOf(newOwner);
  if (index >= 0) repo.writers.contents.splice(index, 1);
  const asReader = repo.readers.contents.indexOf(newOwner);
  if (asReader >= 0) repo.readers.contents.splice(asReader, 1);
  const from = repo.owner;
  repo.owner = newOwner;
  emit(ctx, 'OwnershipTransferred', { repository: repo.id, from, to: newOwner });
}

// --- read-only accessors (public funs in Move; the engine serves them to devInspect/simulate) ---

/** `repository_id`: the repository registered as (owner, name), if any. */
export function repositoryId(ctx: MoveContext, registry: RegistryValue, owner: string, name: string): string | null {
  return lookupKey(ctx, registry, owner, name);
}

/** `ref_value`: the object id a ref points to, if it exists. */
export function refValue(ctx: MoveContext, repo: RepositoryValue, name: string): Uint8Array | null {
  return getRef(ctx, repo, name);
}

/** `pack_at`: the pack with this index, if it exists. */
export function packAt(ctx: MoveContext, repo: RepositoryValue, index: bigint): PackEntryValue | null {
  const value = ctx.tables.get(repo.packs.id, U64_TYPE, U64.serialize(index).toBytes());
  return value === null ? null : PackEntry.parse(value);
}

/** `is_writer`: the owner and the listed writers may push. */
export function isWriterOf(repo: RepositoryValue, who: string): boolean {
  return isWriter(repo, who);
}

// --- private repositories (docs/architecture.md, Private repositories (Seal)) ---

export function addReader(ctx: MoveContext, repo: RepositoryValue, reader: string): void {
  const fn = 'add_reader';
  checkOwner(fn, ctx, repo);
  check(repo.private, fn, 'ENotPrivate');
  check(reader !== repo.owner && !repo.readers.contents.includes(reader), fn, 'EAlreadyReader');
  check(repo.readers.contents.length < MAX_READERS, fn, 'ETooManyReaders');
  repo.readers.contents.push(reader);
  emit(ctx, 'ReaderAdded', { repository: repo.id, reader });
}

export function removeReader(ctx: MoveContext, repo: RepositoryValue, reader: string): void {
  const fn = 'remove_reader';
  checkOwner(fn, ctx, repo);
  const index = repo.readers.contents.indexOf(reader);
  check(index >= 0, fn, 'ENotAReader');
  repo.readers.contents.splice(index, 1);
  emit(ctx, 'ReaderRemoved', { repository: repo.id, reader });
}

/** `can_read`: the owner, the writers and the readers. */
export function canRead(repo: RepositoryValue, who: string): boolean {
  return isWriter(repo, who) || repo.readers.contents.includes(who);
}

/**
 * `seal_approve`: the Seal policy the key servers dry-run with the requester as sender. Returns normally to approve;
 * aborts unless `id` (the key id without the package prefix) begins with the repository's id bytes and the sender
 * may read. Changes nothing.
 */
export function sealApprove(ctx: MoveContext, id: Uint8Array, repo: RepositoryValue): void {
  const fn = 'seal_approve';
  checkVersion(fn, repo);
  const prefix = ID.serialize(repo.id).toBytes();
  check(id.length >= prefix.length && prefix.every((b, i) => id[i] === b), fn, 'EWrongKeyId');
  check(canRead(repo, ctx.sender), fn, 'ENoAccess');
}
