/**
 * Mistakes a user makes, through the real `git walrus` and git on the embedded network: each is told as what is
 * wrong and what to do, naming the file or setting, never as an internal error of ours.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { commit, createWorld, initWorkRepo, walrusInit } from '../../scripts/harness/world.ts';
import type { RunResult } from '../../scripts/harness/world.ts';

const test = suite('user mistakes are told as such');
const world = createWorld('walrus-mistakes-');
const repo = 'app';
const asProvider = { GIT_WALRUS_KEY: Ed25519Keypair.generate().getSecretKey() };
const asStranger = { GIT_WALRUS_KEY: Ed25519Keypair.generate().getSecretKey() };

const walrus = (args: string[], env: NodeJS.ProcessEnv = {}) => world.run(repo, ['walrus', ...args], { env });
const ok = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const result = await walrus(args, env);
  assert.is(result.code, 0, `git walrus ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
};

/** Failed, said `expected`, and not as an internal error. */
function refused(result: RunResult, expected: string | RegExp): void {
  assert.is.not(result.code, 0, result.stdout);
  assert.match(result.stderr, expected);
  assert.not.match(result.stderr, /internal error|please report/);
}

test.before(async () => {
  await initWorkRepo(world, repo);
  await commit(world, repo, 'index.js', 'console.log("hello")\n', 'app');
  await walrusInit(world, repo, 'app');
  await world.ok(repo, ['push', '-q', 'walrus', 'main']);
});
test.after(() => world.remove());

test('config.json that is a directory names the file', async () => {
  const home = world.path('home-with-dir-config');
  mkdirSync(`${home}/config.json`, { recursive: true });
  refused(await walrus(['whoami'], { GIT_WALRUS_HOME: home }), `${home}/config.json: is a directory, not a file; fix or remove the file`);
});

test('a GIT_WALRUS_HOME where nothing can be written names the path and the setting', async () => {
  writeFileSync(world.path('a-file'), 'not a directory\n');
  const home = world.path('a-file', 'walrus-home');
  const result = await walrus(['whoami'], { GIT_WALRUS_HOME: home });
  refused(result, home);
  assert.match(result.stderr, 'GIT_WALRUS_HOME');
});

test('GIT_WALRUS_DEVNET_URL that is no URL names the setting', async () => {
  refused(await walrus(['whoami'], { GIT_WALRUS_NETWORK: 'devnet', GIT_WALRUS_DEVNET_URL: 'notaurl' }), "the devnet URL 'notaurl' is not a URL: set GIT_WALRUS_DEVNET_URL");
});

test('a stake beyond what the chain counts (u64) is refused before any transaction', async () => {
  const result = await walrus(['provider', 'register', '--stake', '99999999999999999999999', '--price', '1MIST', '--endpoint', 'https://compute.example'], asProvider);
  refused(result, "stake '99999999999999999999999' is more than the chain counts: at most 18446744073.709551615 SUI");
});

test('a lease that does not exist: top-up says so, as show and close do', async () => {
  const missing = `0x${'12'.repeat(32)}`;
  refused(await walrus(['lease', 'top-up', missing, '--amount', '1']), `lease ${missing} does not exist on this network`);
  refused(await walrus(['lease', 'close', missing]), `lease ${missing} does not exist on this network`);
});

test('lease open of a ref that does not exist is refused unless --allow-missing-ref; close by a stranger names who may', async () => {
  const provider = await ok(['provider', 'register', '--stake', '20', '--price', '1MIST', '--endpoint', 'https://compute.example'], asProvider);
  refused(await walrus(['lease', 'open', 'walrus', '--provider', provider, '--deposit', '5', '--ref', 'refs/heads/nope']),
    'refs/heads/nope does not exist in walrus: push it first, name another with --ref, or pass --allow-missing-ref');
  const lease = await ok(['lease', 'open', 'walrus', '--provider', provider, '--deposit', '5', '--ref', 'refs/heads/nope', '--allow-missing-ref']);
  assert.match(lease, /^0x[0-9a-f]{64}$/);
  const byStranger = await walrus(['lease', 'close', lease], asStranger);
  refused(byStranger, new RegExp(`only the tenant \\(0x[0-9a-f]{64}\\) or the provider \\(${provider}, with its ProviderCap\\) may close lease ${lease}`));
  assert.not.match(byStranger.stderr, 'sign with the key that holds the ProviderCap');
});

test('artifact fetch into an existing file names it', async () => {
  mkdirSync(world.path(repo, 'tree'));
  writeFileSync(world.path(repo, 'tree', 'index.html'), 'hi\n');
  const { blobId, sha256 } = JSON.parse(await ok(['artifact', 'pack', 'tree'])) as { blobId: string; sha256: string };
  writeFileSync(world.path(repo, 'taken'), 'mine\n');
  refused(await walrus(['artifact', 'fetch', blobId, '--sha256', sha256, 'taken']), "taken' is a file, not a directory");
  assert.is(readFileSync(world.path(repo, 'taken'), 'utf8'), 'mine\n');
});

test('a chain.log damaged in the middle names the file and the line', async () => {
  const log = world.path('walrus-home', 'local', 'chain', 'chain.log');
  const original = readFileSync(log);
  const damaged = Buffer.from(original);
  const middle = damaged.indexOf(0x0a, damaged.length >> 1) - 20;
  damaged.set(Buffer.from([0xff, 0x00, 0x67, 0x01, 0x02]), middle);
  writeFileSync(log, damaged);
  try {
    const line = damaged.subarray(0, middle).toString('latin1').split('\n').length;
    refused(await walrus(['log', 'walrus']), `the chain log ${log} is damaged at line ${line}`);
    refused(await world.run(repo, ['ls-remote', 'walrus']), `the chain log ${log} is damaged at line ${line}`);
  } finally {
    writeFileSync(log, original);
  }
});

test.run();
