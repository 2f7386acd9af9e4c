import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { silentLog } from '../../src/core/log.ts';
import { startDevnetServer } from '../../src/devnet/server.ts';
import type { DevnetServer } from '../../src/devnet/server.ts';
import { openNetwork } from '../../src/main/context.ts';
import { hermeticGitEnv, tempDir } from '../../scripts/harness/git-env.ts';

/**
 * The signing stack stays out of read-only sessions: a process that opens a remote network (a `git walrus devnet`
 * server, spoken to over gRPC as testnet and mainnet are) and only reads loads neither the key nor @mysten/sui's
 * keypairs and cryptography (signature -> zklogin -> poseidon-lite) nor the transaction builder; its first write
 * loads them. Knowing the signer's address (a push asks before it uploads) reads the key but loads none of the SDK's
 * signing stack. Each case runs in a fresh Node process that lists the modules it loaded.
 */
const lazy = suite('openNetwork: lazy signing');

const CHILD = join(import.meta.dirname, 'helpers', 'open-network-child.ts');
/** What only signing and building transactions need. The gRPC client itself loads TransactionData (the
 * transaction's BCS layout, to decode results), so the builder is told by its own modules. */
const SDK_SIGNING = [/\/poseidon-lite\//, /@mysten\/sui\/dist\/keypairs\//, /@mysten\/sui\/dist\/cryptography\//, /@mysten\/sui\/dist\/zklogin\//,
  /@mysten\/sui\/dist\/transactions\/(index|Transaction)\.mjs$/];
/** Reading the key: what learning the signer's address takes. */
const KEY = [/\/src\/config\/(keys|keystore|key-material)\.ts$/];
const SIGNING = [...SDK_SIGNING, ...KEY];

interface ChildReport { loaded: string[]; outcome: Record<string, unknown> }

const signingModules = (loaded: string[]) => loaded.filter((url) => SIGNING.some((pattern) => pattern.test(url)));

let dir: ReturnType<typeof tempDir>;
let server: DevnetServer;
let env: NodeJS.ProcessEnv;
let repositoryId: string;
let head: string;
let chunk: Uint8Array;

