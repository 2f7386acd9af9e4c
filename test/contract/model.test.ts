import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MoveAbort } from '../../src/contract/abort-codes.ts';
import { Events, Repository } from '../../src/contract/bcs.ts';
import { MemoryChain } from './vectors/memory-context.ts';
import * as model from '../../src/contract/model.ts';
import { isValidRefName } from '../../src/contract/ref-name.ts';

const names: { repository_names: { valid: string[]; invalid: string[] }; ref_names: { valid: string[]; invalid: string[] } } = JSON.parse(
  readFileSync(new URL('../../contracts/tests/name_vectors.json', import.meta.url), 'utf8'),
);
const ALICE = `0x${'a1'.repeat(32)}`;
const BOB = `0x${'b0'.repeat(32)}`;
const id = (byte: number, n = 20) => new Uint8Array(n).fill(byte);

function setup() {
  const chain = new MemoryChain();
  const alice = chain.context(ALICE);
  const registry = model.init(alice);
  const repo = model.create(alice, registry, 'app', model.DEFAULT_HEAD);
  return { chain, alice, bob: chain.context(BOB), registry, repo };
}

function abortOf(fn: () => void): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof MoveAbort) return e.abortName;
    throw e;
  }
  return 'ok';
}

const rules = suite('isValidName / isValidRefName');

rules('follow the shared name vectors', () => {
  for (const n of names.repository_names.valid) assert.ok(model.isValidName(n), n);
  for (const n of names.repository_names.invalid) assert.not.ok(model.isValidName(n), n);
  for (const n of names.ref_names.valid) assert.ok(isValidRefName(n), n);
  for (const n of names.ref_names.invalid) assert.not.ok(isValidRefName(n), n);
});

rules.run();

const create = suite('create');

create('makes a fresh repository with distinct ids and emits RepositoryCreated', () => {
  const { chain, repo, registry } = setup();
  assert.is(new Set([repo.id, repo.refs.id, repo.packs.id, registry.id, registry.entries.id]).size, 5);
  assert.is(repo.owner, ALICE);
  assert.is(repo.log_head.length, 32);
  assert.is(registry.entries.size, 1n);
  const event = chain.events.at(-1)!;
  assert.is(event.type, 'events::RepositoryCreated');
  assert.equal(Events.RepositoryCreated.parse(event.bcs), { repository: repo.id, owner: ALICE, name: 'app', head: 'refs/heads/main' });
});

create('aborts on an object of another package version', () => {
  const { alice, registry } = setup();
  registry.version = 2n;
  assert.is(abortOf(() => model.create(alice, registry, 'other', model.DEFAULT_HEAD)), 'EWrongVersion');
});

create.run();

const newPackEntry = suite('newPackEntry');

newPackEntry('copies its inputs and checks them', () => {
  const sha = new Uint8Array(32);
  const entry = model.newPackEntry([1n], 5n, sha);
  sha[0] = 9;
  assert.is(entry.sha256[0], 0);
  assert.is(abortOf(() => model.newPackEntry([1n], 5n, new Uint8Array(33))), 'EInvalidPack');
});

newPackEntry.run();

const push = suite('push');

push('keeps the id length after every ref is deleted', () => {
  const { alice, repo } = setup();
  model.push(alice, repo, ['refs/heads/main'], [null], [id(1)], [false], null, 1n);
  model.push(alice, repo, ['refs/heads/main'], [id(1)], [null], [false], null, 2n);
  assert.is(repo.refs.size, 0n);
  assert.is(repo.hash_len, 20);
  assert.is(abortOf(() => model.push(alice, repo, ['refs/heads/main'], [null], [id(1, 32)], [false], null, 3n)), 'EHashLenMismatch');
});

push('checks the version first', () => {
  const { alice, repo } = setup();
  repo.version = 0n;
  assert.is(abortOf(() => model.push(alice, repo, [], [], [], [], null, 1n)), 'EWrongVersion');
});

push('records the pack index in Pushed only when a pack was given', () => {
  const { chain, alice, repo } = setup();
  model.push(alice, repo, ['refs/heads/a'], [null], [id(1)], [false], null, 1n);
  assert.is(Events.Pushed.parse(chain.events.at(-1)!.bcs).pack_index, null);
  model.push(alice, repo, ['refs/heads/b'], [null], [id(2)], [false], model.newPackEntry([1n], 1n, new Uint8Array(32)), 2n);
  assert.is(Events.Pushed.parse(chain.events.at(-1)!.bcs).pack_index, 0n);
  assert.equal(model.packAt(alice, repo, 0n)?.chunks, [1n]);
  assert.is(model.packAt(alice, repo, 1n), null);
});

push.run();

const limits = suite('writer and protected-ref limits');

limits('cap writers at MAX_WRITERS and protected refs at MAX_PROTECTED', () => {
  const { alice, repo } = setup();
  for (let i = 1; i <= model.MAX_WRITERS; i++) model.addWriter(alice, repo, `0x${i.toString(16).padStart(64, '0')}`);
  assert.is(abortOf(() => model.addWriter(alice, repo, BOB)), 'ETooManyWriters');
  for (let i = 0; i < model.MAX_PROTECTED; i++) model.protectRef(alice, repo, `refs/heads/b${i}`);
  assert.is(abortOf(() => model.protectRef(alice, repo, 'refs/heads/one-more')), 'ETooManyProtected');
  // Well inside Sui's 250 KiB object limit even when both lists are full of the longest names.
  for (let i = 0; i < model.MAX_PROTECTED; i++) model.unprotectRef(alice, repo, `refs/heads/b${i}`);
  for (let i = 0; i < model.MAX_PROTECTED; i++) model.protectRef(alice, repo, `refs/heads/${String(i).padStart(244, 'x')}`);
  assert.ok(Repository.serialize(repo).toBytes().length < 32 * 1024);
});

limits.run();

const transfer = suite('transferOwnership');

transfer('moves the registry key and keeps the repository id', () => {
  const { alice, bob, registry, repo } = setup();
  model.transferOwnership(alice, registry, repo, BOB);
  assert.is(model.repositoryId(bob, registry, BOB, 'app'), repo.id);
  assert.is(model.repositoryId(bob, registry, ALICE, 'app'), null);
  assert.is(registry.entries.size, 1n);
  assert.is(abortOf(() => model.addWriter(alice, repo, ALICE)), 'ENotOwner');
});

transfer.run();
