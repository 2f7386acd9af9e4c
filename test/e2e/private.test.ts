import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { setKeyServersDown } from '../../src/devnet/seal/key-servers.ts';
import { commit, createWorld, initWorkRepo, refsOf, startDevnet } from '../support/e2e.ts';
import type { World } from '../support/e2e.ts';

const STACK_LINE = /^\s+at /m;
/** 64 KiB frames: a file of random bytes this large spans several frames of the encrypted pack. */
const FRAME = 65_536;

function identity() {
  const key = new Ed25519Keypair();
  return { address: key.toSuiAddress(), env: { GIT_WALRUS_KEY: key.getSecretKey() } };
}

/** `git walrus init --private <name>` in `repo`; returns the URL. */
async function initPrivate(w: World, repo: string, name: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return (await w.ok(repo, ['walrus', 'init', name, '--private'], { env })).split('\n').at(-1)!;
}

const ownerOf = async (w: World, repo: string) => (await w.ok(repo, ['walrus', 'whoami'])).split('\n')[0]!;
const fatalLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('fatal:'));

/** The helper's port counts since the last call, summed over its processes. */
function helperTotals(w: World) {
  const mine = w.takeStats().filter((s) => s.role === 'helper');
  return { keyServerRequests: mine.reduce((n, s) => n + (s.keyServerRequests ?? 0), 0), blobReads: mine.reduce((n, s) => n + s.blobReads, 0) };
}

const flow = suite('private repositories (embedded network, stock SealClient)');

flow('owner, writer and reader push and clone; a stranger lists refs but cannot clone, in one line, and nothing is written', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    await commit(w, src, 'secret.txt', 'the recipe\n');
    const url = await initPrivate(w, src, 'recipes');
    const owner = await ownerOf(w, src);
    const blobsDir = w.path('walrus-home', 'local', 'walrus', 'blobs');
    const push = await w.run(src, ['push', 'walrus', 'main']);
    assert.is(push.code, 0, push.stderr);
    for (const blob of readdirSync(blobsDir)) {
      const stored = readFileSync(`${blobsDir}/${blob}`);
      assert.is(stored.subarray(0, 4).toString(), 'wgpe', 'Walrus holds the encrypted pack');
      assert.not.ok(stored.includes('the recipe'));
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

flow('a reader added after ten pushes clones all of them; removed, the next fetch of a new push fails and changes nothing', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    const url = await initPrivate(w, src, 'diary');
    for (let i = 1; i <= 10; i++) {
      await commit(w, src, 'diary.txt', `day ${i}\n`.repeat(i));
      await w.ok(src, ['push', '-q', 'walrus', 'main']);
    }
    const reader = identity();
    await w.ok(src, ['walrus', 'readers', 'add', 'walrus', reader.address]);
    w.takeStats();
    const clone = await w.run('.', ['clone', url, 'copy'], { env: reader.env });
    assert.is(clone.code, 0, clone.stderr);
    assert.is(readFileSync(w.path('copy', 'diary.txt'), 'utf8'), 'day 10\n'.repeat(10));
    assert.is(await w.ok('copy', ['rev-list', '--count', 'HEAD']), '10');
    await w.ok('copy', ['fsck', '--strict']);
    const { keyServerRequests } = helperTotals(w);
    // Ten keys in one batch, to a quorum of two of the three key servers.
    assert.is(keyServerRequests, 2);

    await w.ok(src, ['walrus', 'readers', 'remove', 'walrus', reader.address]);
    await commit(w, src, 'diary.txt', 'day 11\n');
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    const refsBefore = await refsOf(w, 'copy');
    const fetch = await w.run('copy', ['fetch'], { env: reader.env });
    assert.is.not(fetch.code, 0);
    assert.equal(fatalLines(fetch.stderr).length, 1, fetch.stderr);
    assert.match(fetch.stderr, /fatal: repository 'diary' .* is private and .* is not one of its readers/);
    assert.is(await refsOf(w, 'copy'), refsBefore);
    await w.ok('copy', ['fsck', '--strict']);
  } finally { w.remove(); }
});

flow('a public repository never asks a key server (push, clone, fetch)', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    await commit(w, src, 'a.txt', 'open\n');
    const url = (await w.ok(src, ['walrus', 'init', 'open'])).split('\n').at(-1)!;
    w.takeStats();
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    await w.ok('.', ['clone', '-q', url, 'copy']);
    await w.ok('copy', ['fetch', '-q']);
    assert.is(helperTotals(w).keyServerRequests, 0);
  } finally { w.remove(); }
});

flow('with one of three key servers down a clone works; with two down it fails in one clear line and writes nothing', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    const tip = await commit(w, src, 'a.txt', 'threshold\n');
    const url = await initPrivate(w, src, 'quorum');
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    const localState = w.path('walrus-home', 'local');
    setKeyServersDown(localState, [2]);
    await w.ok('.', ['clone', '-q', url, 'one-down']);
    assert.is(await w.ok('one-down', ['rev-parse', 'HEAD']), tip);
    setKeyServersDown(localState, [1, 3]);
    const refused = await w.run('.', ['clone', url, 'two-down']);
    assert.is.not(refused.code, 0);
    assert.equal(fatalLines(refused.stderr).length, 1, refused.stderr);
    assert.match(refused.stderr, /fatal: cannot decrypt repository 'quorum' \(0x[0-9a-f]{64}\): fewer than 2 of its 3 Seal key servers answered \(.*\); try again later/);
    assert.not.match(refused.stderr, STACK_LINE);
    assert.not.ok(existsSync(w.path('two-down')));
    setKeyServersDown(localState, []);
    await w.ok('.', ['clone', '-q', url, 'all-up']);
  } finally { w.remove(); }
});

