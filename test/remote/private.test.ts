import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { silentLog } from '../../src/core/log.ts';
import { encryptedSize, PackDecryptionError } from '../../src/core/pack-cipher.ts';
import { NotReaderError } from '../../src/core/read-access.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { fetchObjects } from '../../src/remote/fetch.ts';
import { collectGarbage } from '../../src/remote/gc.ts';
import { pushRefs } from '../../src/remote/push.ts';
import { MemoryBlobStore, MemoryLedger } from '../support/memory-ports.ts';
import { MemoryKeyService, untouchableKeyService } from '../support/memory-key-service.ts';
import { commitFile, gitIn, sourceAndTarget, withFixture } from '../support/git-fixture.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

const OWNER = `0x${'1'.repeat(64)}`;
const READER = `0x${'2'.repeat(64)}`;
const STRANGER = `0x${'3'.repeat(64)}`;
const settings = { atomic: false, dryRun: false, progress: false, leases: new Map() };

async function setup(options: { private?: boolean; maxBlobSize?: number; keysPerRequest?: number } = {}) {
  const dir = tempDir('private-test-');
  const env = hermeticGitEnv(dir.path);
  const { source, target } = sourceAndTarget(dir.path, env);
  const ledger = new MemoryLedger(OWNER);
  const blobStore = new MemoryBlobStore(options.maxBlobSize);
  const keyService = new MemoryKeyService(ledger, options.keysPerRequest);
  const { id } = await ledger.createRepository('secret', 'refs/heads/main', { private: options.private ?? true });
  const pushDeps = { ledger, blobStore, keyService, local: new NativeGitRepository(join(source, '.git'), env), log: silentLog };
  const local = new NativeGitRepository(join(target, '.git'), env);
  const fetchDeps = { ledger, blobStore, keyService, local, log: silentLog };
  const pushMain = async () => {
    const saved = ledger.address;
    ledger.address = OWNER;
    try {
      const [result] = await pushRefs(pushDeps, id, [{ src: 'refs/heads/main', dst: 'refs/heads/main', force: false }], settings);
      assert.ok(result!.ok, result!.ok ? '' : result!.reason);
    } finally {
      ledger.address = saved;
    }
  };
  const head = () => gitIn(source, env, 'rev-parse', 'HEAD');
  const packs = () => ledger.packs(id);
  /** Nothing of the remote reached the target: no pack, no quarantine left, no record of applied packs. */
  const assertNothingWritten = async () => {
    assert.equal(readdirSync(join(target, '.git', 'objects', 'pack')), []);
    assert.equal(readdirSync(join(target, '.git', 'objects')).filter((n) => n.startsWith('incoming-')), []);
    assert.is(await local.readAppliedPacks(id), 0);
  };
  return { dir, env, source, target, ledger, blobStore, keyService, id, local, pushDeps, fetchDeps, pushMain, head, packs, assertNothingWritten };
}

type Fixture = Awaited<ReturnType<typeof setup>>;
const inRepositories = (test: (t: Fixture) => Promise<void>, options?: Parameters<typeof setup>[0]) => withFixture(() => setup(options), test);

/** A malicious writer's entry: the stored bytes as given, with a sha256 that matches them (so only decryption can tell). */
function rewrite(t: Fixture, index: number, chunks: Uint8Array[]): void {
  const entry = t.packs()[index]!;
  entry.chunks = chunks.map((bytes) => {
    const blobId = createHash('sha256').update(bytes).digest('base64url');
    t.blobStore.blobs.set(blobId, bytes);
    return blobId;
  });
  entry.size = chunks.reduce((n, c) => n + c.length, 0);
  entry.sha256 = createHash('sha256').update(Buffer.concat(chunks)).digest('hex');
  t.ledger.replacePack(t.id, index, entry);
}

const storedChunks = (t: Fixture, index: number) => t.packs()[index]!.chunks.map((blobId) => t.blobStore.blobs.get(blobId)!.slice());

async function refused(t: Fixture, wanted: string, kind: abstract new (...args: never[]) => Error, message: RegExp): Promise<void> {
  try {
    await fetchObjects(t.fetchDeps, t.id, [wanted], false);
  } catch (error) {
    assert.instance(error, kind);
    assert.match((error as Error).message, message);
    await t.assertNothingWritten();
    return;
  }
  assert.unreachable('the fetch succeeded');
}

const sealed = suite('private repositories: push and fetch');

