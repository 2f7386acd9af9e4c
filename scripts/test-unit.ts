/**
 * `npm run test:unit`: every test file under test/ except test/k8s, found as `uvu test "\.test\.ts$" --ignore k8s`
 * finds them, run by uvu in `--jobs N` worker processes (default: one per core) that each take the next file when
 * they finish one. Most tests wait on one process at a time (git, the helper, a devnet server), so one uvu process
 * leaves a core idle much of the time; two keep both busy. Files still run one after the other inside a worker, so a
 * file sees exactly what it saw under plain uvu. Each file's output is printed whole when it finishes; the run fails
 * if any file does.
 *
 * `npm run test:unit -- [--jobs N] [pattern]` picks the number of workers and the files (path under test/ matching).
 * The slowest files start first so that no worker is left with a long file at the end; the order changes nothing else.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parse } from 'uvu/parse';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKER = join(ROOT, 'scripts', 'test-unit-worker.ts');
const DONE_MARK = `--uvu-file-done-${randomUUID()}`;

/** Files measured at 15 s of CPU or more each (together most of the suite's), slowest first. */
const SLOW_FIRST = [
  'e2e/private.test.ts',
  'web/web.test.ts',
  'e2e/concurrency.test.ts',
  'sui/scenarios.test.ts',
  'e2e/gitops-pipeline.test.ts',
  'sui/market-scenarios.test.ts',
  'e2e/reviewer.test.ts',
  'e2e/clone-push.test.ts',
  'e2e/market.test.ts',
  'e2e/push-rules.test.ts',
  'e2e/gc.test.ts',
];

/** `[--jobs N] [pattern]`: N workers, and only the files whose path under test/ matches the pattern (as uvu's). */
function argsFrom(argv: string[]): { jobs: number; pattern?: RegExp } {
  const at = argv.indexOf('--jobs');
  const jobs = at >= 0 ? Number(argv[at + 1]) : availableParallelism();
  if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs wants a whole number of workers, not ${argv[at + 1]}`);
  const rest = at >= 0 ? [...argv.slice(0, at), ...argv.slice(at + 2)] : argv;
  return { jobs, pattern: rest[0] === undefined ? undefined : new RegExp(rest[0], 'i') };
}

interface Outcome { name: string; ok: boolean; total: number; passed: number; skipped: number }

const count = (output: string, label: string) => Number(output.match(new RegExp(`${label}:\\s+(?:\\x1b\\[\\d+m)*(\\d+)`))?.[1] ?? 0);

/** A worker process: `run(file)` resolves with the file's outcome once the worker has printed its end mark. */
function startWorker(onOutput: (name: string, output: string) => void) {
  const child = spawn(process.execPath, [WORKER, DONE_MARK], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.on('error', () => {}); // a worker that died is reported by its 'close'
  let current: { name: string; output: string; done(outcome: Outcome): void } | undefined;
  const finish = (ok: boolean, note = '') => {
    if (!current) return;
    const { name, output, done } = current;
    current = undefined;
    onOutput(name, output + note);
    done({ name, ok, total: count(output, 'Total'), passed: count(output, 'Passed'), skipped: count(output, 'Skipped') });
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!current) return;
    if (line.startsWith(DONE_MARK)) finish(line.slice(DONE_MARK.length).trim() === '0');
    else current.output += `${line}\n`;
  });
  const exited = new Promise<void>((done) => child.on('close', (code, signal) => {
    finish(false, `\n  the worker exited (${signal ?? code}) before the file finished\n`);
    done();
  }));
  return {
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    run: (name: string, file: string) => new Promise<Outcome>((done) => {
      current = { name, output: '', done };
      child.stdin.write(`${JSON.stringify({ name, file })}\n`);
    }),
    close: () => child.stdin.end(),
  };
}

const started = performance.now();
const { jobs, pattern } = argsFrom(process.argv.slice(2));
const { suites } = await parse(join(ROOT, 'test'), '\\.test\\.ts$', { ignore: ['k8s'] });
const rank = (name: string) => { const i = SLOW_FIRST.indexOf(name); return i < 0 ? SLOW_FIRST.length : i; };
const queue = suites.filter((s) => !pattern || pattern.test(s.name)).sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name));
const outcomes: Outcome[] = [];
const print = (_name: string, output: string) => process.stdout.write(output);

await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, async () => {
  let worker = startWorker(print);
  for (let next = queue.shift(); next; next = queue.shift()) {
    if (!worker.alive()) worker = startWorker(print);
    outcomes.push(await worker.run(next.name, next.file));
  }
  worker.close();
  await worker.exited;
}));

const failed = outcomes.filter((o) => !o.ok);
const sum = (key: 'total' | 'passed' | 'skipped') => outcomes.reduce((n, o) => n + o[key], 0);
process.stdout.write(`\n  Files:     ${outcomes.length} in ${jobs} workers\n  Total:     ${sum('total')}\n  Passed:    ${sum('passed')}\n  Skipped:   ${sum('skipped')}\n  Duration:  ${((performance.now() - started) / 1000).toFixed(1)}s\n`);
if (failed.length) {
  process.stdout.write(`  Failed:    ${failed.map((o) => o.name).join(', ')}\n\n`);
  process.exitCode = 1;
}
