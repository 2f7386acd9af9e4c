/**
 * Every function of the `walrus_git` package a transaction can call, with its signature in Sui's normalized
 * spelling and a `run` that executes it on the model. The devnet chain engine uses the signatures to type-check and
 * decode arguments and to answer `getNormalizedMoveFunction`, and `run` to execute.
 *
 * Argument values given to `run` (the TxContext parameter is NOT among them; the engine passes `ctx` instead):
 * - `&`/`&mut` objects: the decoded struct (bcs.ts layouts; `objectLayouts(pkg)`); `&mut` objects are changed in
 *   place and the engine re-encodes them after the call. `&Clock` is the decoded `Clock` (`{id, timestamp_ms}`).
 * - pure values and results of earlier commands: decoded as documented in bcs.ts (u64 → bigint, vector<u8> →
 *   Uint8Array, Option → value or null, address/ID → 0x + 64 hex, String → string, PackEntry → its struct).
 *   `layoutOf(pkg, type)` decodes a pure argument of any parameter type listed here.
 * `Option<PackEntry>` for `push` is built in the same transaction with the framework's
 * `0x1::option::some<PackEntry>` / `none<PackEntry>`, which the engine executes itself.
 */
import {
  CLOCK_TYPE,
  Events,
  ID_TYPE,
  Repository,
  Registry,
  STRING_TYPE,
  TX_CONTEXT_TYPE,
  packEntryType,
  registryType,
  repositoryType,
} from './bcs.ts';
import type { ClockValue, PackEntryValue, RegistryValue, RepositoryValue } from './bcs.ts';
import type { MoveContext } from './context.ts';
import type { CallResult, MoveFunctionAbi } from './function-abi.ts';
import { functionDeclarer } from './function-declarer.ts';
import * as model from './model.ts';
import { MARKET_MODULES, marketFunctions, marketStructs } from './market-abi.ts';
import { LEASE_ACCESS_MODULE, leaseAccessFunctions } from './lease-access-abi.ts';
import { leaseSecretsFunctions, leaseSecretsStructs } from './lease-secrets-abi.ts';
import { LEASE_SECRETS_MODULE } from './lease-secrets-model.ts';
import { attestationFunctions, attestationStructs } from './attestation-abi.ts';
import { ATTESTATION_MODULE } from './attestation-model.ts';

const REF = `&${TX_CONTEXT_TYPE}`;
const REF_MUT = `&mut ${TX_CONTEXT_TYPE}`;
const done = (...returns: unknown[]): CallResult => ({ returns, shared: [] });