async function child(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<ChildReport> {
  const { stdout } = await promisify(execFile)(process.execPath, [CHILD, ...args], { env: { ...env, ...extra }, encoding: 'utf8' });
  return JSON.parse(stdout) as ChildReport;
}

lazy.before(async () => {
  dir = tempDir('walrus-lazy-signing-');
  server = await startDevnetServer({ dir: join(dir.path, 'devnet') });
  env = hermeticGitEnv(join(dir.path, 'home'), {
    GIT_WALRUS_HOME: join(dir.path, 'walrus-home'),
    GIT_WALRUS_NETWORK: 'devnet',
    GIT_WALRUS_DEVNET_URL: server.url,
    GIT_WALRUS_KEY: Ed25519Keypair.generate().getSecretKey(),
  });
  // A repository with one push and one pack, written in this process, for the child to read.
  const writer = await openNetwork({ env, log: silentLog, role: 'test' });
  try {
    ({ id: repositoryId } = await writer.ledger.createRepository('lazy'));
    chunk = new TextEncoder().encode('PACK: the bytes of a pack chunk');
    const { blobId } = await writer.blobStore.write(chunk);
    head = 'ab'.repeat(20);
    const sha256 = createHash('sha256').update(chunk).digest('hex');
    await writer.ledger.push(repositoryId, [{ name: 'refs/heads/main', old: null, new: head, force: false }], { chunks: [blobId], size: chunk.byteLength, sha256 });
  } finally {
    await writer.close();
  }
});

lazy.after(async () => {
  await server.close();
  dir.remove();
});

lazy('every read (chain and blobs) on a remote network loads no key, no cryptography and no transaction builder', async () => {
  const { loaded, outcome } = await child(['read', repositoryId]);
  assert.equal(outcome, { name: 'lazy', refs: { 'refs/heads/main': head }, pushes: 1, chunkHex: Buffer.from(chunk).toString('hex') });
  assert.ok(loaded.some((url) => url.includes('@mysten/sui/dist/grpc/')), 'the hook saw the SDK load');
  assert.equal(signingModules(loaded), []);
});

lazy('the first write loads the key and the transaction builder, and signs with the configured key', async () => {
  const { loaded, outcome } = await child(['write', 'second']);
  assert.match(String(outcome.id), /^0x[0-9a-f]{64}$/);
  assert.is(outcome.signer, Ed25519Keypair.fromSecretKey(env.GIT_WALRUS_KEY!).toSuiAddress());
  const signing = signingModules(loaded).map((url) => url.replace(/.*\/(node_modules|src)\//, ''));
  for (const expected of ['config/keys.ts', '@mysten/sui/dist/transactions/Transaction.mjs', '@mysten/sui/dist/keypairs/ed25519/keypair.mjs']) {
    assert.ok(signing.includes(expected), `${expected} loaded for the write`);
  }
});

lazy("the signer's address loads the key but none of the SDK's signing stack; the first write then signs as that address", async () => {
  const { loaded, outcome } = await child(['address', 'fourth']);
  const expected = Ed25519Keypair.fromSecretKey(env.GIT_WALRUS_KEY!).toSuiAddress();
  assert.is(outcome.address, expected);
  const forAddress = loaded.slice(0, outcome.loadedForAddress as number);
  assert.ok(forAddress.some((url) => /\/src\/config\/key-material\.ts$/.test(url)), 'the address came from the key');
  assert.equal(forAddress.filter((url) => SDK_SIGNING.some((pattern) => pattern.test(url))), []);
  assert.ok(loaded.some((url) => url.includes('@mysten/sui/dist/keypairs/ed25519/keypair.mjs')), 'the write loaded the keypair');
  assert.is(outcome.owner, expected, 'and signed as that address');
});

lazy('an unreadable key does not stop reads, and fails the first write with its typed error', async () => {
  const broken = { GIT_WALRUS_KEY: 'suiprivkey1notakey' };
  const read = await child(['read', repositoryId], broken);
  assert.equal(read.outcome.refs, { 'refs/heads/main': head });
  const { outcome } = await child(['write', 'third'], broken);
  const error = outcome.error as { code: string; message: string };
  assert.is(error.code, 'KEY_FORMAT');
  assert.match(error.message, /^GIT_WALRUS_KEY: /);
});

lazy.run();

/**
 * The embedded network too: its chain engine checks signatures and its faucet signs, but only when a transaction
 * runs, so a clone or fetch on `local` reads the chain without the SDK's cryptography.
 */
const embedded = suite('openNetwork: lazy signing on the embedded network');
/** The engine builds the faucet's transactions with the SDK's builder, so here only keys and cryptography count. */
const CRYPTOGRAPHY = SIGNING.filter((pattern) => !pattern.source.includes('transactions'));

embedded('reads on `local` load no key and no cryptography; a write there loads them', async () => {
  const local = tempDir('walrus-lazy-local-');
  const localEnv = hermeticGitEnv(join(local.path, 'home'), { GIT_WALRUS_HOME: join(local.path, 'walrus-home'), GIT_WALRUS_NETWORK: 'local' });
  try {
    const writer = await openNetwork({ env: localEnv, log: silentLog, role: 'test' });
    let id: string;
    let bytes: Uint8Array;
    try {
      ({ id } = await writer.ledger.createRepository('embedded'));
      bytes = new TextEncoder().encode('PACK: an embedded chunk');
      const { blobId } = await writer.blobStore.write(bytes);
      await writer.ledger.push(id, [{ name: 'refs/heads/main', old: null, new: 'cd'.repeat(20), force: false }], { chunks: [blobId], size: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') });
    } finally {
      await writer.close();
    }
    const run = async (args: string[]) => JSON.parse((await promisify(execFile)(process.execPath, [CHILD, ...args], { env: localEnv, encoding: 'utf8' })).stdout) as ChildReport;
    const read = await run(['read', id]);
    assert.equal(read.outcome, { name: 'embedded', refs: { 'refs/heads/main': 'cd'.repeat(20) }, pushes: 1, chunkHex: Buffer.from(bytes).toString('hex') });
    assert.ok(read.loaded.some((url) => url.includes('/src/devnet/chain/engine.ts')), 'the hook saw the embedded chain load');
    assert.equal(read.loaded.filter((url) => CRYPTOGRAPHY.some((pattern) => pattern.test(url))), []);
    const write = await run(['write', 'another']);
    assert.match(String(write.outcome.id), /^0x[0-9a-f]{64}$/);
    assert.ok(write.loaded.some((url) => /\/poseidon-lite\//.test(url)), 'the write verified a signature with the SDK');
  } finally {
    local.remove();
  }
});

embedded.run();
