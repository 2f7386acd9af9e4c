import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CONTRACT_MODULES, contractFunctions, contractStructs, findContractFunction, initPackage } from '../../src/contract/abi.ts';
import { Clock, Events, PackEntry, PushRecord, RefUpdate, Registry, RegistryKey, Repository, layoutOf } from '../../src/contract/bcs.ts';
import { MemoryChain } from './vectors/memory-context.ts';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import { marketStructLayouts } from '../../src/contract/market-bcs.ts';

const PKG = `0x${'0'.repeat(60)}beef`;
const source = (module: string) => readFileSync(new URL(`../../contracts/sources/${module}.move`, import.meta.url), 'utf8');
const ALICE = `0x${'a1'.repeat(32)}`;

/** Functions of a Move module in declaration order (test-only ones left out), with parameter and return text. */
function moveFunctions(module: string): { visibility: string; entry: boolean; name: string; params: string; returns: string }[] {
  const text = source(module);
  const out: { visibility: string; entry: boolean; name: string; params: string; returns: string }[] = [];
  for (const m of text.matchAll(/^(#\[test_only\]\n)?(public(?:\(package\))? )?(entry )?fun (\w+)\(/gm)) {
    if (m[1]) continue;
    let depth = 1;
    let i = m.index! + m[0].length;
    const start = i;
    for (; depth > 0; i++) depth += text[i] === '(' ? 1 : text[i] === ')' ? -1 : 0;
    const params = text.slice(start, i - 1).replace(/\s+/g, ' ').trim().replace(/,$/, '');
    const returns = text.slice(i, text.indexOf('{', i)).replace(/^\s*:/, '').trim();
    out.push({ visibility: (m[2] ?? '').trim(), entry: m[3] !== undefined, name: m[4]!, params, returns });
  }
  return out;
}

/** Field names of a Move struct in declaration order. */
function moveFields(module: string, struct: string): string[] {
  // A struct without fields (`Name()`) is stored with one `dummy_field: bool`.
  if (new RegExp(`public struct ${struct}\\(\\)`).test(source(module))) return ['dummy_field'];
  const body = new RegExp(`public struct ${struct}[^{]*\\{([^}]*)\\}`).exec(source(module))![1]!;
  return [...body.matchAll(/^\s*(\w+):/gm)].map((m) => m[1]!);
}

/** Field names of a BCS struct layout in order (parsing zero bytes yields every field with an empty value). */
function layoutFields(layout: { parse(bytes: Uint8Array): unknown }): string[] {
  return Object.keys(layout.parse(new Uint8Array(4096)) as object);
}

const abi = suite('contractFunctions');

abi('lists every public and entry function of the Move modules, with its index in declaration order', () => {
  const functions = contractFunctions(PKG);
  for (const module of ['repository', 'pack', 'market', 'lease_access', 'lease_secrets', 'attestation']) {
    const declared = moveFunctions(module);
    const listed = functions.filter((f) => f.module === module);
    const callable = declared.map((f, index) => ({ ...f, index })).filter((f) => f.visibility === 'public' || f.entry);
    assert.equal(listed.map((f) => f.name), callable.map((f) => f.name), module);
    assert.equal(listed.map((f) => f.index), callable.map((f) => f.index), `${module} indices`);
    for (const f of listed) {
      const d = callable.find((c) => c.name === f.name)!;
      assert.is(f.visibility, d.visibility === 'public' ? 'public' : 'private', f.name);
      assert.is(f.isEntry, d.entry, f.name);
    }
  }
  assert.ok(functions.every((f) => f.typeParameters.length === 0));
  // Seal's rule: the policy is a non-public entry function, callable from a transaction only.
  assert.equal(functions.filter((f) => f.isEntry).map((f) => [f.name, f.visibility]), [
    ['seal_approve', 'private'],
    ['seal_approve_lease', 'private'],
    ['seal_approve_lease_secrets', 'private'],
    ['seal_approve_lease_secrets_as_tenant', 'private'],
  ]);
});

abi('parameter counts match the Move source, TxContext included', () => {
  for (const f of contractFunctions(PKG)) {
    const declared = moveFunctions(f.module).find((d) => d.name === f.name)!;
    const count = declared.params === '' ? 0 : declared.params.split(/,(?![^<]*>)/).length;
    assert.is(f.parameters.length, count, f.name);
    assert.is(f.returns.length, declared.returns === '' ? 0 : declared.returns.startsWith('(') ? declared.returns.split(',').length : 1, f.name);
    assert.is(declared.params.includes('TxContext'), f.parameters.at(-1)?.endsWith('::tx_context::TxContext') ?? false, f.name);
  }
});

abi('every parameter and return type other than objects and TxContext has a BCS layout', () => {
  for (const f of contractFunctions(PKG)) {
    for (const t of [...f.parameters, ...f.returns]) {
      if (t.startsWith('&')) continue;
      assert.ok(layoutOf(PKG, t), `${f.name}: ${t}`);
    }
  }
});

abi('push and create spell their signatures like Sui normalized types', () => {
  const push = findContractFunction(PKG, 'repository', 'push')!;
  assert.equal(push.parameters, [
    `&mut ${PKG}::repository::Repository`,
    'vector<0x1::string::String>',
    'vector<0x1::option::Option<vector<u8>>>',
    'vector<0x1::option::Option<vector<u8>>>',
    'vector<bool>',
    `0x1::option::Option<${PKG}::pack::PackEntry>`,
    '&0x2::clock::Clock',
    '&0x2::tx_context::TxContext',
  ]);
  assert.equal(findContractFunction(PKG, 'repository', 'create')!.returns, ['0x2::object::ID']);
  assert.is(findContractFunction(PKG, 'repository', 'init'), undefined);
  assert.is(findContractFunction(PKG, 'repository', 'record'), undefined);
});

abi('run executes on the model: init, create, new_pack_entry, push and the getters', () => {
  const chain = new MemoryChain(PKG);
  const ctx = chain.context(ALICE);
  const published = initPackage(ctx);
  assert.is(published.shared.length, 1);
  assert.is(published.shared[0]!.type, `${PKG}::repository::Registry`);
  const registry = Registry.parse(published.shared[0]!.bcs);

  const created = findContractFunction(PKG, 'repository', 'create')!.run(ctx, [registry, 'app', 'refs/heads/main']);
  assert.is(created.shared[0]!.type, `${PKG}::repository::Repository`);
  assert.is(created.returns[0], created.shared[0]!.id);
  const repo = Repository.parse(created.shared[0]!.bcs);

  const pack = findContractFunction(PKG, 'repository', 'new_pack_entry')!.run(ctx, [[5n], 10n, new Uint8Array(32)]).returns[0];
  const clock = Clock.parse(Clock.serialize({ id: `0x${'0'.repeat(63)}6`, timestamp_ms: 1234n }).toBytes());
  findContractFunction(PKG, 'repository', 'push')!.run(ctx, [repo, ['refs/heads/main'], [null], [new Uint8Array(20).fill(1)], [false], pack, clock]);
  const get = (name: string, ...args: unknown[]) => findContractFunction(PKG, 'repository', name)!.run(ctx, [repo, ...args]).returns[0];
  assert.is(get('seq'), 1n);
  assert.is(get('pack_count'), 1n);
  assert.equal(get('ref_value', 'refs/heads/main'), new Uint8Array(20).fill(1));
  assert.equal(get('pack_at', 0n), pack);
  assert.is(get('is_writer', ALICE), true);
  assert.is(findContractFunction(PKG, 'pack', 'size')!.run(ctx, [pack]).returns[0], 10n);
  assert.is(findContractFunction(PKG, 'repository', 'repository_id')!.run(ctx, [registry, ALICE, 'app']).returns[0], repo.id);
  const pushed = chain.events.at(-1)!;
  assert.is(pushed.type, 'events::Pushed');
  assert.is(Events.Pushed.parse(pushed.bcs).timestamp_ms, 1234n);
});

abi('run throws MoveAbort for an abort', () => {
  assert.throws(
    () => findContractFunction(PKG, 'repository', 'new_pack_entry')!.run(new MemoryChain(PKG).context(ALICE), [[], 10n, new Uint8Array(32)]),
    (e: unknown) => e instanceof MoveAbort && e.abortName === 'EInvalidPack' && e.functionName === 'new_pack_entry',
  );
});

abi.run();

const structs = suite('contractStructs');

structs('names every struct the Move sources declare, and bcs.ts mirrors their fields in order', () => {
  const declared = CONTRACT_MODULES.flatMap((m) => [...source(m).matchAll(/^public struct (\w+)/gm)].map((x) => `${PKG}::${m}::${x[1]}`));
  assert.equal([...contractStructs(PKG)].sort(), declared.sort());
  const layouts: Record<string, { parse(b: Uint8Array): unknown }> = {
    'repository::Registry': Registry,
    'repository::RegistryKey': RegistryKey,
    'repository::Repository': Repository,
    'pack::PackEntry': PackEntry,
    'push_log::RefUpdate': RefUpdate,
    'push_log::PushRecord': PushRecord,
    ...Object.fromEntries(Object.entries(Events).map(([k, v]) => [`events::${k}`, v])),
    ...marketStructLayouts(),
  };
  for (const [path, layout] of Object.entries(layouts)) {
    const [module, struct] = path.split('::') as [string, string];
    assert.equal(layoutFields(layout), moveFields(module, struct), path);
  }
});

structs.run();
