// `npm run bench [-- --short]`: every benchmark of the project, one after another, each printing its own figures.
// CI runs the short mode (smaller inputs, same figures) as part of `npm test`.
import { pathToFileURL } from 'node:url';
import { readdirSync } from 'node:fs';

const short = process.argv.includes('--short');
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const here = new URL('.', import.meta.url);
const benches = readdirSync(here)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => file.slice(0, -3))
  .filter((name) => only.length === 0 || only.includes(name))
  .sort();

// A bench that ends the process itself (its module running as a script on import) would skip every bench after it
// and still exit 0: that fails the run, naming it.
let running: string | undefined;
process.on('exit', (code) => {
  if (running === undefined || code !== 0) return;
  console.error(`bench ${running} ended the process before the benches after it ran: a bench exports run() and exits only when run as a script`);
  process.exitCode = 1;
});

for (const name of benches) {
  running = name;
  console.log(`\n=== bench ${name}${short ? ' (short)' : ''} ===`);
  const started = performance.now();
  const bench = (await import(pathToFileURL(new URL(`${name}.ts`, here).pathname).href)) as { run(short: boolean): Promise<void>; fullOnly?: string };
  // A bench that cannot run in the short mode says why instead of printing figures.
  if (short && bench.fullOnly) {
    console.log(`  full mode only: ${bench.fullOnly}`);
    continue;
  }
  await bench.run(short);
  console.log(`--- ${name}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
running = undefined;
// Worker pools and keep-alive sockets of the benches must not hold the process open.
process.exit(0);
