/** What the generators share: write a generated file, or with `--check` exit 1 when the committed one is stale. */
import { readFileSync, writeFileSync } from 'node:fs';

/** Writes `text` to `path`; with `--check` among the arguments, compares instead and exits 1 naming `command`. */
export function writeOrCheck(path: string, text: string, command: string): void {
  if (!process.argv.includes('--check')) {
    writeFileSync(path, text);
    return;
  }
  let current = '';
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // missing: stale
  }
  if (current !== text) {
    process.stderr.write(`${path} is stale: run ${command} and commit the result\n`);
    process.exit(1);
  }
}
