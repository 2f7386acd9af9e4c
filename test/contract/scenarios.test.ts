import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { toHex } from '@mysten/bcs';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import { ID, Pushed, Registry, Repository } from '../../src/contract/bcs.ts';
import type { RegistryValue, RepositoryValue } from '../../src/contract/bcs.ts';
import { MemoryChain } from './vectors/memory-context.ts';
import type { MoveContext } from '../../src/contract/context.ts';
import * as model from '../../src/contract/model.ts';
import { GENESIS_LOG_HEAD, nextLogHead } from '../../src/contract/push-log.ts';
import { expectedRecord, parseScenarios } from './vectors/scenarios.ts';
import type { ExpectedState, KeyId, Step } from './vectors/scenarios.ts';

const file = parseScenarios(JSON.parse(readFileSync(new URL('../../contracts/tests/scenarios.json', import.meta.url), 'utf8')));

function keyId(id: KeyId, repos: Map<string, RepositoryValue>): Uint8Array {
  const prefix = id.repo === null ? new Uint8Array() : ID.serialize(repos.get(id.repo)!.id).toBytes();
  return Uint8Array.from([...prefix, ...id.suffix]);
}

/** Executes one step on the model. */
function perform(ctx: MoveContext, step: Step, registry: RegistryValue, repos: Map<string, RepositoryValue>): void {
  const c = step.call;
  const repo = () => repos.get(step.repo!)!;
  switch (c.call) {
    case 'create':
      repos.set(step.repo!, model.create(ctx, registry, c.name, c.head));
      return;
    case 'new_pack_entry':
      model.newPackEntry(c.chunks, c.size, c.sha256);
      return;
    case 'push':
      return model.push(ctx, repo(), c.names, c.olds, c.news, c.forces, c.pack, step.clockMs);
    case 'repack':
      return model.repack(ctx, repo(), c.pack, c.live_from, step.clockMs);
    case 'repack_at':
      return model.repackAt(ctx, repo(), c.pack, c.expected_seq, step.clockMs);
    case 'add_writer':
      return model.addWriter(ctx, repo(), c.writer);
    case 'remove_writer':
      return model.removeWriter(ctx, repo(), c.writer);
    case 'protect_ref':
      return model.protectRef(ctx, repo(), c.name);
    case 'unprotect_ref':
      return model.unprotectRef(ctx, repo(), c.name);
    case 'set_head':
      return model.setHead(ctx, repo(), c.head);
    case 'transfer_ownership':
      return model.transferOwnership(ctx, registry, repo(), c.new_owner);
    case 'create_private':
      repos.set(step.repo!, model.createPrivate(ctx, registry, c.name, c.head));
      return;
    case 'new_sealed_pack_entry':
      model.newSealedPackEntry(c.chunks, c.size, c.sha256, c.sealed_key);
      return;
    case 'add_reader':
      return model.addReader(ctx, repo(), c.reader);
    case 'remove_reader':
      return model.removeReader(ctx, repo(), c.reader);
    case 'seal_approve':
      return model.sealApprove(ctx, keyId(c.id, repos), repo());
  }
}

function checkState(where: string, chain: MemoryChain, ctx: MoveContext, registry: RegistryValue, repos: Map<string, RepositoryValue>, repo: RepositoryValue, want: ExpectedState) {
  if (want.name !== undefined) assert.is(repo.name, want.name, `${where}: name`);
  if (want.owner !== undefined) assert.is(repo.owner, want.owner, `${where}: owner`);
  if (want.head !== undefined) assert.is(repo.head, want.head, `${where}: head`);
  if (want.writers !== undefined) assert.equal(repo.writers.contents, want.writers, `${where}: writers`);
  if (want.protected !== undefined) assert.equal(repo.protected.contents, want.protected, `${where}: protected`);
  if (want.hash_len !== undefined) assert.is(repo.hash_len, want.hash_len, `${where}: hash_len`);
  if (want.seq !== undefined) assert.is(repo.seq, want.seq, `${where}: seq`);
  if (want.pack_count !== undefined) assert.is(repo.pack_count, want.pack_count, `${where}: pack_count`);
  if (want.live_from !== undefined) assert.is(repo.live_from, want.live_from, `${where}: live_from`);
  if (want.private !== undefined) assert.is(repo.private, want.private, `${where}: private`);
  if (want.readers !== undefined) assert.equal(repo.readers.contents, want.readers, `${where}: readers`);
  if (want.refs !== undefined) {
    assert.is(repo.refs.size, BigInt(want.refs.size), `${where}: ref count`);
    for (const [name, value] of want.refs) assert.equal(model.refValue(ctx, repo, name), value, `${where}: ${name}`);
  }
  for (const r of want.registry ?? []) {
    const expected = r.repo === null ? null : repos.get(r.repo)!.id;
    assert.is(model.repositoryId(ctx, registry, r.owner, r.name), expected, `${where}: registry ${r.name}`);
  }
  // The sizes the model keeps match the entries it stored.
  assert.is(repo.refs.size, BigInt(chain.tables.count(repo.refs.id)), `${where}: refs.size`);
  assert.is(repo.packs.size, BigInt(chain.tables.count(repo.packs.id)), `${where}: packs.size`);
  assert.is(repo.packs.size, repo.pack_count, `${where}: pack_count`);
}

