/**
 * The watchdog of one test process (see reaper.ts). Its stdin is a pipe from the test process, one line per message:
 * `group <pgid> <leader start time>` (a process group to stop) and `then <JSON argv>` (a command to run after).
 * When stdin ends, the test process is gone: every group still there gets SIGTERM, and SIGKILL after a grace period;
 * then the commands run, one after the other.
 */
import { spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { processStartTime } from '../../test/cluster/node/run-state.ts';

const GRACE_MS = 5000;
const groups: { pgid: number; start: string }[] = [];
const after: string[][] = [];

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  const [kind, ...rest] = line.split(' ');
  if (kind === 'group') groups.push({ pgid: Number(rest[0]), start: rest[1] ?? '' });
  else if (kind === 'then') after.push(JSON.parse(rest.join(' ')) as string[]);
});
await new Promise<void>((resolve) => lines.once('close', resolve));

/** Signals the group; false when it has no process left. */
function signal(pgid: number, name: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, name);
    return true;
  } catch {
    return false;
  }
}

// PIDs are reused (pid_max may be 32768): a group whose leader's PID now names a process started later is another's.
const ours = groups.filter(({ pgid, start }) => {
  const now = processStartTime(pgid);
  return now === undefined || now === start;
});
const live = ours.filter(({ pgid }) => signal(pgid, 'SIGTERM'));
const deadline = Date.now() + GRACE_MS;
while (live.some(({ pgid }) => signal(pgid, 0)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
for (const { pgid } of live) signal(pgid, 'SIGKILL');
for (const [command, ...args] of after) spawnSync(command!, args, { stdio: 'ignore' });
