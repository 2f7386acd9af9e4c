import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { silentLog } from '../../src/core/log.ts';
import { setKeyServersDown } from '../../src/devnet/seal/key-servers.ts';
import { NativeGitRepository } from '../../src/git/native-repository.ts';
import { accessHistoryOf } from '../../src/main/access-history.ts';
import { openNetwork } from '../../src/main/context.ts';
import { parseSealedKey } from '../../src/seal/sealed-key.ts';
import { parseSealedPackKey } from '../../src/core/shared-pack-key.ts';
import { MAX_KEYS_PER_REQUEST } from '../../src/ports/key-service.ts';
import { pushRefs } from '../../src/remote/push.ts';
import { commit, initWorkRepo, refsOf } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';
import { gitIn } from '../support/git-fixture.ts';
import { clockOffset, machineClockEnv, setClockOffset } from '../support/machine-clock-env.ts';
import { NETWORK_FRONTS } from '../support/network-fronts.ts';
import type { NetworkFront } from '../support/network-fronts.ts';
import { identity } from '../support/identity.ts';

/**
 * Private repositories through real git and the real helper, with the stock SealClient, on each front of the devnet:
 * the embedded network, and one `git walrus devnet` server per suite (key servers over HTTP on its port). Every
 * scenario is written once and runs on both.
 */

const STACK_LINE = /^\s+at /m;
/** 64 KiB frames: a file of random bytes this large spans several frames of the encrypted pack. */
const FRAME = 65_536;

/** `git walrus init --private <name>` in `repo`; returns the URL. */
async function initPrivate(w: World, repo: string, name: string): Promise<string> {
  return (await w.ok(repo, ['walrus', 'init', name, '--private'])).split('\n').at(-1)!;
}

const ownerOf = async (w: World, repo: string) => (await w.ok(repo, ['walrus', 'whoami'])).split('\n')[0]!;
const fatalLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('fatal:'));

/** The helper's port counts since the last call, summed over its processes. */
function helperTotals(w: World) {
  const mine = w.takeStats().filter((s) => s.role === 'helper');
  const sum = (key: 'keyServerRequests' | 'keyServerKeys' | 'sealedKeysDecrypted' | 'blobReads') => mine.reduce((n, s) => n + (s[key] ?? 0), 0);
  return { keyServerRequests: sum('keyServerRequests'), keyServerKeys: sum('keyServerKeys'), sealedKeysDecrypted: sum('sealedKeysDecrypted'), blobReads: sum('blobReads') };
}

/** The Seal identity of each pack of the repository at `url`, in order (hex), as the chain records their sealed keys. */
async function packIdentities(w: World, url: string): Promise<string[]> {
  const network = await openNetwork({ env: w.env, log: silentLog, role: 'setup' });
  try {
    const id = url.slice('walrus://'.length);
    return (await network.ledger.listPacks(id, 0)).map((pack) => parseSealedKey(parseSealedPackKey(pack.sealedKey!).sealed).id);
  } finally {
    await network.close();
  }
}

const blobsDir = (front: NetworkFront, w: World) => join(front.stateDir(w), 'walrus', 'blobs');
const storedBlobs = (dir: string) => new Set(existsSync(dir) ? readdirSync(dir) : []);

/** Runs `push` and returns the paths of the blob files it stored. */
async function newBlobs(front: NetworkFront, w: World, push: () => Promise<unknown>): Promise<string[]> {
  const dir = blobsDir(front, w);
  const before = storedBlobs(dir);
  await push();
  return [...storedBlobs(dir)].filter((b) => !before.has(b)).map((b) => join(dir, b));
}

/**
 * `count` commits on main in `src`, each setting log.txt to `entry <i>`, written by one `git fast-import` (three git
 * processes per commit cost more than the pushes did); returns their ids, oldest first.
 */
function logCommits(w: World, src: string, count: number): string[] {
  let stream = '';
  for (let i = 1; i <= count; i++) {
    const [message, content] = [`edit log.txt\n`, `entry ${i}\n`];
    stream += `commit refs/heads/main\nmark :${i}\ncommitter Ada <ada@example.com> 1700000000 +0000\ndata ${message.length}\n${message}`;
    stream += `M 100644 inline log.txt\ndata ${content.length}\n${content}\n`;
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: w.path(src), env: w.env, input: stream });
  return gitIn(w.path(src), w.env, 'rev-list', '--reverse', 'main').split('\n');
}

