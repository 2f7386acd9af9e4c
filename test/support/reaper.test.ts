import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../../scripts/harness/git-env.ts';

const reaper = suite('processes a test starts die with the test process');

/** Whether any process is left in the group. */
const groupAlive = (pgid: number) => {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let tries = 0; !condition(); tries++) {
    if (tries > 300) throw new Error(`still waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

reaper('a test process killed with SIGKILL: its server\'s whole process group is stopped, then the after-exit command runs', async () => {
  const dir = tempDir('walrus-reaper-');
  let cleanup: (() => void) | undefined;
  try {
    const swept = join(dir.path, 'swept');
    // A stand-in test process: a "server" that started a child of its own, and a command for after its end.
    const script = `
      import { runAfterExit, spawnReaped } from ${JSON.stringify(new URL('../../scripts/harness/reaper.ts', import.meta.url).href)};
      const server = spawnReaped('sh', ['-c', 'sleep 300 & sleep 300; wait'], { stdio: ['ignore', 'pipe', 'pipe'] });
      runAfterExit(['touch', ${JSON.stringify(swept)}]);
      process.stdout.write(server.pid + '\\n');
      setInterval(() => {}, 1000);
    `;
    const test = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanup = () => test.kill('SIGKILL');
    // A stand-in that cannot start (its import failing) exits before its line: that fails here, it does not hang.
    const pgid = Number(
      await new Promise<string>((resolve, reject) => {
        createInterface({ input: test.stdout }).once('line', resolve);
        test.once('exit', (code) => reject(new Error(`the stand-in test process exited (${code}) before naming its server`)));
      }),
    );
    assert.ok(pgid > 0 && groupAlive(pgid), `the server runs in a group of its own (${pgid})`);
    test.kill('SIGKILL');
    await until('the server\'s group to be gone', () => !groupAlive(pgid));
    await until('the after-exit command', () => existsSync(swept));
  } finally {
    cleanup?.();
    dir.remove();
  }
});

reaper.run();
