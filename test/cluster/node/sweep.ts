/**
 * `node test/cluster/node/sweep.ts [--after PID]`: removes what dead runs left behind (see cleanup.ts).
 * With --after, first waits for that process to exit: a test process spawns this as it exits, so its
 * run is removed even when it could not wait for the removal itself.
 */
import { sweepDeadRuns } from './cleanup.ts';
import { processStartTime } from './run-state.ts';
import { sleep } from '../signals.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const [flag, pidText] = process.argv.slice(2);
if (flag === '--after') {
  const pid = Number(pidText);
  const deadline = Date.now() + 60_000;
  while (processStartTime(pid) !== undefined && Date.now() < deadline) await sleep(100);
}
await sweepDeadRuns(log);