sealed('a push stores ciphertext with the sealed key in its entry; the owner fetches the plaintext objects', inRepositories(async (t) => {
  commitFile(t.source, t.env, 'secret.txt', 'the recipe\n'.repeat(50));
  await t.pushMain();
  const [entry] = t.packs();
  assert.ok(entry!.sealedKey !== undefined);
  assert.is(t.keyService.sealed, 1);
  const stored = Buffer.concat(storedChunks(t, 0));
  assert.is(stored.subarray(0, 4).toString(), 'wgpe');
  assert.not.ok(stored.includes('PACK') || stored.includes('the recipe'), 'no plaintext is stored');
  assert.is(entry!.size, stored.length);
  assert.is(entry!.sha256, createHash('sha256').update(stored).digest('hex'), 'the chain records the ciphertext');

  await fetchObjects(t.fetchDeps, t.id, [t.head()], false);
  gitIn(t.target, t.env, 'update-ref', 'refs/heads/main', t.head());
  gitIn(t.target, t.env, 'fsck', '--strict');
  assert.is(gitIn(t.target, t.env, 'show', 'HEAD:secret.txt'), 'the recipe\n'.repeat(50).trim());
  assert.is(t.keyService.requests, 1);
  assert.is(t.keyService.prepared, 1, 'the key session was started before the pack list was read');
}));

sealed('a public repository never touches the key service', inRepositories(async (t) => {
  const deps = { ...t.fetchDeps, keyService: untouchableKeyService };
  commitFile(t.source, t.env, 'a.txt', 'open\n');
  await pushRefs({ ...deps, local: new NativeGitRepository(join(t.source, '.git'), t.env) }, t.id, [{ src: 'refs/heads/main', dst: 'refs/heads/main', force: false }], settings);
  assert.is(t.packs()[0]!.sealedKey, undefined);
  assert.is(Buffer.from(storedChunks(t, 0)[0]!).subarray(0, 4).toString(), 'PACK');
  await fetchObjects(deps, t.id, [t.head()], false);
  assert.is(gitIn(t.target, t.env, 'cat-file', '-t', t.head()), 'commit');
}, { private: false }));

sealed('a non-reader is refused in one line naming the repository and its owner, before any download or key request', inRepositories(async (t) => {
  commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  t.ledger.address = STRANGER;
  const reads = t.blobStore.reads;
  await refused(t, t.head(), NotReaderError, new RegExp(`^repository 'secret' \\(${t.id}\\) is private and ${STRANGER} is not one of its readers: ask its owner ${OWNER} to run \`git walrus readers add walrus://${t.id} ${STRANGER}\`$`));
  assert.is(t.blobStore.reads, reads);
  assert.is(t.keyService.requests, 0);
}));

sealed('a reader added after ten pushes reads all of them, in one key request per window of packs', inRepositories(async (t) => {
  for (let i = 0; i < 10; i++) {
    commitFile(t.source, t.env, 'log.txt', `entry ${i}\n`.repeat(i + 1));
    await t.pushMain();
  }
  t.ledger.address = READER;
  await refused(t, t.head(), NotReaderError, /is not one of its readers/);
  t.ledger.address = OWNER;
  await t.ledger.addReader(t.id, READER);
  t.ledger.address = READER;
  await fetchObjects(t.fetchDeps, t.id, [t.head()], false);
  gitIn(t.target, t.env, 'update-ref', 'refs/heads/main', t.head());
  gitIn(t.target, t.env, 'fsck', '--strict');
  assert.is(await t.local.readAppliedPacks(t.id), 10);
  assert.is(t.keyService.requests, 3, 'windows of 4 keys: 4 + 4 + 2');
  assert.is(t.keyService.decrypted, 10, 'each pack key decrypted once, ahead or on demand');
}, { keysPerRequest: 4 }));

sealed('a removed reader cannot fetch the next push', inRepositories(async (t) => {
  await t.ledger.addReader(t.id, READER);
  commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  t.ledger.address = READER;
  await fetchObjects(t.fetchDeps, t.id, [t.head()], false);
  t.ledger.address = OWNER;
  await t.ledger.removeReader(t.id, READER);
  commitFile(t.source, t.env, 'b.txt', 'b\n');
  await t.pushMain();
  t.ledger.address = READER;
  try {
    await fetchObjects(t.fetchDeps, t.id, [t.head()], false);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, NotReaderError);
  }
  assert.is(await t.local.readAppliedPacks(t.id), 1, 'the first pack stays, the new one never arrived');
}));

