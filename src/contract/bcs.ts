/**
 * BCS layouts of the `walrus_git` package, defined once here and mirrored field by field (same names, same order)
 * by the Move structs in contracts/sources/. Decoded values use one representation everywhere in src/contract/:
 *
 * | Move type            | TypeScript value                                  |
 * |----------------------|---------------------------------------------------|
 * | bool                 | boolean                                           |
 * | u8                   | number                                            |
 * | u64, u256            | bigint (serialize also takes number or string)    |
 * | address, ID, UID     | string, `0x` + 64 lowercase hex                   |
 * | String               | string                                            |
 * | vector<u8>           | Uint8Array                                        |
 * | vector<T>            | T[]                                               |
 * | Option<T>            | T or null                                         |
 * | struct               | object with the Move field names (snake_case)     |
 */
import { bcs, fromHex, toHex } from '@mysten/bcs';
import type { BcsType } from '@mysten/bcs';

/**
 * A layout found by its Move type name at run time: only the caller that names the type knows its value's shape.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above; each caller reads the fields it knows
export type AnyLayout = BcsType<any, any>;

/** `0x` + 64 lowercase hex: the one spelling of addresses and object ids here. */
export function normalizeAddress(value: string): string {
  const hex = value.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{1,64}$/.test(hex)) throw new TypeError(`not an address: ${value}`);
  return `0x${hex.padStart(64, '0')}`;
}

function bigNumber(base: BcsType<string, string | number | bigint, string>, name: string): BcsType<bigint, bigint | number | string, string> {
  return base.transform({ name, input: (v: bigint | number | string) => v, output: (v: string) => BigInt(v) });
}

export const U64 = bigNumber(bcs.u64(), 'u64');
export const U256 = bigNumber(bcs.u256(), 'u256');
export const Bytes = bcs.byteVector();
export const Address = bcs.bytes(32).transform({
  name: 'address',
  input: (v: string) => fromHex(normalizeAddress(v).slice(2)),
  output: (v: Uint8Array) => `0x${toHex(v)}`,
});
/** `0x2::object::ID` and `UID` are a 32-byte address on the wire. */
export const ID = Address;
export const UID = Address;
export const MoveString = bcs.string();

/** `0x2::table::Table<K, V>`: the entries are dynamic fields of `id`. */
export const Table = bcs.struct('Table', { id: UID, size: U64 });
/** `0x2::vec_set::VecSet<K>`. */
export function VecSet<T>(element: BcsType<T, T>) {
  return bcs.struct('VecSet', { contents: bcs.vector(element) });
}
/** `0x2::clock::Clock` (shared at 0x6). */
export const Clock = bcs.struct('Clock', { id: UID, timestamp_ms: U64 });
/** `0x2::balance::Balance<T>`. */
export const Balance = bcs.struct('Balance', { value: U64 });
/** `0x2::coin::Coin<T>` (the market takes `Coin<SUI>` by value). */
export const Coin = bcs.struct('Coin', { id: UID, balance: Balance });

/**
 * `walrus_git::pack::PackEntry`: the Walrus blob ids of a pack's chunks, its size and sha256, and for a private
 * repository the Seal `EncryptedObject` (BCS) of the pack's data key. (Its own module so that repository → events →
 * push_log → pack has no dependency cycle; built with `repository::new_pack_entry` / `new_sealed_pack_entry`.)
 */
export const PackEntry = bcs.struct('PackEntry', {
  chunks: bcs.vector(U256),
  size: U64,
  sha256: Bytes,
  sealed_key: bcs.option(Bytes),
});

/** `walrus_git::repository::RegistryKey`. */
export const RegistryKey = bcs.struct('RegistryKey', { owner: Address, name: MoveString });
/** `walrus_git::repository::RefDir`: the key of a repository's count of refs below a name. */
export const RefDir = bcs.struct('RefDir', { name: MoveString });

/** `walrus_git::repository::Registry` (shared, created by `init`). */
export const Registry = bcs.struct('Registry', {
  id: UID,
  version: U64,
  entries: Table,
});

/** `walrus_git::repository::Repository` (shared, one per git repository). */
export const Repository = bcs.struct('Repository', {
  id: UID,
  version: U64,
  name: MoveString,
  owner: Address,
  writers: VecSet(Address),
  protected: VecSet(MoveString),
  head: MoveString,
  hash_len: bcs.u8(),
  refs: Table,
  packs: Table,
  pack_count: U64,
  live_from: U64,
  seq: U64,
  log_head: Bytes,
  private: bcs.bool(),
  readers: VecSet(Address),
});

/** `walrus_git::push_log::RefUpdate`. */
export const RefUpdate = bcs.struct('RefUpdate', {
  name: MoveString,
  old: bcs.option(Bytes),
  new: bcs.option(Bytes),
  forced: bcs.bool(),
});

const pushRecordFields = {
  repository: ID,
  seq: U64,
  kind: bcs.u8(),
  sender: Address,
  timestamp_ms: U64,
  updates: bcs.vector(RefUpdate),
  pack: bcs.option(PackEntry),
  live_from: U64,
};

/** `walrus_git::push_log::PushRecord`: what the log hash covers (docs/architecture.md, The push log). */
export const PushRecord = bcs.struct('PushRecord', pushRecordFields);

