import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { ChainEngine } from '../../../src/devnet/chain/engine.ts';
import { ChainStore } from '../../../src/devnet/chain/store.ts';
import { openLocalNetwork } from '../../../src/devnet/local-network.ts';
import { SuiLedger } from '../../../src/sui/ledger.ts';

const PUSHER = new URL('./helpers/pusher.ts', import.meta.url).pathname;

function run(args: string[], onLine?: (line: string, kill: () => void) => void): Promise<number | string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PUSHER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.on('data', (data: Buffer) => onLine?.(data.toString(), () => child.kill('SIGKILL')));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
}

function logLines(dir: string): unknown[] {
  const text = readFileSync(join(dir, 'chain', 'chain.log'), 'utf8');
  assert.ok(text.endsWith('\n'), 'the log ends with a complete line');
  return text.trimEnd().split('\n').map((line) => JSON.parse(line));
}

async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-store-'));
  const network = await openLocalNetwork(dir);
  const owner = Ed25519Keypair.generate();
  await network.faucet(owner.toSuiAddress());
  const ledger = new SuiLedger({ client: network.client, signer: owner, packageId: network.packageId, registryId: network.registryId });
  const { id } = await ledger.createRepository('shared');
  const writer = async () => {
    const key = Ed25519Keypair.generate();
    await network.faucet(key.toSuiAddress());
    await ledger.addWriter(id, key.toSuiAddress());
    return key.getSecretKey();
  };
  return { dir, network, ledger, id, writer };
}

const store = suite('ChainStore');

store('a torn last line (a writer killed mid-append) is invisible to readers and cut off by the next writer', async () => {
  const { dir, ledger, id } = await setup();
  const before = await ledger.getRepository(id);
  appendFileSync(join(dir, 'chain', 'chain.log'), '{"writes":[{"id":"0x12');
  const reader = new ChainStore(join(dir, 'chain'));
  await reader.refresh();
  assert.is(reader.genesis?.packageId, (await ChainEngine.open(join(dir, 'chain'))).genesis.packageId);
  const fresh = await openLocalNetwork(dir);
  const again = new SuiLedger({ client: fresh.client, signer: Ed25519Keypair.fromSecretKey((await setupKey(fresh, ledger, id))), packageId: fresh.packageId, registryId: fresh.registryId });
  await again.push(id, [{ name: 'refs/heads/after-crash', old: null, new: 'ab'.repeat(20), force: false }], null);
  assert.is((await again.getRepository(id)).seq, before.seq + 1);
  assert.ok(logLines(dir).length > 0, 'every line of the log parses');
  rmSync(dir, { recursive: true, force: true });
});

/** A funded writer key made through the original ledger (the owner). */
async function setupKey(network: Awaited<ReturnType<typeof openLocalNetwork>>, owner: SuiLedger, id: string): Promise<string> {
  const key = Ed25519Keypair.generate();
  await network.faucet(key.toSuiAddress());
  await owner.addWriter(id, key.toSuiAddress());
  return key.getSecretKey();
}

store('overlapping catch-ups in one process apply each commit once', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-git-store-'));
  const writer = await ChainEngine.open(dir);
  const reader = new ChainStore(dir);
  await writer.faucet(Ed25519Keypair.generate().toSuiAddress());
  await Promise.all(Array.from({ length: 8 }, () => reader.refresh()));
  await writer.faucet(Ed25519Keypair.generate().toSuiAddress());
  await Promise.all(Array.from({ length: 8 }, () => reader.refresh()));
  assert.equal([...reader.transactions.keys()], [...writer.store.transactions.keys()]);
  assert.is(reader.transactions.size, 2);
  assert.equal([...reader.objects.keys()].sort(), [...writer.store.objects.keys()].sort());
  rmSync(dir, { recursive: true, force: true });
});

store('two processes pushing into one state directory at once lose nothing', async () => {
  const { dir, ledger, id, writer } = await setup();
  const [a, b] = [await writer(), await writer()];
  const codes = await Promise.all([run([dir, id, a, 'a', '8']), run([dir, id, b, 'b', '8'])]);
  assert.equal(codes, [0, 0]);
  const refs = await ledger.listRefs(id);
  assert.is(refs.size, 16);
  const info = await ledger.getRepository(id);
  assert.is(info.seq, 16);
  const pushes = await ledger.listPushes(id);
  assert.equal(pushes.map((p) => p.seq), Array.from({ length: 16 }, (_, i) => i + 1));
  assert.is(pushes.at(-1)!.logHead, info.logHead);
  logLines(dir);
  rmSync(dir, { recursive: true, force: true });
});

store('a process killed while pushing leaves a readable state that others continue from', async () => {
  const { dir, ledger, id, writer } = await setup();
  const key = await writer();
  let killedAt = 0;
  const result = await run([dir, id, key, 'k', '0'], (_line, kill) => {
    // Let it commit for a while, then kill it at an arbitrary point of its loop.
    setTimeout(() => { killedAt = Date.now(); kill(); }, 150 + Math.floor(Math.random() * 100));
  });
  assert.is(result, 'SIGKILL');
  assert.ok(killedAt > 0);
  const reopened = await openLocalNetwork(dir);
  const next = new SuiLedger({ client: reopened.client, signer: Ed25519Keypair.fromSecretKey(await writer()), packageId: reopened.packageId, registryId: reopened.registryId });
  const before = await next.getRepository(id);
  assert.ok(before.seq >= 1, 'the killed process had committed pushes');
  assert.is((await next.listRefs(id)).size, before.seq);
  await next.push(id, [{ name: 'refs/heads/survivor', old: null, new: 'cd'.repeat(20), force: false }], null);
  assert.is((await ledger.getRepository(id)).seq, before.seq + 1);
  logLines(dir);
  rmSync(dir, { recursive: true, force: true });
});

store.run();