/** The callable functions of the package published at `pkg`. */
export function contractFunctions(pkg: string): MoveFunctionAbi[] {
  const repo = repositoryType(pkg);
  const registry = registryType(pkg);
  const pack = packEntryType(pkg);
  const bytesOption = '0x1::option::Option<vector<u8>>';
  const fn = functionDeclarer('repository'); // the functions in the order repository.move declares them
  const getter = (name: string, returns: string, get: (r: RepositoryValue) => unknown) =>
    fn(name, [`&${repo}`], [returns], (_ctx, [r]) => done(get(r)));

  return [
    fn('create', [`&mut ${registry}`, STRING_TYPE, STRING_TYPE, REF_MUT], [ID_TYPE], (ctx, [reg, name, head]) => {
      const created = model.create(ctx, reg as RegistryValue, name as string, head as string);
      return { returns: [created.id], shared: [{ id: created.id, type: repo, bcs: Repository.serialize(created).toBytes() }] };
    }),
    fn('new_pack_entry', ['vector<u256>', 'u64', 'vector<u8>'], [pack], (_ctx, [chunks, size, sha256]) =>
      done(model.newPackEntry(chunks as bigint[], size as bigint, sha256 as Uint8Array)),
    ),
    fn(
      'push',
      [`&mut ${repo}`, `vector<${STRING_TYPE}>`, `vector<${bytesOption}>`, `vector<${bytesOption}>`, 'vector<bool>', `0x1::option::Option<${pack}>`, `&${CLOCK_TYPE}`, REF],
      [],
      (ctx, [r, names, olds, news, forces, p, clock]) => {
        model.push(ctx, r, names, olds, news, forces, p as PackEntryValue | null, (clock as ClockValue).timestamp_ms);
        return done();
      },
    ),
    fn('repack', [`&mut ${repo}`, pack, 'u64', `&${CLOCK_TYPE}`, REF], [], (ctx, [r, p, liveFrom, clock]) => {
      model.repack(ctx, r, p, liveFrom, (clock as ClockValue).timestamp_ms);
      return done();
    }),
    fn('repack_at', [`&mut ${repo}`, pack, 'u64', `&${CLOCK_TYPE}`, REF], [], (ctx, [r, p, expectedSeq, clock]) => {
      model.repackAt(ctx, r, p, expectedSeq, (clock as ClockValue).timestamp_ms);
      return done();
    }),
    fn('add_writer', [`&mut ${repo}`, 'address', REF], [], (ctx, [r, a]) => (model.addWriter(ctx, r, a), done())),
    fn('remove_writer', [`&mut ${repo}`, 'address', REF], [], (ctx, [r, a]) => (model.removeWriter(ctx, r, a), done())),
    fn('protect_ref', [`&mut ${repo}`, STRING_TYPE, REF], [], (ctx, [r, n]) => (model.protectRef(ctx, r, n), done())),
    fn('unprotect_ref', [`&mut ${repo}`, STRING_TYPE, REF], [], (ctx, [r, n]) => (model.unprotectRef(ctx, r, n), done())),
    fn('set_head', [`&mut ${repo}`, STRING_TYPE, REF], [], (ctx, [r, h]) => (model.setHead(ctx, r, h), done())),
    fn('transfer_ownership', [`&mut ${registry}`, `&mut ${repo}`, 'address', REF], [], (ctx, [reg, r, to]) => {
      model.transferOwnership(ctx, reg, r, to);
      return done();
    }),
    fn('repository_id', [`&${registry}`, 'address', STRING_TYPE], [`0x1::option::Option<${ID_TYPE}>`], (ctx, [reg, owner, name]) =>
      done(model.repositoryId(ctx, reg, owner, name)),
    ),
    fn('ref_value', [`&${repo}`, STRING_TYPE], [bytesOption], (ctx, [r, name]) => done(model.refValue(ctx, r, name))),
    fn('pack_at', [`&${repo}`, 'u64'], [`0x1::option::Option<${pack}>`], (ctx, [r, index]) => done(model.packAt(ctx, r, index))),
    fn('is_writer', [`&${repo}`, 'address'], ['bool'], (_ctx, [r, who]) => done(model.isWriterOf(r, who))),
    fn('is_protected', [`&${repo}`, STRING_TYPE], ['bool'], (_ctx, [r, name]) => done((r as RepositoryValue).protected.contents.includes(name))),
    getter('name', STRING_TYPE, (r) => r.name),
    getter('owner', 'address', (r) => r.owner),
    getter('writers', 'vector<address>', (r) => [...r.writers.contents]),
    getter('protected_refs', `vector<${STRING_TYPE}>`, (r) => [...r.protected.contents]),
    getter('head', STRING_TYPE, (r) => r.head),
    getter('hash_len', 'u8', (r) => r.hash_len),
    getter('ref_count', 'u64', (r) => r.refs.size),
    getter('pack_count', 'u64', (r) => r.pack_count),
    getter('live_from', 'u64', (r) => r.live_from),
    getter('seq', 'u64', (r) => r.seq),
    getter('log_head', 'vector<u8>', (r) => r.log_head.slice()),
    // Private repositories (Seal), declared after the reads.
    fn('create_private', [`&mut ${registry}`, STRING_TYPE, STRING_TYPE, REF_MUT], [ID_TYPE], (ctx, [reg, name, head]) => {
      const created = model.createPrivate(ctx, reg as RegistryValue, name as string, head as string);
      return { returns: [created.id], shared: [{ id: created.id, type: repo, bcs: Repository.serialize(created).toBytes() }] };
    }),
    fn('new_sealed_pack_entry', ['vector<u256>', 'u64', 'vector<u8>', 'vector<u8>'], [pack], (_ctx, [chunks, size, sha256, key]) =>
      done(model.newSealedPackEntry(chunks as bigint[], size as bigint, sha256 as Uint8Array, key as Uint8Array)),
    ),
    fn('add_reader', [`&mut ${repo}`, 'address', REF], [], (ctx, [r, a]) => (model.addReader(ctx, r, a), done())),
    fn('remove_reader', [`&mut ${repo}`, 'address', REF], [], (ctx, [r, a]) => (model.removeReader(ctx, r, a), done())),
    {
      // A non-public entry function, as Seal recommends: callable from a transaction, not from other Move code.
      ...fn('seal_approve', ['vector<u8>', `&${repo}`, REF], [], (ctx, [id, r]) => (model.sealApprove(ctx, id as Uint8Array, r), done())),
      visibility: 'private',
      isEntry: true,
    },
    getter('is_private', 'bool', (r) => r.private),
    getter('readers', 'vector<address>', (r) => [...r.readers.contents]),
    fn('can_read', [`&${repo}`, 'address'], ['bool'], (_ctx, [r, who]) => done(model.canRead(r, who))),
    // pack.move declares `new` (public(package)) first, then these getters.
    ...(['chunks', 'size', 'sha256', 'sealed_key'] as const).map((field, i): MoveFunctionAbi => ({
      module: 'pack',
      name: field,
      index: i + 1,
      visibility: 'public',
      isEntry: false,
      typeParameters: [],
      parameters: [`&${pack}`],
      returns: [{ chunks: 'vector<u256>', size: 'u64', sha256: 'vector<u8>', sealed_key: '0x1::option::Option<vector<u8>>' }[field]],
      run: (_ctx, [p]) => done((p as PackEntryValue)[field]),
    })),
    ...marketFunctions(pkg),
    ...leaseAccessFunctions(pkg),
    ...leaseSecretsFunctions(pkg),
    ...attestationFunctions(pkg),
  ];
}

