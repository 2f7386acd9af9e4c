import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiLedger } from '../../src/sui/ledger.ts';
import type { PushEvent } from '../../src/ports/ledger.ts';
import { ChainWatcher, RepositoryIndex, type CursorStore } from '../../src/gitops/watch/chain-watcher.ts';
import { HeadReader } from '../../src/gitops/watch/head-reader.ts';
import { inProcess, type Front } from '../sui/fronts.ts';

const oid = (n: number) => n.toString(16).padStart(40, '0');

/** A cursor store in a variable, standing for the ConfigMap (which the k8s tests exercise). */
class VariableStore implements CursorStore {
  value: string | null = null;
  saves = 0;
  async load() { return this.value; }
  async save(cursor: string) { this.value = cursor; this.saves++; }
}

const test = suite<{ front: Front; ledger: SuiLedger }>('chain watcher (devnet)');

test.before(async (context) => {
  context.front = await inProcess.open();
  const key = Ed25519Keypair.generate();
  await context.front.faucet(key.toSuiAddress());
  context.ledger = new SuiLedger({ client: context.front.client, packageId: context.front.packageId, registryId: context.front.registryId, signer: key });
});
test.after(async ({ front }) => front.close());

test('a first run starts at the newest push, then sees only later pushes, one read per quiet poll', async ({ ledger }) => {
  const { id: old } = await ledger.createRepository('old');
  await ledger.push(old, [{ name: 'refs/heads/main', old: null, new: oid(1), force: false }], null);
  const store = new VariableStore();
  const seen: PushEvent[] = [];
  const watcher = new ChainWatcher({ feed: ledger, store, onPush: (event) => seen.push(event) });
  const first = await watcher.poll();
  assert.equal(seen, [], 'history is not replayed');
  assert.is(first.reads, 2, 'the newest cursor, then one page');
  assert.ok(store.value, 'the starting cursor is persisted');

  const quiet = await watcher.poll();
  assert.equal(quiet, { reads: 1, events: 0 });
  const savesBefore = store.saves;

  const { id: repo } = await ledger.createRepository('new');
  await ledger.push(repo, [{ name: 'refs/heads/main', old: null, new: oid(2), force: false }], null);
  await ledger.push(old, [{ name: 'refs/heads/main', old: oid(1), new: oid(3), force: false }], null);
  const moved = await watcher.poll();
  assert.is(moved.events, 2);
  assert.equal(seen.map((event) => [event.repository, event.updates[0].new]), [[repo, oid(2)], [old, oid(3)]]);
  assert.is(store.saves, savesBefore + 1, 'one save per poll that moved');
  assert.is(store.value, watcher.cursor);
});

test('a restarted watcher resumes from the stored cursor: pushes made while it was down are delivered, none twice', async ({ ledger }) => {
  const store = new VariableStore();
  const before = new ChainWatcher({ feed: ledger, store, onPush: () => {} });
  await before.poll();
  const { id } = await ledger.createRepository('while-down');
  await ledger.push(id, [{ name: 'refs/heads/main', old: null, new: oid(7), force: false }], null);
  await ledger.push(id, [{ name: 'refs/heads/main', old: oid(7), new: oid(8), force: false }], null);
  const seen: number[] = [];
  const after = new ChainWatcher({ feed: ledger, store, onPush: (event) => seen.push(event.seq) });
  await after.poll();
  await after.poll();
  assert.equal(seen, [1, 2]);
});

test('more pushes than a page are read page by page in order', async ({ ledger }) => {
  const store = new VariableStore();
  const watcher = new ChainWatcher({ feed: ledger, store, onPush: (event) => seen.push(event.seq) });
  const seen: number[] = [];
  await watcher.poll();
  const { id } = await ledger.createRepository('many');
  let previous: string | null = null;
  for (let n = 1; n <= 55; n++) {
    await ledger.push(id, [{ name: 'refs/heads/main', old: previous, new: oid(100 + n), force: false }], null);
    previous = oid(100 + n);
  }
  const result = await watcher.poll();
  assert.is(result.events, 55);
  assert.is(result.reads, 2, '50 + 5');
  assert.equal(seen, Array.from({ length: 55 }, (_, i) => i + 1));
});

test('the head reader finds who set each ref with one scan of the events for every repository, then only what is new', async ({ ledger }) => {
  let scans = 0;
  const counted = { resolve: ledger.resolve.bind(ledger), getRepository: ledger.getRepository.bind(ledger), listRefs: ledger.listRefs.bind(ledger),
    listPushesAfter: (cursor: string | null) => { scans++; return ledger.listPushesAfter(cursor); } };
  const reader = new HeadReader(counted);
  const { id: a } = await ledger.createRepository('head-a');
  const { id: b } = await ledger.createRepository('head-b', 'refs/heads/trunk');
  await ledger.push(a, [{ name: 'refs/heads/main', old: null, new: oid(21), force: false }], null);
  const second = await ledger.push(a, [{ name: 'refs/heads/main', old: oid(21), new: oid(22), force: false }, { name: 'refs/tags/v1', old: null, new: oid(21), force: false }], null);
  await ledger.push(b, [{ name: 'refs/heads/trunk', old: null, new: oid(23), force: false }], null);
  const address = await ledger.signerAddress();

  const headA = await reader.read(`walrus://${a}`, 'main');
  assert.equal(headA.head, { ref: 'refs/heads/main', commit: oid(22), seq: 2, pusher: address, transaction: second.digest });
  const scansForA = scans;
  assert.ok(scansForA >= 1);
  const headB = await reader.read(`walrus://${b}`, null);
  assert.equal([headB.ref, headB.head?.commit, headB.head?.seq], ['refs/heads/trunk', oid(23), 1], 'HEAD names trunk');
  assert.is(scans, scansForA, 'the first scan covered every repository');
  assert.is((await reader.read(`walrus://${a}`, 'v1')).head?.commit, oid(21), 'a short name finds the tag');
  assert.is((await reader.read(`walrus://${a}`, 'nope')).head, null);

  await ledger.push(b, [{ name: 'refs/heads/trunk', old: oid(23), new: oid(24), force: false }], null);
  const moved = await reader.read(`walrus://${b}`, null);
  assert.equal([moved.head?.commit, moved.head?.seq], [oid(24), 2]);
  assert.is(scans, scansForA + 1, 'one read of what is new');
});

test.run();

const index = suite('repository index');
index('maps repositories to the apps following them, and moves an app when its repository changes', () => {
  const apps = new RepositoryIndex();
  apps.follow('a/one', '0x1');
  apps.follow('a/two', '0x1');
  apps.follow('b/three', '0x2');
  assert.equal(apps.appsOf('0x1').sort(), ['a/one', 'a/two']);
  apps.follow('a/two', '0x2');
  assert.equal(apps.appsOf('0x1'), ['a/one']);
  assert.equal(apps.appsOf('0x2').sort(), ['a/two', 'b/three']);
  apps.unfollow('a/one');
  assert.equal(apps.appsOf('0x1'), []);
  assert.is(apps.size, 2);
});
index.run();
