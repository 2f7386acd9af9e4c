// GitOps controller figures.
// 1. The chain watcher's reads per poll with N WalrusApps following N repositories and nothing changing (goal: one),
//    on the in-process devnet: N repositories with a push each, the controller's ChainWatcher + RepositoryIndex
//    (what its poll runs), reads counted at the Ledger port. N = 10,000 (64 with --short).
// 2. Full mode only, on the test cluster (process kubelet) with a `git walrus devnet` server and the controller:
//    push transaction → build Job created (goal ≤ 2 s), build end → the new ReplicaSet's first pod (goal ≤ 2 s),
//    and the build and rollout times of examples/hello-npm.
// Run: node bench/gitops.ts [--short]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { openLocalNetwork } from '../src/devnet/local-network.ts';
import { SuiLedger } from '../src/sui/ledger.ts';
import { countingPorts, newStats } from '../src/main/instrumented.ts';
import { WorkQueue } from '../src/gitops/queue.ts';
import { ChainWatcher, RepositoryIndex, type CursorStore } from '../src/gitops/watch/chain-watcher.ts';
import type { BlobStore } from '../src/ports/blob-store.ts';

export async function run(short: boolean): Promise<void> {
  await watcherReads(short ? 64 : 10_000);
  if (short) {
    console.log('gitops: push → Job and build → pod figures need the test cluster; run without --short');
    return;
  }
  const { clusterFigures } = await import('./gitops/cluster.ts');
  await clusterFigures();
}

async function watcherReads(apps: number): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'bench-gitops-'));
  const network = await openLocalNetwork(join(root, 'chain'));
  try {
    // Eight signers in parallel (one signer's transactions are serialized on its gas coin).
    const signers = await Promise.all(Array.from({ length: 8 }, async () => {
      const key = Ed25519Keypair.generate();
      await network.faucet(key.toSuiAddress());
      return new SuiLedger({ client: network.client, signer: key, packageId: network.packageId, registryId: network.registryId });
    }));
    const base = signers[0]!;
    const started = performance.now();
    const index = new RepositoryIndex();
    const repositories: string[] = new Array(apps);
    await Promise.all(signers.map(async (signer, lane) => {
      for (let n = lane; n < apps; n += signers.length) {
        const { id } = await signer.createRepository(`app-${n}`);
        await signer.push(id, [{ name: 'refs/heads/main', old: null, new: (n + 1).toString(16).padStart(40, '0'), force: false }], null);
        repositories[n] = id;
        index.follow(`apps/app-${n}`, id);
      }
    }));
    console.log(`gitops watcher: ${apps} repositories with a push each, followed by ${index.size} WalrusApps (set up in ${((performance.now() - started) / 1000).toFixed(1)} s)`);

    const stats = newStats();
    const { ledger } = countingPorts(base, {} as BlobStore, stats);
    let cursor: string | null = null;
    const store: CursorStore = { load: async () => cursor, save: async (value) => { cursor = value; } };
    const queue = new WorkQueue();
    let enqueued = 0;
    const watcher = new ChainWatcher({ feed: ledger, store, onPush: (event) => { for (const app of index.appsOf(event.repository)) { queue.add(app); enqueued++; } } });
    await watcher.poll();
    stats.chainReads = 0;
    const polls = 20;
    const pollTimes: number[] = [];
    for (let n = 0; n < polls; n++) {
      const start = performance.now();
      await watcher.poll();
      pollTimes.push(performance.now() - start);
    }
    console.log(`gitops watcher: ${(stats.chainReads / polls).toFixed(2)} chain reads per poll with nothing changing (goal: 1), ${enqueued} apps enqueued, poll p50 ${pollTimes.sort((a, b) => a - b)[polls >> 1]!.toFixed(2)} ms`);
    stats.chainReads = 0;
    const moved = repositories[apps >> 1]!;
    await signers[(apps >> 1) % signers.length]!.push(moved, [{ name: 'refs/heads/main', old: ((apps >> 1) + 1).toString(16).padStart(40, '0'), new: 'f'.repeat(40), force: false }], null);
    await watcher.poll();
    console.log(`gitops watcher: one push → ${stats.chainReads} chain read, ${enqueued} app enqueued (${queue.length} in the queue)`);
    queue.shutDown();
  } finally {
    await network.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await run(process.argv.includes('--short'));
  process.exit(0);
}