const scenarios = suite('scenarios.json on the model');

scenarios('has at least 25 scenarios and covers every abort the scenarios can reach', () => {
  assert.ok(file.scenarios.length >= 25);
  const expected = new Set(file.scenarios.flatMap((s) => s.steps.map((st) => st.expect)));
  for (const name of ['ENameTaken', 'EInvalidName', 'ERefMismatch', 'ERefExists', 'EProtected', 'ENotWriter', 'EBadHashLen', 'EHashLenMismatch', 'EEmptyUpdate', 'EBadLiveFrom', 'EStaleRepack']) {
    assert.ok(expected.has(name as never), name);
  }
});

for (const [index, scenario] of file.scenarios.entries()) {
  scenarios(`${index + 1}. ${scenario.name}`, () => {
    const chain = new MemoryChain();
    const registry = model.init(chain.context(scenario.steps[0]!.senderAddress));
    const repos = new Map<string, RepositoryValue>();
    const logs = new Map<string, { head: Uint8Array; seq: bigint; liveFrom: bigint; packCount: bigint }>();

    for (const [i, step] of scenario.steps.entries()) {
      const where = `step ${i + 1} (${step.call.call} by ${step.sender})`;
      const ctx = chain.context(step.senderAddress);
      const before = {
        registry: toHex(Registry.serialize(registry).toBytes()),
        repos: [...repos.values()].map((r) => toHex(Repository.serialize(r).toBytes())),
        tables: chain.tables.snapshot(),
        events: chain.events.length,
      };
      let aborted: MoveAbort | undefined;
      try {
        perform(ctx, step, registry, repos);
      } catch (e) {
        if (!(e instanceof MoveAbort)) throw e;
        aborted = e;
      }
      if (step.expect !== 'ok') {
        assert.ok(aborted, `${where}: expected ${step.expect}, the call succeeded`);
        assert.is(aborted.abortName, step.expect, where);
        assert.is(aborted.module, 'repository');
      } else {
        assert.is(aborted, undefined, `${where}: unexpected ${aborted?.abortName}`);
      }
      if (step.expect !== 'ok' || step.call.call === 'seal_approve') {
        // An abort, and the key servers' policy check, leave every object, table entry and event untouched.
        assert.is(toHex(Registry.serialize(registry).toBytes()), before.registry, `${where}: registry changed`);
        assert.equal([...repos.values()].map((r) => toHex(Repository.serialize(r).toBytes())), before.repos, `${where}: repository changed`);
        assert.is(chain.tables.snapshot(), before.tables, `${where}: tables changed`);
        assert.is(chain.events.length, before.events, `${where}: events emitted`);
      }

      if (step.repo === undefined) continue;
      const repo = repos.get(step.repo);
      if (repo === undefined) continue;
      const log = logs.get(step.repo) ?? { head: GENESIS_LOG_HEAD, seq: 0n, liveFrom: 0n, packCount: 0n };
      if (step.expect === 'ok') {
        const record = expectedRecord(step, { repository: repo.id, seq: log.seq + 1n, liveFrom: log.liveFrom, packCount: log.packCount });
        if (record !== null) {
          log.head = nextLogHead(log.head, record);
          log.seq = record.seq;
          log.liveFrom = record.live_from;
          if (record.pack !== null) log.packCount += 1n;
          const last = chain.events.at(-1)!;
          assert.is(last.type, 'events::Pushed', where);
          const event = Pushed.parse(last.bcs);
          const { pack_index, log_head, ...fields } = event;
          assert.equal(fields, record, `${where}: Pushed carries the record`);
          assert.is(pack_index, record.pack === null ? null : repo.pack_count - 1n, `${where}: pack_index`);
          assert.is(toHex(log_head), toHex(log.head), `${where}: Pushed.log_head`);
        }
        logs.set(step.repo, log);
      }
      assert.is(toHex(repo.log_head), toHex(log.head), `${where}: log_head`);
      assert.is(repo.seq, log.seq, `${where}: seq follows the log`);
      if (step.state) checkState(where, chain, ctx, registry, repos, repo, step.state);
    }
  });
}

scenarios.run();

const parse = suite('parseScenarios');

parse('refuses an expected abort before the last step, and unknown actors', () => {
  const actors = { alice: '0xa11ce' };
  const create = { sender: 'alice', call: 'create', repo: 'app', args: { name: 'app', head: 'refs/heads/main' } };
  assert.throws(() => parseScenarios({ actors, scenarios: [{ name: 'x', steps: [{ ...create, expect: 'ENameTaken' }, { ...create, expect: 'ok' }] }] }), /last step/);
  assert.throws(() => parseScenarios({ actors, scenarios: [{ name: 'x', steps: [{ ...create, sender: 'mallory', expect: 'ok' }] }] }), /unknown actor/);
  assert.throws(() => parseScenarios({ actors, scenarios: [{ name: 'x', steps: [{ ...create, expect: 'EBogus' }] }] }), /unknown expectation/);
});

parse.run();