const tampered = suite('private repositories: stored bytes that do not decrypt are refused before anything enters the repository');

/** A private repository with one pack holding several 64 KiB frames; returns its clone-to-be URL and the pack's blob file. */
async function sealedPack(w: World) {
  const src = await initWorkRepo(w, 'src');
  writeFileSync(w.path(src, 'noise.bin'), randomBytes(4 * FRAME));
  await w.ok(src, ['add', 'noise.bin']);
  await w.ok(src, ['commit', '-q', '-m', 'noise']);
  const url = await initPrivate(w, src, 'noisy');
  const blobsDir = w.path('walrus-home', 'local', 'walrus', 'blobs');
  const before = new Set(existsSync(blobsDir) ? readdirSync(blobsDir) : []);
  await w.ok(src, ['push', '-q', 'walrus', 'main']);
  const [blob] = readdirSync(blobsDir).filter((b) => !before.has(b));
  return { src, url, blobsDir, file: `${blobsDir}/${blob}` };
}

/** Byte range of stored frame `i` (6-byte header, frames of 64 KiB + 16-byte tag). */
const frame = (i: number) => [6 + i * (FRAME + 16), 6 + (i + 1) * (FRAME + 16)] as const;

async function assertRefused(w: World, url: string) {
  const clone = await w.run('.', ['clone', url, 'copy']);
  assert.is.not(clone.code, 0);
  assert.equal(fatalLines(clone.stderr).length, 1, clone.stderr);
  assert.match(clone.stderr, /fatal: pack 0 of repository 0x[0-9a-f]{64} does not decrypt: .*fails authentication.*; nothing was applied and no ref was changed/);
  assert.not.match(clone.stderr, STACK_LINE);
  assert.not.ok(existsSync(w.path('copy')));
}

tampered('a flipped bit in a frame', async () => {
  const w = createWorld();
  try {
    const { url, file } = await sealedPack(w);
    const bytes = readFileSync(file);
    bytes[frame(1)[0] + 100]! ^= 0x01;
    writeFileSync(file, bytes);
    await assertRefused(w, url);
  } finally { w.remove(); }
});

tampered('two frames in the other order', async () => {
  const w = createWorld();
  try {
    const { url, file } = await sealedPack(w);
    const bytes = readFileSync(file);
    const [a, b] = [bytes.subarray(...frame(0)), bytes.subarray(...frame(1))];
    writeFileSync(file, Buffer.concat([bytes.subarray(0, 6), b, a, bytes.subarray(frame(1)[1])]));
    await assertRefused(w, url);
  } finally { w.remove(); }
});

tampered('a frame swapped in from another pack of the same repository', async () => {
  const w = createWorld();
  try {
    const { src, url, blobsDir, file } = await sealedPack(w);
    const before = new Set(readdirSync(blobsDir));
    writeFileSync(w.path(src, 'more.bin'), randomBytes(2 * FRAME));
    await w.ok(src, ['add', 'more.bin']);
    await w.ok(src, ['commit', '-q', '-m', 'more']);
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    const [other] = readdirSync(blobsDir).filter((b) => !before.has(b));
    const bytes = readFileSync(file);
    readFileSync(`${blobsDir}/${other}`).subarray(...frame(1)).copy(bytes, frame(1)[0]);
    writeFileSync(file, bytes);
    await assertRefused(w, url);
  } finally { w.remove(); }
});

const devnet = suite('private repositories on a git walrus devnet server');

devnet('push, clone as a reader, and a stranger refused, over the network front', async () => {
  const w = createWorld();
  const server = await startDevnet(w);
  try {
    const env = { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: server.url };
    const src = await initWorkRepo(w, 'src');
    const tip = await commit(w, src, 'a.txt', 'over the wire, sealed\n');
    const url = await initPrivate(w, src, 'wired', env);
    await w.ok(src, ['push', '-q', 'walrus', 'main'], { env });
    const reader = identity();
    await w.ok(src, ['walrus', 'readers', 'add', 'walrus', reader.address], { env });
    await w.ok('.', ['clone', '-q', url, 'copy'], { env: { ...env, ...reader.env } });
    assert.is(await w.ok('copy', ['rev-parse', 'HEAD']), tip);
    const stranger = identity();
    const refused = await w.run('.', ['clone', url, 'other'], { env: { ...env, ...stranger.env } });
    assert.is.not(refused.code, 0);
    assert.match(refused.stderr, /fatal: repository 'wired' .* is private and .* is not one of its readers: ask its owner/);
  } finally {
    await server.stop();
    w.remove();
  }
});

flow.run();
tampered.run();
devnet.run();
