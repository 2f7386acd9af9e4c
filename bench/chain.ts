// Chain figures: latency of a push transaction (sign, resolve, execute, commit with fsync, wait) through SuiLedger on
// the in-process devnet front and on the devnet server's JSON-RPC and gRPC-web fronts, of a read of the repository
// state, and what opening the embedded chain costs (every git command does) after a long history, from its snapshot
// and by a full replay of its log. Run: node bench/chain.ts [--short]
import { mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import type { ClientWithCoreApi } from '@mysten/sui/client';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { SuiJsonRpcClient } from '@mysten/sui/jsonRpc';
import { openLocalNetwork } from '../src/devnet/local-network.ts';
import { ChainStore } from '../src/devnet/chain/store.ts';
import { startDevnetServer } from '../src/devnet/server.ts';
import { SuiLedger } from '../src/sui/ledger.ts';
import { u256ToBlobId } from '../src/core/blob-id-codec.ts';

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

export async function run(short: boolean): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-chain-'));
  try {
    const network = await openLocalNetwork(join(root, 'embedded'));
    await measure('in-process', { client: network.client, packageId: network.packageId, registryId: network.registryId, faucet: network.faucet }, short);
    await network.close();
    await measureOpen(join(root, 'history'), short);
    // The network fronts of `git walrus devnet`, through the SDK's own clients over HTTP on 127.0.0.1.
    const server = await startDevnetServer({ dir: join(root, 'server'), port: 0 });
    const common = { packageId: server.packageId, registryId: server.registryId, faucet: async (recipient: string) => { await requestSuiFromFaucetV2({ host: server.faucetUrl, recipient }); } };
    await measure('json-rpc server', { ...common, client: new SuiJsonRpcClient({ url: server.suiRpcUrl, network: 'localnet' }) }, short);
    await measure('grpc-web server', { ...common, client: new SuiGrpcClient({ baseUrl: server.suiGrpcUrl, network: 'localnet' }) }, short);
    await server.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

interface Front { client: ClientWithCoreApi; packageId: string; registryId: string; faucet(address: string): Promise<void> }

async function measure(label: string, front: Front, short: boolean): Promise<void> {
  const key = Ed25519Keypair.generate();
  await front.faucet(key.toSuiAddress());
  const ledger = new SuiLedger({ client: front.client, signer: key, packageId: front.packageId, registryId: front.registryId });
  const { id } = await ledger.createRepository('bench');
  const pushes = short ? 20 : 200;
  const times: number[] = [];
  let previous: string | null = null;
  for (let i = 0; i < pushes + 3; i++) {
    const next = (i + 1).toString(16).padStart(40, '0');
    const pack = { chunks: [u256ToBlobId(BigInt(i + 1))], size: 1000, sha256: next.padEnd(64, '0') };
    const start = performance.now();
    await ledger.push(id, [{ name: 'refs/heads/main', old: previous, new: next, force: false }], pack);
    if (i >= 3) times.push(performance.now() - start); // the first pushes warm up the SDK and the JIT
    previous = next;
  }
  console.log(`chain push (${label}, ${pushes} pushes): p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms`);
  const reads: number[] = [];
  for (let i = 0; i < (short ? 20 : 200); i++) {
    const start = performance.now();
    await Promise.all([ledger.getRepository(id), ledger.listRefs(id)]);
    reads.push(performance.now() - start);
  }
  console.log(`chain read of repository + refs (${label}): p50 ${percentile(reads, 50).toFixed(2)} ms, p95 ${percentile(reads, 95).toFixed(2)} ms`);
}

/** Opens of a chain with `short ? 200 : 2000` pushes of one ref behind it (a user's history), in this warm process. */
async function measureOpen(dir: string, short: boolean): Promise<void> {
  const network = await openLocalNetwork(dir);
  const key = Ed25519Keypair.generate();
  await network.faucet(key.toSuiAddress());
  const ledger = new SuiLedger({ client: network.client, signer: key, packageId: network.packageId, registryId: network.registryId });
  const { id } = await ledger.createRepository('history');
  const pushes = short ? 200 : 2000;
  let previous: string | null = null;
  for (let i = 0; i < pushes; i++) {
    const next = (i + 1).toString(16).padStart(40, '0');
    await ledger.push(id, [{ name: 'refs/heads/main', old: previous, new: next, force: false }], { chunks: [u256ToBlobId(BigInt(i + 1))], size: 1000, sha256: next.padEnd(64, '0') });
    previous = next;
  }
  await network.close();
  const chain = join(dir, 'chain');
  const opens = async () => {
    const times: number[] = [];
    for (let i = 0; i < (short ? 5 : 20); i++) {
      const start = performance.now();
      await new ChainStore(chain).refresh();
      times.push(performance.now() - start);
    }
    return percentile(times, 50);
  };
  const snapshot = join(chain, 'snapshot.json');
  const withSnapshot = await opens();
  renameSync(snapshot, `${snapshot}.aside`);
  const replay = await opens();
  renameSync(`${snapshot}.aside`, snapshot);
  const kb = (path: string) => (statSync(path).size / 1024).toFixed(0);
  console.log(`chain open after ${pushes} pushes (log ${kb(join(chain, 'chain.log'))} KB, snapshot ${kb(snapshot)} KB): p50 ${withSnapshot.toFixed(1)} ms from the snapshot, ${replay.toFixed(1)} ms by a full replay`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run(process.argv.includes('--short'));
}
