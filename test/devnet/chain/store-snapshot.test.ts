import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { ChainLogDamagedError, ChainStore, type CommitRecord, type TxRecord } from '../../../src/devnet/chain/store.ts';
import { storeObject, type StoredObject } from '../../../src/devnet/chain/objects.ts';
import { SNAPSHOT_VERSION, decodeSnapshot } from '../../../src/devnet/chain/snapshot.ts';
import { openLocalNetwork } from '../../../src/devnet/local-network.ts';
import { SuiLedger } from '../../../src/sui/ledger.ts';
import { u256ToBlobId } from '../../../src/core/blob-id-codec.ts';

const PUSHER = new URL('./helpers/pusher.ts', import.meta.url).pathname;

/** Small enough that a few dozen commits cross it several times. */
const TAIL = 8 * 1024;
const FAUCET_KEY = 'suiprivkey1-not-a-real-key-but-secret';
const EVENT_TYPES = ['0xa::m::Pushed', '0xa::m::Created', '0xb::n::Other'];

const hex = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

function object(id: number, version: number, owner: StoredObject['owner']): StoredObject {
  return { id: hex(id), version: String(version), owner, type: '0x2::m::T', contents: Buffer.from(`object ${id} v${version}`).toString('base64'), hasPublicTransfer: true, previousTransaction: `d${version}`, storageRebate: '10' };
}

const genesis: CommitRecord = {
  genesis: { chainId: 'chain', packageId: hex(1), registryId: hex(2), registryInitialVersion: '1', faucetKey: FAUCET_KEY, timestampMs: 1 },
  writes: [object(1, 1, { $kind: 'Immutable', Immutable: true }), object(2, 1, { $kind: 'AddressOwner', AddressOwner: hex(100) })],
  deletes: [],
};

/**
 * Commit `n`: rewrites the shared object (as a push rewrites a repository), adds a child and an owned object, deletes
 * an older child, moves the clock now and then, and records a transaction with 0 to 2 events of a few types.
 */
function commit(n: number): CommitRecord {
  const tx: TxRecord = {
    digest: `digest-${n}`, txBytes: Buffer.alloc(600, n).toString('base64'), signatures: ['sig'], effects: Buffer.alloc(400, n).toString('base64'),
    events: Array.from({ length: n % 3 }, (_, i) => ({ packageId: hex(10), module: 'm', sender: hex(100), type: EVENT_TYPES[(n + i) % 3], bcs: Buffer.from(`event ${n}.${i}`).toString('base64') })),
    timestampMs: 1000 + n, checkpoint: n + 1, objectTypes: {}, balanceChanges: [],
  };
  return {
    clock: n % 7 === 0 ? { offsetMs: n, frozen: n % 2 === 0 } : undefined,
    tx,
    writes: [object(2, n + 2, { $kind: 'AddressOwner', AddressOwner: hex(100) }), object(1000 + n, 1, { $kind: 'ObjectOwner', ObjectOwner: hex(2) }), object(5000 + n, 1, { $kind: 'AddressOwner', AddressOwner: hex(200 + (n % 4)) })],
    deletes: n >= 5 && n % 2 === 0 ? [hex(1000 + n - 5)] : [],
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'walrus-git-snapshot-'));
}

async function commitAll(store: ChainStore, commits: CommitRecord[]): Promise<void> {
  for (const record of commits) await store.transact(async () => ({ commit: record, result: undefined }));
}

/** A new chain in `dir` with `count` commits after genesis, written by a store that snapshots every TAIL bytes. */
async function chain(dir: string, count: number): Promise<ChainStore> {
  const store = new ChainStore(dir, { snapshotMinTail: TAIL });
  await commitAll(store, [genesis, ...Array.from({ length: count }, (_, n) => commit(n))]);
  return store;
}

async function opened(dir: string): Promise<ChainStore> {
  const store = new ChainStore(dir, { snapshotMinTail: TAIL });
  await store.refresh();
  return store;
}

/** The state of `dir` replayed from the log's first line (the snapshot set aside meanwhile). */
async function replayed(dir: string): Promise<ChainStore> {
  const snapshot = join(dir, 'snapshot.json');
  const aside = `${snapshot}.aside`;
  const had = existsSync(snapshot);
  if (had) renameSync(snapshot, aside);
  try {
    return await opened(dir);
  } finally {
    if (had) renameSync(aside, snapshot);
  }
}

