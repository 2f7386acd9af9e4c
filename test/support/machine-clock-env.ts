import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PRELOAD = join(dirname(fileURLToPath(import.meta.url)), 'machine-clock.ts');

/**
 * The environment that puts a process on the movable machine clock kept in `file` (machine-clock.ts); with `packMs`,
 * each `git index-pack` the process starts moves that clock forward by `packMs`.
 */
export function machineClockEnv(file: string, packMs = 0): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import=${PRELOAD}`, WALRUS_TEST_CLOCK: file, ...(packMs > 0 ? { WALRUS_TEST_CLOCK_PACK_MS: String(packMs) } : {}) };
}

/** How far (ms) the machine clock in `file` runs ahead of real time. */
export function clockOffset(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8')) || 0;
  } catch {
    return 0;
  }
}

/** Sets the machine clock in `file` to real time plus `ms`. */
export function setClockOffset(file: string, ms: number): void {
  writeFileSync(file, String(ms));
}