/**
 * `count` pushes of one small commit each from `src` to the repository at `url`, made in this process through the
 * helper's own push path (the network `git` would open for this world, `pushRefs`): the same blobs and transactions as
 * `git push`, without a git and a helper process per push. `perPack` seals each pack under an identity of its own, as
 * every private push did before packs shared one per access state (a repository written by an earlier version).
 */
async function pushEach(w: World, src: string, url: string, count: number, { perPack = false } = {}): Promise<void> {
  const env = { ...w.env, GIT_DIR: w.path(src, '.git') };
  const commits = logCommits(w, src, count);
  const network = await openNetwork({ env, log: silentLog, role: 'setup' });
  try {
    const deps = {
      ledger: network.ledger, blobStore: network.blobStore, keyService: network.keyService, local: new NativeGitRepository(w.path(src, '.git'), env), log: silentLog,
      ...(perPack ? {} : { accessHistory: accessHistoryOf(network) }),
    };
    for (const commit of commits) {
      const [result] = await pushRefs(deps, url.slice('walrus://'.length), [{ src: commit, dst: 'refs/heads/main', force: false }], { atomic: false, dryRun: false, progress: false, leases: new Map() });
      assert.ok(result!.ok, result!.ok ? '' : result!.reason);
    }
  } finally {
    await network.close();
  }
}

interface Context {
  front: NetworkFront;
  /** A private repository of two packs of several frames each, made once per front for the tampering tests. */
  sealed?: Promise<SealedPacks>;
}

interface SealedPacks {
  w: World;
  url: string;
  /** The stored bytes of pack 0 and pack 1. */
  first: string;
  second: string;
}

async function sealedPacks(front: NetworkFront): Promise<SealedPacks> {
  const w = front.world();
  const src = await initWorkRepo(w, 'src');
  const url = await initPrivate(w, src, 'noisy');
  const files: string[] = [];
  for (const [name, frames] of [['noise.bin', 4], ['more.bin', 2]] as const) {
    writeFileSync(w.path(src, name), randomBytes(frames * FRAME));
    await w.ok(src, ['add', name]);
    await w.ok(src, ['commit', '-q', '-m', name]);
    const [file, ...rest] = await newBlobs(front, w, () => w.ok(src, ['push', '-q', 'walrus', 'main']));
    assert.equal(rest, [], 'one blob per pack');
    files.push(file!);
  }
  return { w, url, first: files[0]!, second: files[1]! };
}

/** Byte range of stored frame `i` (6-byte header, frames of 64 KiB + 16-byte tag). */
const frame = (i: number) => [6 + i * (FRAME + 16), 6 + (i + 1) * (FRAME + 16)] as const;

/** Stores `bytes` as pack 0 while a reader clones, which must fail on the first pack and leave nothing; then restores it. */
async function assertRefused({ w, url, first }: SealedPacks, bytes: Uint8Array): Promise<void> {
  const original = readFileSync(first);
  assert.is(bytes.length, original.length, 'the same size: only decryption can tell');
  writeFileSync(first, bytes);
  try {
    const clone = await w.run('.', ['clone', url, 'copy']);
    assert.is.not(clone.code, 0);
    assert.equal(fatalLines(clone.stderr).length, 1, clone.stderr);
    assert.match(clone.stderr, /fatal: pack 0 of repository 0x[0-9a-f]{64} does not decrypt: .*fails authentication.*; nothing was applied and no ref was changed/);
    assert.not.match(clone.stderr, STACK_LINE);
    assert.not.ok(existsSync(w.path('copy')));
  } finally {
    writeFileSync(first, original);
  }
}