/** Everything a store answers with, comparable with `assert.equal`. */
async function state(store: ChainStore) {
  const sets = (map: Map<string, Set<string>>) => [...map].filter(([, ids]) => ids.size > 0).map(([key, ids]) => [key, [...ids].sort()]).sort();
  const records = await store.read([...store.transactions.values()]);
  return {
    objects: [...store.objects.values()].map(storeObject).sort((a, b) => a.id.localeCompare(b.id)),
    owned: sets(store.owned),
    children: sets(store.children),
    transactions: [...store.transactions.values()],
    records,
    events: store.events.map((ref) => [ref.tx.digest, ref.eventSeq, ref.type]),
    eventsByType: [...store.eventsByType].sort(),
    genesis: store.genesis,
    clock: store.clock,
    checkpoint: store.checkpoint,
  };
}

function snapshotOf(dir: string) {
  return decodeSnapshot(readFileSync(join(dir, 'snapshot.json'), 'utf8'));
}

function logSize(dir: string): number {
  return readFileSync(join(dir, 'chain.log')).length;
}

const snapshots = suite('ChainStore snapshot');

snapshots('a store opened from its snapshot answers as a full replay of the log, after many commits across the threshold', async () => {
  const dir = tempDir();
  const writer = await chain(dir, 120);
  const snapshot = snapshotOf(dir);
  assert.ok(snapshot, 'a snapshot was written');
  assert.ok(snapshot.offset > logSize(dir) / 2 && snapshot.offset <= logSize(dir), 'the snapshot is recent and within the log');
  const reopened = await opened(dir);
  const full = await replayed(dir);
  assert.equal(await state(reopened), await state(full));
  assert.equal(await state(reopened), await state(writer));
  assert.is(reopened.transactions.size, 120);
  assert.equal((await reopened.transaction('digest-77'))?.timestampMs, 1077);
  assert.is(await reopened.transaction('digest-none'), undefined);
  // An open reads no line the snapshot covers, a query reads its own: blank out the first transaction's line.
  const log = readFileSync(join(dir, 'chain.log'));
  const first = reopened.transactions.get('digest-0')!;
  log.fill(' ', first.offset, first.offset + first.length);
  writeFileSync(join(dir, 'chain.log'), log);
  assert.is((await opened(dir)).transactions.size, 120);
  assert.instance(await replayed(dir).catch((error: unknown) => error), ChainLogDamagedError);
  assert.instance(await reopened.transaction('digest-0').catch((error: unknown) => error), ChainLogDamagedError);
  rmSync(dir, { recursive: true, force: true });
});

snapshots('a snapshot ahead of the log, damaged, of an unknown version or of another log is ignored and replaced by the next writer', async () => {
  const source = tempDir();
  await chain(source, 60);
  const log = readFileSync(join(source, 'chain.log'));
  const good = readFileSync(join(source, 'snapshot.json'), 'utf8');
  const parsed = JSON.parse(good);
  const damagedObject = { ...parsed, objects: [{ ...parsed.objects[0], version: 'not a number' }, ...parsed.objects.slice(1)] };
  // A log of the snapshot's length but another last line (a transaction's digest changed): another network's log.
  const otherLog = Buffer.from(log);
  otherLog.write('X', otherLog.indexOf('"digest-', parsed.lastLine.start) + 1);
  const cases: [string, string, Buffer][] = [
    ['ahead of the log', good, log.subarray(0, parsed.lastLine.start)],
    ['not JSON', good.slice(0, good.length / 2), log],
    ['empty', '', log],
    ['of an unknown version', JSON.stringify({ ...parsed, version: SNAPSHOT_VERSION + 1 }), log],
    ['with a damaged object', JSON.stringify(damagedObject), log],
    ['of another log', good, otherLog],
  ];
  for (const [label, text, logBytes] of cases) {
    const dir = tempDir();
    writeFileSync(join(dir, 'chain.log'), logBytes);
    writeFileSync(join(dir, 'snapshot.json'), text);
    const reader = await opened(dir);
    assert.equal(await state(reader), await state(await replayed(dir)), `${label}: read as a full replay`);
    const writer = await opened(dir);
    await commitAll(writer, [commit(1000)]);
    const replaced = snapshotOf(dir);
    assert.ok(replaced, `${label}: the next writer replaced the snapshot`);
    assert.is(replaced.offset, logSize(dir), label);
    assert.equal(await state(await opened(dir)), await state(await replayed(dir)), `${label}: the new snapshot reads as a full replay`);
    rmSync(dir, { recursive: true, force: true });
  }
  rmSync(source, { recursive: true, force: true });
});

snapshots('commits another store appends after a snapshot are seen by a refresh; two stores writing alternately agree', async () => {
  const dir = tempDir();
  await chain(dir, 40);
  const first = snapshotOf(dir)!.offset;
  const a = await opened(dir);
  const b = await opened(dir);
  for (let n = 40; n < 100; n++) await commitAll(n % 2 ? a : b, [commit(n)]);
  await Promise.all([a.refresh(), b.refresh()]);
  const full = await state(await replayed(dir));
  assert.equal(await state(a), full);
  assert.equal(await state(b), full);
  assert.equal(await state(await opened(dir)), full);
  assert.ok(snapshotOf(dir)!.offset > first, 'the stores wrote newer snapshots');
  rmSync(dir, { recursive: true, force: true });
});

