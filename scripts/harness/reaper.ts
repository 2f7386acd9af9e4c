/**
 * Servers and controllers a test starts never outlive the test process, however it ends (SIGKILL included). Each is
 * spawned as the leader of a process group of its own (so whatever it starts is in the group too), and a watchdog
 * (reaper-watchdog.ts: one per test process, in a session of its own, so a terminal's Ctrl-C or a kill of the test's
 * process group leaves it alone) is told each group. The watchdog reads a pipe that only the test process holds
 * open: when that ends, the test process is gone, and it stops every group (SIGTERM, then SIGKILL) and runs the
 * commands it was given for that moment (the test cluster's sweep).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, ChildProcessByStdio, SpawnOptionsWithStdioTuple, StdioNull, StdioPipe } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { processStartTime } from '../../test/cluster/node/run-state.ts';

const WATCHDOG = fileURLToPath(new URL('./reaper-watchdog.ts', import.meta.url));
let watchdog: ChildProcess | undefined;

function tell(line: string): void {
  if (!watchdog) {
    watchdog = spawn(process.execPath, [WATCHDOG], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    // Neither the watchdog nor its pipe keeps the test process alive: the pipe's end is the message.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref(): void }).unref();
  }
  watchdog.stdin!.write(`${line}\n`);
}

/** `spawn` (output piped), with the process and everything it starts stopped once the test process is gone. */
export function spawnReaped(command: string, args: readonly string[], options: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe>):
  ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn(command, args, { ...options, detached: true });
  if (child.pid !== undefined) tell(`group ${child.pid} ${processStartTime(child.pid) ?? ''}`);
  return child;
}

/** Runs `argv` (detached, output discarded) once the test process is gone and its groups are stopped. */
export function runAfterExit(argv: readonly string[]): void {
  tell(`then ${JSON.stringify(argv)}`);
}
