// Where the fixed cost of a Walrus blob id goes, for a new helper process (git starts one for every push): a worker
// thread's start, its modules and WebAssembly compile, the encoder's tables for the shard count, and the ids
// themselves (a 1 KiB blob's first and second, a 1 MiB blob's), at the devnet's 50 shards and at testnet/mainnet's
// 1000. The set-up is what an encoder kept warm across helper processes could save; the ids are paid by any encoder.
// Then the same ids in a fresh process through a warm encoder (walrus.warmEncoder) already running and built for
// the shard count: what a later push pays with it, and the daemon's own memory.
// Each round is a fresh process; figures are medians (the short mode: one round at 50 shards, the first id only, so `npm test` stays quick; the 1000-shard figure is the full run's).
// Run: node bench/blob-id-cost.ts [--short]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runningWarmEncoder } from './blob-id/warm-encoder.ts';

const PROBE = fileURLToPath(new URL('./blob-id/first-ids.ts', import.meta.url));
type Probe = Record<'bareWorker' | 'workerAndWasm' | 'encoderTables' | 'firstKiB' | 'cpuMs' | 'peakRssMb', number> & { secondKiB?: number; oneMiB?: number };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

function probe(numShards: number, short: boolean, warmSocket?: string): Probe {
  const args = [PROBE, String(numShards), ...(short ? ['--short'] : []), ...(warmSocket ? ['--warm', warmSocket] : [])];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' })) as Probe;
}

export async function run(short: boolean): Promise<void> {
  const rounds = short ? 1 : 3;
  // A shared machine stretches every wall-clock figure; the load says by how much to distrust them.
  console.log(`  blob id in a fresh process, ms, median of ${rounds} round(s), load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}:`);
  for (const numShards of short ? [50] : [50, 1000]) {
    const results = Array.from({ length: rounds }, () => probe(numShards, short));
    const m = (key: keyof Probe) => median(results.map((r) => r[key] ?? NaN));
    const later = short ? '' : ` / second ${m('secondKiB')}, 1 MiB id ${m('oneMiB')}`;
    const setUp = m('workerAndWasm') + m('encoderTables');
    console.log(`  ${String(numShards).padStart(4)} shards: bare worker thread ${m('bareWorker')}; the id worker (thread, modules, wasm compile) ${m('workerAndWasm')}, `
      + `encoder tables ${m('encoderTables')}; 1 KiB id first ${m('firstKiB')}${later}; `
      + `process CPU ${m('cpuMs')}, peak RSS ${m('peakRssMb')} MB`);
    console.log(`        set-up ${setUp} = ${(100 * setUp / (setUp + m('firstKiB'))).toFixed(0)}% of a first 1 KiB id's ${setUp + m('firstKiB')} (the rest is the id's own work)`);
    await throughWarmEncoder(numShards, rounds, short);
  }
}

/** The same ids from a fresh process through a warm encoder that is running and built for `numShards`. */
async function throughWarmEncoder(numShards: number, rounds: number, short: boolean): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'walrus-bench-warm-'));
  const socket = join(dir, 'run', 'encoder.sock');
  const daemon = await runningWarmEncoder(socket, numShards);
  try {
    const results = Array.from({ length: rounds }, () => probe(numShards, short, socket));
    const m = (key: keyof Probe) => median(results.map((r) => r[key] ?? NaN));
    const later = short ? '' : `, second ${m('secondKiB')}, 1 MiB id ${m('oneMiB')}`;
    console.log(`        through a warm encoder: 1 KiB id first ${m('firstKiB')}${later}; the helper's CPU ${m('cpuMs')}, peak RSS ${m('peakRssMb')} MB; `
      + `the daemon's RSS ${(await daemon.rssMb()).toFixed(0)} MB`);
  } finally {
    await daemon.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await run(process.argv.includes('--short'));