/** `walrus_git::events::Pushed`: the record's fields, then where the pack went and the new log head. */
export const Pushed = bcs.struct('Pushed', {
  ...pushRecordFields,
  pack_index: bcs.option(U64),
  log_head: Bytes,
});
export const RepositoryCreated = bcs.struct('RepositoryCreated', { repository: ID, owner: Address, name: MoveString, head: MoveString });
export const WriterAdded = bcs.struct('WriterAdded', { repository: ID, writer: Address });
export const WriterRemoved = bcs.struct('WriterRemoved', { repository: ID, writer: Address });
export const RefProtected = bcs.struct('RefProtected', { repository: ID, name: MoveString });
export const RefUnprotected = bcs.struct('RefUnprotected', { repository: ID, name: MoveString });
export const HeadSet = bcs.struct('HeadSet', { repository: ID, head: MoveString });
export const OwnershipTransferred = bcs.struct('OwnershipTransferred', { repository: ID, from: Address, to: Address });
export const ReaderAdded = bcs.struct('ReaderAdded', { repository: ID, reader: Address });
export const ReaderRemoved = bcs.struct('ReaderRemoved', { repository: ID, reader: Address });

/** Every event of the `events` module, by struct name. */
export const Events = {
  RepositoryCreated,
  Pushed,
  WriterAdded,
  WriterRemoved,
  RefProtected,
  RefUnprotected,
  HeadSet,
  OwnershipTransferred,
  ReaderAdded,
  ReaderRemoved,
} as const;
export type EventName = keyof typeof Events;

export type PackEntryValue = ReturnType<typeof PackEntry.parse>;
export type RefUpdateValue = ReturnType<typeof RefUpdate.parse>;
export type PushRecordValue = ReturnType<typeof PushRecord.parse>;
export type PushedValue = ReturnType<typeof Pushed.parse>;
export type RepositoryValue = ReturnType<typeof Repository.parse>;
export type RegistryValue = ReturnType<typeof Registry.parse>;
export type RegistryKeyValue = ReturnType<typeof RegistryKey.parse>;
export type ClockValue = ReturnType<typeof Clock.parse>;

// Move type tags, as Sui spells them in normalized signatures and dynamic-field types.
export const STRING_TYPE = '0x1::string::String';
export const ID_TYPE = '0x2::object::ID';
export const CLOCK_TYPE = '0x2::clock::Clock';
export const TX_CONTEXT_TYPE = '0x2::tx_context::TxContext';

export function repositoryType(pkg: string): string {
  return `${pkg}::repository::Repository`;
}
export function registryType(pkg: string): string {
  return `${pkg}::repository::Registry`;
}
export function registryKeyType(pkg: string): string {
  return `${pkg}::repository::RegistryKey`;
}
export function refDirType(pkg: string): string {
  return `${pkg}::repository::RefDir`;
}
export function packEntryType(pkg: string): string {
  return `${pkg}::pack::PackEntry`;
}
export function eventType(pkg: string, name: EventName): string {
  return `${pkg}::events::${name}`;
}

/** Layouts of the package's key objects by Move type, for the engine to encode and decode object contents. */
export function objectLayouts(pkg: string): Map<string, AnyLayout> {
  return new Map<string, AnyLayout>([
    [repositoryType(pkg), Repository],
    [registryType(pkg), Registry],
  ]);
}

function sameAddress(a: string, b: string): boolean {
  try {
    return normalizeAddress(a) === normalizeAddress(b);
  } catch {
    return false;
  }
}

/** Splits `T1, T2<A, B>` at top-level commas. */
export function splitTypeArgs(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '<') depth++;
    else if (s[i] === '>') depth--;
    else if (s[i] === ',' && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(s.slice(start).trim());
  return out;
}

/**
 * The BCS layout of a Move type tag (`u64`, `vector<0x1::option::Option<vector<u8>>>`, `<pkg>::repository::PackEntry`…),
 * for pure arguments, return values and our structs. Undefined for types this package never passes by value.
 */
export function layoutOf(pkg: string, type: string): AnyLayout | undefined {
  const t = type.trim();
  switch (t) {
    case 'bool':
      return bcs.bool();
    case 'u8':
      return bcs.u8();
    case 'u16':
      return bcs.u16();
    case 'u32':
      return bcs.u32();
    case 'u64':
      return U64;
    case 'u128':
      return bigNumber(bcs.u128(), 'u128');
    case 'u256':
      return U256;
    case 'address':
      return Address;
    case 'vector<u8>':
      return Bytes;
  }
  const generic = /^([^<]+)<(.*)>$/.exec(t);
  const head = generic ? generic[1]!.trim() : t;
  const args = generic ? splitTypeArgs(generic[2]!) : [];
  if (head === 'vector' && args.length === 1) {
    const inner = layoutOf(pkg, args[0]!);
    return inner && bcs.vector(inner);
  }
  const parts = head.split('::');
  if (parts.length !== 3) return undefined;
  const [address, module, name] = parts as [string, string, string];
  const path = `${module}::${name}`;
  if (sameAddress(address, '0x1')) {
    if (path === 'option::Option' && args.length === 1) {
      const inner = layoutOf(pkg, args[0]!);
      return inner && bcs.option(inner);
    }
    if (path === 'string::String' || path === 'ascii::String') return MoveString;
    return undefined;
  }
  if (sameAddress(address, '0x2')) {
    if (path === 'object::ID' || path === 'object::UID') return ID;
    if (path === 'clock::Clock') return Clock;
    if (path === 'coin::Coin' && args.length === 1) return Coin;
    if (path === 'balance::Balance' && args.length === 1) return Balance;
    return undefined;
  }
  if (!sameAddress(address, pkg) || args.length > 0) return undefined;
  const ours: Record<string, AnyLayout> = {
    'pack::PackEntry': PackEntry,
    'repository::RegistryKey': RegistryKey,
    'repository::RefDir': RefDir,
    'repository::Registry': Registry,
    'repository::Repository': Repository,
    'push_log::RefUpdate': RefUpdate,
    'push_log::PushRecord': PushRecord,
  };
  for (const [event, layout] of Object.entries(Events)) ours[`events::${event}`] = layout;
  return ours[path];
}