for (const factory of NETWORK_FRONTS) {
  const test = suite<Context>(`private repositories (${factory.name}, stock SealClient)`);

  test.before(async (context) => {
    context.front = await factory.open();
  });

  test.after(async (context) => {
    if (context.sealed) (await context.sealed).w.remove();
    await context.front.close();
  });

  test('owner, writer and reader push and clone; a stranger lists refs but cannot clone, in one line, and nothing is written', async ({ front }) => {
    const w = front.world();
    try {
      const src = await initWorkRepo(w, 'src');
      await commit(w, src, 'secret.txt', 'the recipe\n');
      const url = await initPrivate(w, src, 'recipes');
      const owner = await ownerOf(w, src);
      const stored = await newBlobs(front, w, async () => {
        const push = await w.run(src, ['push', 'walrus', 'main']);
        assert.is(push.code, 0, push.stderr);
      });
      assert.ok(stored.length > 0);
      for (const blob of stored) {
        const bytes = readFileSync(blob);
        assert.is(bytes.subarray(0, 4).toString(), 'wgpe', 'Walrus holds the encrypted pack');
        assert.not.ok(bytes.includes('the recipe'));
      }

      await w.ok('.', ['clone', '-q', url, 'as-owner']);
      assert.is(readFileSync(w.path('as-owner', 'secret.txt'), 'utf8'), 'the recipe\n');
      await w.ok('as-owner', ['fsck', '--strict']);

      const writer = identity();
      const reader = identity();
      const stranger = identity();
      await w.ok(src, ['walrus', 'writers', 'add', 'walrus', writer.address]);
      await w.ok(src, ['walrus', 'readers', 'add', 'walrus', reader.address]);
      assert.is(await w.ok(src, ['walrus', 'readers', 'list', 'walrus']), `${owner} (owner)\n${writer.address} (writer)\n${reader.address}`);

      await w.ok('.', ['clone', '-q', url, 'as-writer'], { env: writer.env });
      const fromWriter = await commit(w, 'as-writer', 'more.txt', 'from the writer\n');
      const writerPush = await w.run('as-writer', ['push', 'origin', 'main'], { env: writer.env });
      assert.is(writerPush.code, 0, writerPush.stderr);

      const readerClone = await w.run('.', ['clone', url, 'as-reader'], { env: reader.env });
      assert.is(readerClone.code, 0, readerClone.stderr);
      assert.is(await w.ok('as-reader', ['rev-parse', 'HEAD']), fromWriter);
      assert.is(readFileSync(w.path('as-reader', 'more.txt'), 'utf8'), 'from the writer\n');
      await commit(w, 'as-reader', 'nope.txt', 'readers do not write\n');
      const readerPush = await w.run('as-reader', ['push', 'origin', 'main'], { env: reader.env });
      assert.is.not(readerPush.code, 0);
      assert.match(readerPush.stderr, /is not a writer/);

      // Refs, pushers and pack sizes are public on chain; the contents are not.
      assert.match(await w.ok('.', ['ls-remote', url], { env: stranger.env }), new RegExp(`^${fromWriter}\\tHEAD$`, 'm'));
      const refused = await w.run('.', ['clone', url, 'as-stranger'], { env: stranger.env });
      assert.is.not(refused.code, 0);
      assert.equal(fatalLines(refused.stderr), [
        `fatal: repository 'recipes' (${url.slice('walrus://'.length)}) is private and ${stranger.address} is not one of its readers: ask its owner ${owner} to run \`git walrus readers add ${url} ${stranger.address}\``,
      ]);
      assert.not.match(refused.stderr, STACK_LINE);
      assert.not.ok(existsSync(w.path('as-stranger')), 'the failed clone leaves no directory');

      // `git walrus checkout` (a build's first step) reads it as clone does: a reader by hand; a stranger is told whose
      // repository it is and who may add them, never that the network has no key servers.
      const checkedOut = await w.run('.', ['walrus', 'checkout', url, 'co-reader'], { env: reader.env });
      assert.is(checkedOut.code, 0, checkedOut.stderr);
      assert.is(checkedOut.stdout.trim(), fromWriter);
      assert.is(readFileSync(w.path('co-reader', 'more.txt'), 'utf8'), 'from the writer\n');
      const checkoutRefused = await w.run('.', ['walrus', 'checkout', url, 'co-stranger'], { env: stranger.env });
      assert.is.not(checkoutRefused.code, 0);
      assert.equal(fatalLines(checkoutRefused.stderr), fatalLines(refused.stderr));
      assert.equal(readdirSync(w.path('co-stranger')), [], 'the refused checkout leaves the directory empty');

      // Anyone can check storage and the push log; only readers the history.
      const shallow = await w.run('.', ['walrus', 'verify', url], { env: stranger.env });
      assert.is(shallow.code, 0, shallow.stdout + shallow.stderr);
      const deep = await w.run('.', ['walrus', 'verify', url, '--deep'], { env: reader.env });
      assert.is(deep.code, 0, deep.stdout + deep.stderr);
      const deepStranger = await w.run('.', ['walrus', 'verify', url, '--deep'], { env: stranger.env });
      assert.is.not(deepStranger.code, 0);
      assert.match(deepStranger.stderr, /is private and .* is not one of its readers/);

      // show reads the commits of a pack: a reader's key decrypts it, a stranger is told why not.
      const shown = await w.ok('.', ['walrus', 'show', url, '2'], { env: reader.env });
      assert.match(shown, new RegExp(`Commits: 1\\n  ${fromWriter}\\n.*\\n      change more\\.txt`));
      const showStranger = await w.run('.', ['walrus', 'show', url, '2'], { env: stranger.env });
      assert.is.not(showStranger.code, 0);
      assert.match(showStranger.stderr, /is private and .* is not one of its readers/);

      const log = await w.ok('.', ['walrus', 'log', url]);
      assert.match(log, /^private repository: packs are encrypted; only these addresses can read them\n/);
      assert.match(log, new RegExp(`Reader: ${reader.address}`));
      assert.match(log, /\(encrypted\)/);
      const json = JSON.parse(await w.ok('.', ['walrus', 'log', url, '--json']));
      assert.equal([json.private, json.readers.readers], [true, [reader.address]]);
    } finally { w.remove(); }
  });

  test('ten pushes share one identity: a reader added after them clones with one key from each key server; removed, the next push is under a new identity it gets no key of, and its fetch fails changing nothing', async ({ front }) => {
    const w = front.world();
    try {
      const src = await initWorkRepo(w, 'src');
      const url = await initPrivate(w, src, 'diary');
      // Ten packs, pushed through the helper's own push path in this process (a git and a helper per push would
      // only repeat what the other tests run).
      await pushEach(w, src, url, 10);
      const shared = await packIdentities(w, url);
      assert.is(shared.length, 10);
      assert.is(new Set(shared).size, 1, 'nobody lost access between the pushes: one identity');
      const reader = identity();
      await w.ok(src, ['walrus', 'readers', 'add', 'walrus', reader.address]);
      w.takeStats();
      const clone = await w.run('.', ['clone', url, 'copy'], { env: reader.env });
      assert.is(clone.code, 0, clone.stderr);
      assert.is(readFileSync(w.path('copy', 'log.txt'), 'utf8'), 'entry 10\n');
      assert.is(await w.ok('copy', ['rev-list', '--count', 'HEAD']), '10');
      await w.ok('copy', ['fsck', '--strict']);
      // One request to each of a quorum of two of the three key servers, each for the one key; one identity key
      // decrypted for the ten packs.
      const totals = helperTotals(w);
      assert.is(totals.keyServerRequests, 2);
      assert.is(totals.keyServerKeys, 2);
      assert.is(totals.sealedKeysDecrypted, 1);

      await w.ok(src, ['walrus', 'readers', 'remove', 'walrus', reader.address]);
      await commit(w, src, 'diary.txt', 'day 11\n');
      await w.ok(src, ['push', '-q', 'walrus', 'main']);
      const after = (await packIdentities(w, url)).at(-1)!;
      assert.not.ok(shared.includes(after), 'the push after the removal is under an identity the reader never held');
      const refsBefore = await refsOf(w, 'copy');
      const fetch = await w.run('copy', ['fetch'], { env: reader.env });
      assert.is.not(fetch.code, 0);
      assert.equal(fatalLines(fetch.stderr).length, 1, fetch.stderr);
      assert.match(fetch.stderr, /fatal: repository 'diary' .* is private and .* is not one of its readers/);
      assert.is(await refsOf(w, 'copy'), refsBefore);
      await w.ok('copy', ['fsck', '--strict']);
      // Past the CLI's own check, the key servers refuse the reader the new identity's key.
      const network = await openNetwork({ env: { ...w.env, ...reader.env }, log: silentLog, role: 'setup' });
      try {
        const repository = await network.ledger.getRepository(url.slice('walrus://'.length));
        const [pack] = await network.ledger.listPacks(repository.id, repository.packCount - 1);
        const refused = await network.keyService!.open(repository, [parseSealedPackKey(pack!.sealedKey!).sealed]).then(() => 'the key servers gave the key', (error: { code: string }) => error.code);
        assert.is(refused, 'NOT_A_READER');
      } finally {
        await network.close();
      }
      // The owner still reads it all: the shared identity's packs and the new one.
      await w.ok('.', ['clone', '-q', url, 'owners']);
      assert.is(readFileSync(w.path('owners', 'diary.txt'), 'utf8'), 'day 11\n');
    } finally { w.remove(); }
  });

  test('a repository of per-pack identities (written before they were shared) clones, and so does one mixing both: one key per distinct identity', async ({ front }) => {
    const w = front.world();
    try {
      const src = await initWorkRepo(w, 'src');
      const url = await initPrivate(w, src, 'old');
      await pushEach(w, src, url, 4, { perPack: true });
      assert.is(new Set(await packIdentities(w, url)).size, 4);
      w.takeStats();
      await w.ok('.', ['clone', '-q', url, 'old-copy']);
      assert.is(readFileSync(w.path('old-copy', 'log.txt'), 'utf8'), 'entry 4\n');
      const old = helperTotals(w);
      assert.is(old.keyServerKeys, 8, 'four identities from each of two key servers');
      assert.is(old.sealedKeysDecrypted, 4, 'a sealed data key per pack');

      await commit(w, src, 'new.txt', 'shared from here\n');
      await w.ok(src, ['push', '-q', 'walrus', 'main']);
      await commit(w, src, 'new.txt', 'and here\n');
      await w.ok(src, ['push', '-q', 'walrus', 'main']);
      const identities = await packIdentities(w, url);
      assert.is(new Set(identities).size, 5, 'the two pushes through git share one identity');
      w.takeStats();
      await w.ok('.', ['clone', '-q', url, 'mixed-copy']);
      assert.is(readFileSync(w.path('mixed-copy', 'new.txt'), 'utf8'), 'and here\n');
      await w.ok('mixed-copy', ['fsck', '--strict']);
      const totals = helperTotals(w);
      assert.is(totals.keyServerKeys, 10, 'five identities from each of two key servers');
      assert.is(totals.keyServerRequests, 2);
      assert.is(totals.sealedKeysDecrypted, 5, 'four data keys and one identity key');
      w.takeStats();
      await w.ok('old-copy', ['pull', '-q']);
      const pulled = helperTotals(w);
      assert.is(pulled.keyServerKeys, 2, 'a fetch of the two new packs asks for their one identity');
      assert.is(pulled.sealedKeysDecrypted, 1, 'and decrypts its identity key once');
    } finally { w.remove(); }
  });

  test('a public repository never asks a key server (push, clone, fetch)', async ({ front }) => {
    const w = front.world();
    try {
      const src = await initWorkRepo(w, 'src');
      await commit(w, src, 'a.txt', 'open\n');
      const url = (await w.ok(src, ['walrus', 'init', 'open'])).split('\n').at(-1)!;
      w.takeStats();
      await w.ok(src, ['push', '-q', 'walrus', 'main']);
      await w.ok('.', ['clone', '-q', url, 'copy']);
      await w.ok('copy', ['fetch', '-q']);
      const helpers = w.takeStats().filter((s) => s.role === 'helper');
      assert.ok(helpers.length >= 3, 'push, clone and fetch each reported');
      assert.is(helpers.reduce((n, s) => n + (s.keyServerRequests ?? 0), 0), 0);
    } finally { w.remove(); }
  });

  test('with one of three key servers down a clone works; with two down it fails in one clear line and writes nothing', async ({ front }) => {
    const w = front.world();
    const state = front.stateDir(w);
    try {
      const src = await initWorkRepo(w, 'src');
      const tip = await commit(w, src, 'a.txt', 'threshold\n');
      const url = await initPrivate(w, src, 'quorum');
      await w.ok(src, ['push', '-q', 'walrus', 'main']);
      setKeyServersDown(state, [2]);
      await w.ok('.', ['clone', '-q', url, 'one-down']);
      assert.is(await w.ok('one-down', ['rev-parse', 'HEAD']), tip);
      setKeyServersDown(state, [1, 3]);
      const refused = await w.run('.', ['clone', url, 'two-down']);
      assert.is.not(refused.code, 0);
      assert.equal(fatalLines(refused.stderr).length, 1, refused.stderr);
      assert.match(refused.stderr, /fatal: cannot decrypt repository 'quorum' \(0x[0-9a-f]{64}\): fewer than 2 of its 3 Seal key servers answered \(.*\); try again later/);
      assert.not.match(refused.stderr, STACK_LINE);
      assert.not.ok(existsSync(w.path('two-down')));
      setKeyServersDown(state, []);
      await w.ok('.', ['clone', '-q', url, 'all-up']);
    } finally {
      setKeyServersDown(state, []);
      w.remove();
    }
  });

  // Stored bytes that do not decrypt are refused before anything enters the repository. Walrus holds what a writer
  // uploaded; these rewrite the stored file of pack 0 (same size, so only decryption can tell) as a malicious writer
  // or a faulty storage node would.
  const sealed = (context: Context) => (context.sealed ??= sealedPacks(context.front));

  test('a tampered ciphertext chunk (one flipped bit in a frame) is refused', async (context) => {
    const packs = await sealed(context);
    const bytes = readFileSync(packs.first);
    bytes[frame(1)[0] + 100]! ^= 0x01;
    await assertRefused(packs, bytes);
  });

  test('reordered chunks (two frames in the other order) are refused', async (context) => {
    const packs = await sealed(context);
    const bytes = readFileSync(packs.first);
    const [a, b] = [bytes.subarray(...frame(0)), bytes.subarray(...frame(1))];
    await assertRefused(packs, Buffer.concat([bytes.subarray(0, 6), b, a, bytes.subarray(frame(1)[1])]));
  });

  test('a swapped chunk (a frame from another pack of the same repository) is refused', async (context) => {
    const packs = await sealed(context);
    const bytes = readFileSync(packs.first);
    readFileSync(packs.second).subarray(...frame(1)).copy(bytes, frame(1)[0]);
    await assertRefused(packs, bytes);
  });

  test('the untouched packs clone', async (context) => {
    const { w, url } = await sealed(context);
    await w.ok('.', ['clone', '-q', url, 'intact']);
    await w.ok('intact', ['fsck', '--strict']);
    assert.is(await w.ok('intact', ['rev-list', '--count', 'HEAD']), '2');
  });

  // Last: it moves the machine clock of the front (and so of a shared devnet server) 101 minutes ahead, then back.
  // Renewal is the helper's own logic, the same on either front; the 101 pushes and the ~400 pairings of the clone
  // cost over a minute of CPU, so it runs once, against the separate server whose key servers judge the certificates
  // by their own clock over HTTP.
  if (factory.name === 'git walrus devnet server') test('a fetch that outlives its session key renews it transparently (101 packs, a minute each on the machine clock)', async ({ front }) => {
    const w = front.world();
    try {
      const src = await initWorkRepo(w, 'src');
      const url = await initPrivate(w, src, 'long');
      const packs = MAX_KEYS_PER_REQUEST + 1;
      // An identity per pack (as an earlier version wrote them): more keys than one request carries.
      await pushEach(w, src, url, packs, { perPack: true });
      const reader = identity();
      await w.ok(src, ['walrus', 'readers', 'add', 'walrus', reader.address]);
      w.takeStats();
      // The keys of packs 0-99 come with the first session key; pack 100's are asked for 100 minutes later, past the
      // session's 30, with a new one signed in passing.
      const clone = await w.run('.', ['clone', '-v', url, 'copy'], { env: { ...reader.env, ...machineClockEnv(front.clockFile, 60_000) } });
      assert.is(clone.code, 0, clone.stderr);
      assert.ok(clockOffset(front.clockFile) >= packs * 60_000, 'each pack moved the clock a minute');
      assert.match(clone.stderr, /signed a Seal session key \(2 so far\)/);
      assert.not.match(clone.stderr, /\(3 so far\)|found the session key expired/, 'renewed before the key servers had to refuse it');
      assert.is(await w.ok('copy', ['rev-list', '--count', 'HEAD']), String(packs));
      await w.ok('copy', ['fsck', '--strict']);
      // Two windows of keys, each to a quorum of two key servers.
      assert.is(helperTotals(w).keyServerRequests, 4, clone.stderr);
    } finally {
      setClockOffset(front.clockFile, 0);
      w.remove();
    }
  });

  test.run();
}
