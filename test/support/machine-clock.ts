/**
 * The machine clock of a test, movable the way libfaketime moves it, for every Node process that loads this file
 * (NODE_OPTIONS=--import=<this file>, see `machineClockEnv` in machine-clock-env.ts): git-remote-walrus, `git walrus`
 * and a `git walrus devnet` server. Product code is untouched; only `Date.now` moves.
 *
 * - `Date.now()` is the real time plus the offset (ms) in the file named by WALRUS_TEST_CLOCK, re-read at every call
 *   so that processes sharing the file agree on the time, as machines synchronised by NTP do.
 * - WALRUS_TEST_CLOCK_PACK_MS=<ms>: each `git index-pack` this process starts moves the clock that much forward, for
 *   every process sharing the file: a fetch whose every pack takes that long to arrive, deterministically.
 */
import childProcess from 'node:child_process';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const file = process.env.WALRUS_TEST_CLOCK;
if (file) {
  const realNow = Date.now.bind(Date);
  const offset = (): number => {
    try {
      return Number(readFileSync(file, 'utf8')) || 0;
    } catch {
      return 0;
    }
  };
  Date.now = () => realNow() + offset();

  const packMs = Number(process.env.WALRUS_TEST_CLOCK_PACK_MS ?? 0);
  if (packMs > 0) {
    const spawn = childProcess.spawn;
    childProcess.spawn = ((command: string, ...rest: unknown[]) => {
      if (Array.isArray(rest[0]) && rest[0].includes('index-pack')) {
        const tmp = `${file}.${process.pid}`;
        writeFileSync(tmp, String(offset() + packMs));
        renameSync(tmp, file);
      }
      return (spawn as (...a: unknown[]) => childProcess.ChildProcess)(command, ...rest);
    }) as typeof childProcess.spawn;
    syncBuiltinESMExports();
  }
}
