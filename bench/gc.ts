/**
 * Storage cost of many small pushes, and what `git walrus gc` brings it to. `node bench/gc.ts [--short]`.
 *
 * Every Walrus blob is stored encoded, with a floor of ~64 MB per blob on the 1000-shard networks: N small pushes cost N
 * floors. The bench pushes N one-commit changes on the embedded network, counts the live blobs a fresh clone reads
 * (GIT_WALRUS_STATS), runs `git walrus gc`, and counts again. Encoded sizes come from the pack sizes on chain
 * (`git walrus log --json`) through Walrus's encoding, for the devnet's shards and for testnet/mainnet's 1000.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { encodedBlobLength } from '../src/walrus-protocol/encoding.ts';
import { DEVNET_NUM_SHARDS } from '../src/devnet/walrus/service.ts';
import { createWorld, walrusInit } from '../scripts/harness/world.ts';

const MAINNET_SHARDS = 1000;
const fmtMb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export async function run(short: boolean): Promise<void> {
  const pushes = short ? 4 : 100;
  const world = createWorld('walrus-bench-gc-');
  try {
    await world.ok('.', ['init', '-q', '-b', 'main', 'src']);
    await walrusInit(world, 'src', 'small-pushes');
    for (let i = 0; i < pushes; i++) {
      writeFileSync(world.path('src', `note${i % 10}.txt`), `change ${i}\n`);
      await world.ok('src', ['add', '-A']);
      await world.ok('src', ['commit', '-q', '-m', `change ${i}`]);
      await world.ok('src', ['push', '-q', 'walrus', 'main']);
    }
    const log = JSON.parse(await world.ok('src', ['walrus', 'log', 'walrus', '--json'])) as { pushes: { pack: { size: number; chunks: string[] } | null }[] };
    const sizes = log.pushes.flatMap((p) => (p.pack ? [p.pack.size] : []));
    const encoded = (shards: number, packs: number[]) => packs.reduce((sum, size) => sum + encodedBlobLength(size, shards), 0);
    const url = await world.ok('src', ['remote', 'get-url', 'walrus']);
    const cloneReads = async (dir: string) => {
      world.takeStats();
      await world.ok('.', ['clone', '-q', url, dir]);
      return world.takeStats().filter((s) => s.role === 'helper').reduce((n, s) => n + s.blobReads, 0);
    };
    const before = await cloneReads('before-gc');
    const gc = await world.ok('src', ['walrus', 'gc', 'walrus']);
    const after = await cloneReads('after-gc');
    const last = JSON.parse(await world.ok('src', ['walrus', 'log', 'walrus', '--json', '--limit', '1'])) as { pushes: { pack: { size: number } | null }[] };
    const repackSize = last.pushes[0].pack!.size;
    console.log(`${pushes} one-commit pushes: ${sizes.length} packs, ${sizes.reduce((a, b) => a + b, 0)} bytes of pack data`);
    console.log(`  live blobs a clone reads:  ${before} before gc, ${after} after (${gc.trim().split('\n').join('; ')})`);
    for (const shards of [DEVNET_NUM_SHARDS, MAINNET_SHARDS]) {
      console.log(`  encoded storage, ${String(shards).padStart(4)} shards: ${fmtMb(encoded(shards, sizes))} live before gc, ${fmtMb(encodedBlobLength(repackSize, shards))} live after (the replaced blobs stay until they expire)`);
    }
  } finally {
    world.remove();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await run(process.argv.includes('--short'));
