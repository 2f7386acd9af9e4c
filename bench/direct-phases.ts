/**
 * Where the SDK's direct mode spends a blob's time: `node bench/direct-phases.ts [--shards=N] [--one-way-ms=N]`
 * (1000 shards and 25 ms by default). A `git walrus devnet` server with eleven storage nodes, each node and the
 * server behind a latency proxy as in bench/latency.ts; the SDK's client is given the product's storage-node fetch,
 * counted. For two blobs in turn it prints the write's steps as the SDK reports them (encoded, registered, uploaded,
 * certified, in seconds from the start), each kind of storage-node request (how many, when the first and last
 * started, when the last ended), the connections each node took, then the same for reading the blob back: what
 * follows the last sliver is the SDK decoding and re-encoding the blob to check its id. Then the helper's own read
 * of it (SdkBlobStore: the blob's source columns, no decoding), once proven by its blob id and once as a pack chunk,
 * whose sha256 the fetch checks. `--one-way-ms=0` tells the distance's share from the machine's.
 */
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { SuiGrpcClient } from '@mysten/sui/grpc';
import { requestSuiFromFaucetV2 } from '@mysten/sui/faucet';
import { WalrusClient } from '@mysten/walrus';
import { createWorld, startDevnet } from '../scripts/harness/world.ts';
import { createWalrusService } from '../src/devnet/walrus/service.ts';
import { WALRUS_STAKING_OBJECT_ID, WALRUS_SYSTEM_OBJECT_ID } from '../src/devnet/chain/fixed-ids.ts';
import { WAL_FAUCET_PATH } from '../src/core/devnet-protocol.ts';
import { suiDeadlineFetch } from '../src/sui/deadlines.ts';
import { storageNodeFetch } from '../src/walrus/storage-node-fetch.ts';
import { SdkBlobStore } from '../src/walrus/sdk-blob-store.ts';
import { releaseBlobIdWorkers } from '../src/walrus-protocol/blob-id.ts';
import { startLatencyProxy, storageNodeProxies } from './network/latency-proxy.ts';

const NODES = 11;
const option = (name: string, fallback: number) => Number(/^--[a-z-]+=(\d+)$/.exec(process.argv.find((arg) => arg.startsWith(`--${name}=`)) ?? '')?.[1] ?? fallback);

/** Each kind of request (method and path with the blob id and numbers taken out): count, first and last start, last end. */
class RequestLog {
  private readonly kinds = new Map<string, { count: number; firstStart: number; lastStart: number; lastEnd: number }>();
  private origin = performance.now();
  start(): void {
    this.kinds.clear();
    this.origin = performance.now();
  }
  wrap(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const kind = `${init?.method ?? 'GET'} ${String(input).replace(/^.*\/v1\/blobs\/[^/]+\//, '').replace(/\d+/g, 'N').replace(/0xN?[0-9a-f]*/, 'ID')}`;
      const started = this.since();
      try {
        return await inner(input, init);
      } finally {
        const entry = this.kinds.get(kind) ?? { count: 0, firstStart: started, lastStart: started, lastEnd: 0 };
        entry.count++;
        entry.lastStart = Math.max(entry.lastStart, started);
        entry.lastEnd = Math.max(entry.lastEnd, this.since());
        this.kinds.set(kind, entry);
      }
    };
  }
  since(): number {
    return (performance.now() - this.origin) / 1000;
  }
  print(): void {
    for (const [kind, entry] of this.kinds) {
      console.log(`      ${kind}: ${entry.count}, started ${entry.firstStart.toFixed(2)}-${entry.lastStart.toFixed(2)} s, last ended ${entry.lastEnd.toFixed(2)} s`);
    }
  }
}

/** `npm run bench` runs it with its defaults; the short mode at 100 shards (the same steps, a tenth of the slivers). */
export async function run(short: boolean, shards = short ? 100 : 1000, oneWayMs = 25): Promise<void> {
  const world = createWorld('walrus-bench-direct-');
  try {
    await createWalrusService(world.path('state', 'walrus'), { numShards: shards }).epochClock();
    const nodes = await storageNodeProxies(NODES, oneWayMs);
    const { proxies } = nodes;
    const devnet = await startDevnet(world, nodes.devnetArgs, 'state');
    nodes.follow(devnet.printed);
    const chain = await startLatencyProxy({ host: '127.0.0.1', port: Number(new URL(devnet.url).port) }, oneWayMs);
    try {
      const signer = Ed25519Keypair.generate();
      await requestSuiFromFaucetV2({ host: devnet.url, recipient: signer.toSuiAddress() });
      const wal = await fetch(new URL(WAL_FAUCET_PATH, devnet.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ FixedAmountRequest: { recipient: signer.toSuiAddress() } }) });
      if (!wal.ok) throw new Error(`the devnet's WAL faucet answered ${wal.status}`);
      const suiClient = new SuiGrpcClient({ baseUrl: chain.url, network: 'devnet', fetch: suiDeadlineFetch({ url: chain.url, timeoutMs: 60_000, help: 'the bench\'s devnet server' }).fetch });
      const log = new RequestLog();
      const client = new WalrusClient({
        suiClient,
        packageConfig: { systemObjectId: WALRUS_SYSTEM_OBJECT_ID, stakingPoolId: WALRUS_STAKING_OBJECT_ID },
        storageNodeUrlScheme: 'http',
        storageNodeClientOptions: { fetch: log.wrap(storageNodeFetch()) },
      });
      // The helper's store over the same client: its read takes the blob's source columns (src/walrus/sdk-blob-store.ts).
      const store = new SdkBlobStore({ client, signer, numShards: shards });
      const connections = () => proxies.map((proxy) => proxy.connections);
      const opened = (before: number[]) => connections().map((count, index) => count - before[index]!);
      console.log(`  ${NODES} storage nodes, ${shards} shards, ${oneWayMs} ms each way`);
      for (const round of [1, 2]) {
        let before = connections();
        const steps: string[] = [];
        log.start();
        const { blobId } = await client.writeBlob({
          blob: new TextEncoder().encode(`blob ${round} `.repeat(2000)), deletable: false, epochs: 3, signer,
          onStep: (step) => { steps.push(`${step.step} ${log.since().toFixed(2)}`); },
        });
        console.log(`    write ${round}: ${log.since().toFixed(2)} s [${steps.join(', ')}], connections per node: ${opened(before).join(' ')}`);
        log.print();
        before = connections();
        log.start();
        await client.readBlob({ blobId });
        console.log(`    the SDK's read ${round}: ${log.since().toFixed(2)} s, connections per node: ${opened(before).join(' ')}`);
        log.print();
        for (const contentChecked of [false, true]) {
          before = connections();
          log.start();
          await store.read(blobId, { contentChecked });
          console.log(`    the helper's read ${round} (${contentChecked ? 'a pack chunk: its sha256 checked by the fetch' : 'proven by its blob id, in the worker'}): ${log.since().toFixed(2)} s, connections per node: ${opened(before).join(' ')}`);
          log.print();
        }
      }
    } finally {
      await releaseBlobIdWorkers();
      await chain.close();
      await devnet.stop();
      await Promise.all(proxies.map((proxy) => proxy.close()));
    }
  } finally {
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  await run(false, option('shards', 1000), option('one-way-ms', 25));
  process.exit(0); // the SDK's keep-alive connections must not hold the process open
}