snapshots('a torn tail after the snapshot is invisible to readers and cut off by the next writer', async () => {
  const dir = tempDir();
  await chain(dir, 50);
  const before = await state(await opened(dir));
  appendFileSync(join(dir, 'chain.log'), '{"writes":[{"id":"0x12');
  assert.equal(await state(await opened(dir)), before);
  const writer = await opened(dir);
  await commitAll(writer, [commit(50)]);
  const lines = readFileSync(join(dir, 'chain.log'), 'utf8').trimEnd().split('\n');
  lines.forEach((line) => JSON.parse(line));
  assert.equal(await state(await opened(dir)), await state(await replayed(dir)));
  assert.is((await (await opened(dir)).transaction('digest-50'))?.digest, 'digest-50');
  rmSync(dir, { recursive: true, force: true });
});

snapshots('a damaged line after the snapshot is a ChainLogDamagedError with its line number, and no secret in it', async () => {
  const dir = tempDir();
  await chain(dir, 30);
  const lines = readFileSync(join(dir, 'chain.log'), 'utf8').split('\n').length - 1;
  appendFileSync(join(dir, 'chain.log'), `{"genesis":{"faucetKey":"${FAUCET_KEY}"\n`);
  try {
    await opened(dir);
    assert.unreachable('a damaged line reads');
  } catch (error) {
    assert.instance(error, ChainLogDamagedError);
    assert.match((error as Error).message, `line ${lines + 1}`);
    assert.not.match(JSON.stringify({ message: (error as Error).message, data: (error as ChainLogDamagedError).data }), FAUCET_KEY);
  }
  rmSync(dir, { recursive: true, force: true });
});

snapshots('a reopened engine answers transactions and event pages as before (pushes through the ledger, across the default threshold), and sees another process\'s pushes after the snapshot', async () => {
  const dir = tempDir();
  const network = await openLocalNetwork(dir);
  const key = Ed25519Keypair.generate();
  await network.faucet(key.toSuiAddress());
  const ledger = new SuiLedger({ client: network.client, signer: key, packageId: network.packageId, registryId: network.registryId });
  const { id } = await ledger.createRepository('snapshots');
  let previous: string | null = null;
  for (let i = 0; i < 45; i++) {
    const next = (i + 1).toString(16).padStart(40, '0');
    await ledger.push(id, [{ name: 'refs/heads/main', old: previous, new: next, force: false }], { chunks: [u256ToBlobId(BigInt(i + 1))], size: 100, sha256: next.padEnd(64, '0') });
    previous = next;
  }
  const pushes = await ledger.listPushes(id);
  await network.close();
  const chainDir = join(dir, 'chain');
  assert.ok(snapshotOf(chainDir), 'the pushes crossed the snapshot threshold');
  assert.is(pushes.length, 45);
  const engine = await ChainEngine.open(chainDir);
  const aside = join(dir, 'snapshot.aside');
  renameSync(join(chainDir, 'snapshot.json'), aside);
  const full = await ChainEngine.open(chainDir);
  renameSync(aside, join(chainDir, 'snapshot.json'));
  const pages = async (of: ChainEngine, eventType: string | null, descending: boolean) => {
    const all = [];
    let cursor = null;
    for (;;) {
      const page: Awaited<ReturnType<ChainEngine['events']>> = await of.events({ eventType, cursor, limit: 7, descending });
      all.push(...page.events);
      if (!page.hasNextPage) return all;
      cursor = page.events.at(-1)!;
    }
  };
  for (const type of [null, ...engine.store.eventsByType.keys()]) {
    for (const descending of [false, true]) assert.equal(await pages(engine, type, descending), await pages(full, type, descending));
  }
  for (const digest of full.store.transactions.keys()) assert.equal(await engine.transaction(digest), await full.transaction(digest));
  assert.is(engine.store.checkpoint, full.store.checkpoint);
  const reopened = await openLocalNetwork(dir);
  const reader = new SuiLedger({ client: reopened.client, signer: key, packageId: reopened.packageId, registryId: reopened.registryId });
  assert.equal(await reader.listPushes(id), pushes);
  // Another process pushes after the snapshot: a refresh of the stores opened from it sees its commits.
  await promisify(execFile)(process.execPath, [PUSHER, dir, id, key.getSecretKey(), 'other', '3']);
  await engine.refresh();
  assert.is(engine.store.transactions.size, full.store.transactions.size + 3);
  assert.equal((await reader.listPushes(id)).map((push) => push.seq), Array.from({ length: 48 }, (_, i) => i + 1));
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
});

snapshots.run();