sealed('gc of a private repository stores its consolidated pack encrypted, with its own sealed key; a new clone by a reader reads it alone', inRepositories(async (t) => {
  for (let i = 0; i < 3; i++) {
    commitFile(t.source, t.env, 'secret.txt', `the recipe, version ${i}\n`.repeat(20));
    await t.pushMain();
  }
  const result = await collectGarbage({ ...t.pushDeps, log: silentLog }, t.id, false);
  assert.ok(result);
  const consolidated = t.packs()[result.packIndex]!;
  assert.ok(consolidated.sealedKey !== undefined);
  assert.not.equal(consolidated.sealedKey, t.packs()[0]!.sealedKey, 'a fresh data key');
  const stored = Buffer.concat(storedChunks(t, result.packIndex));
  assert.is(stored.subarray(0, 4).toString(), 'wgpe');
  assert.not.ok(stored.includes('PACK') || stored.includes('the recipe'), 'no plaintext is stored');

  await t.ledger.addReader(t.id, READER);
  t.ledger.address = READER;
  const reads = t.blobStore.reads;
  await fetchObjects(t.fetchDeps, t.id, [t.head()], false);
  assert.is(t.blobStore.reads - reads, consolidated.chunks.length, 'only the consolidated pack is read');
  gitIn(t.target, t.env, 'update-ref', 'refs/heads/main', t.head());
  gitIn(t.target, t.env, 'fsck', '--strict');
  assert.is(gitIn(t.target, t.env, 'show', 'HEAD:secret.txt'), 'the recipe, version 2\n'.repeat(20).trim());
}));

const tampered = suite('private repositories: stored bytes that do not decrypt');

/** Two packs of several chunks each (30-byte blobs cut the ciphertext at arbitrary points). */
async function twoPacks(t: Fixture): Promise<void> {
  commitFile(t.source, t.env, 'a.txt', 'first\n'.repeat(40));
  await t.pushMain();
  commitFile(t.source, t.env, 'b.txt', 'second\n'.repeat(40));
  await t.pushMain();
  assert.ok(t.packs().every((p) => p.chunks.length >= 3));
}

tampered('a flipped bit in a chunk is refused and nothing enters the repository', inRepositories(async (t) => {
  await twoPacks(t);
  const chunks = storedChunks(t, 0);
  chunks[1]![3]! ^= 1;
  rewrite(t, 0, chunks);
  await refused(t, t.head(), PackDecryptionError, /pack 0 of repository .* does not decrypt: .*fails authentication/);
}, { maxBlobSize: 30 }));

tampered('chunks in another order are refused', inRepositories(async (t) => {
  await twoPacks(t);
  const chunks = storedChunks(t, 0);
  [chunks[1], chunks[2]] = [chunks[2]!, chunks[1]!];
  rewrite(t, 0, chunks);
  await refused(t, t.head(), PackDecryptionError, /pack 0 .* does not decrypt/);
}, { maxBlobSize: 30 }));

tampered('a chunk swapped in from another pack is refused', inRepositories(async (t) => {
  await twoPacks(t);
  const first = storedChunks(t, 0);
  const second = storedChunks(t, 1);
  first[first.length - 1] = second[second.length - 1]!;
  rewrite(t, 0, first);
  await refused(t, t.head(), PackDecryptionError, /pack 0 .* does not decrypt/);
}, { maxBlobSize: 30 }));

tampered('a pack cut short at a chunk boundary is refused', inRepositories(async (t) => {
  await twoPacks(t);
  rewrite(t, 0, storedChunks(t, 0).slice(0, -1));
  await refused(t, t.head(), PackDecryptionError, /pack 0 .* does not decrypt/);
}, { maxBlobSize: 30 }));

tampered('a key sealed for another repository is refused before any key request, naming its pack', inRepositories(async (t) => {
  commitFile(t.source, t.env, 'a.txt', 'a\n');
  await t.pushMain();
  commitFile(t.source, t.env, 'b.txt', 'b\n');
  await t.pushMain();
  const entry = t.packs()[1]!;
  entry.sealedKey = `${'ee'.repeat(32)}${entry.sealedKey!.slice(64)}`;
  t.ledger.replacePack(t.id, 1, entry);
  await refused(t, t.head(), PackDecryptionError, /^pack 1 of repository .* its key is sealed for another repository/);
  assert.is(t.keyService.requests, 0);
}));

sealed('the stored size is the plaintext pack plus a header and a tag per frame', () => {
  assert.is(encryptedSize(0), 22);
  assert.is(encryptedSize(65_536), 6 + 65_536 + 16);
  assert.is(encryptedSize(65_537), 6 + 65_537 + 32);
});

sealed.run();
tampered.run();
