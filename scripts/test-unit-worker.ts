/**
 * One worker of scripts/test-unit.ts: reads test files (one JSON line each: `{"name", "file"}`) on stdin and runs
 * each with uvu as `uvu` itself would (its output, its suites in order), one file after the other in this process.
 * After each file it prints a line `<mark> <exit code>` (the mark is its first argument) so the parent knows the file's
 * output is complete.
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const doneMark = process.argv[2]!;

// What `uvu` does before it imports the test files: colours on, and suites queued instead of run at import.
process.env.FORCE_COLOR = '1';
const globals = globalThis as unknown as { UVU_DEFER: number; UVU_INDEX: number; UVU_QUEUE: unknown[][] };
globals.UVU_DEFER = 1;
const uvu = await import('uvu') as unknown as { exec(bail?: boolean): Promise<void> };

for await (const line of createInterface({ input: process.stdin })) {
  const { name, file } = JSON.parse(line) as { name: string; file: string };
  globals.UVU_QUEUE.length = 0;
  globals.UVU_INDEX = 0;
  globals.UVU_QUEUE.push([name]);
  process.exitCode = 0;
  try {
    await import(pathToFileURL(file).href);
    await uvu.exec();
  } catch (error) {
    process.stdout.write(`\n${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
  process.stdout.write(`\n${doneMark} ${process.exitCode ?? 0}\n`);
}