/** One function by module and name, or undefined (the engine then refuses the call like Sui does). */
export function findContractFunction(pkg: string, module: string, name: string): MoveFunctionAbi | undefined {
  return contractFunctions(pkg).find((f) => f.module === module && f.name === name);
}

/** What publishing the package does: the `repository` module's `init` creates and shares the Registry. */
export function initPackage(ctx: MoveContext): CallResult {
  const registry = model.init(ctx);
  return { returns: [], shared: [{ id: registry.id, type: registryType(ctx.packageId), bcs: Registry.serialize(registry).toBytes() }] };
}

/** Modules of the package (for `getNormalizedMoveModulesByPackage` and type checks). */
export const CONTRACT_MODULES = ['events', 'pack', 'push_log', 'repository', ...MARKET_MODULES, LEASE_ACCESS_MODULE, LEASE_SECRETS_MODULE, ATTESTATION_MODULE] as const;

/** Every struct type the package defines, `<pkg>::module::Name`. */
export function contractStructs(pkg: string): string[] {
  const names = [
    'repository::Registry',
    'repository::RegistryKey',
    'repository::RefDir',
    'repository::Repository',
    'pack::PackEntry',
    'push_log::RefUpdate',
    'push_log::PushRecord',
    ...Object.keys(Events).map((e) => `events::${e}`),
  ];
  return [...names.map((n) => `${pkg}::${n}`), ...marketStructs(pkg), ...leaseSecretsStructs(pkg), ...attestationStructs(pkg)];
}
