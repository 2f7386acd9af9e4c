import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { createWorld, startDevnet } from '../../scripts/harness/world.ts';
import type { World } from '../../scripts/harness/world.ts';

/**
 * One `git walrus devnet` server per state directory: a second one on a directory in use is refused with the first
 * one's URL (two would each register the Seal key servers at their own URL, and the survivor's private clones would
 * fail once the other stops); the lock of a server that was killed is taken over.
 */
const lock = suite('git walrus devnet: one server per --dir');
let w: World;
lock.before(() => { w = createWorld('walrus-devnet-lock-'); });
lock.after(() => w.remove());

lock('a second server on a directory in use is refused, naming the directory and the server that holds it', async () => {
  const first = await startDevnet(w);
  try {
    // Bounded: a second server that starts (the fault this refuses) would otherwise serve until killed.
    const second = await w.run('.', ['60', 'git', 'walrus', 'devnet', '--dir', w.path('devnet-state')], { command: 'timeout' });
    assert.is.not(second.code, 0);
    const holder = JSON.parse(readFileSync(w.path('devnet-state', 'server.lock'), 'utf8')) as { pid: number; url: string };
    assert.is(holder.url, first.url);
    assert.match(second.stderr, `${w.path('devnet-state')} is already served by git walrus devnet (process ${holder.pid}, at ${first.url})`);
    assert.not.match(second.stderr, 'internal error');
    // The first server still answers, its key servers registered at its own URL.
    const info = await (await fetch(`${first.url}/v1/devnet`)).json() as { packageId: string };
    assert.match(info.packageId, /^0x[0-9a-f]{64}$/);
  } finally {
    await first.stop();
  }
  // Stopped cleanly: the directory is free again.
  const again = await startDevnet(w);
  await again.stop();
});

lock('the lock of a killed server is taken over by the next one', async () => {
  const killed = await startDevnet(w);
  // The server itself (git's child), as a crash would end it, leaving its lock file behind.
  const { pid } = JSON.parse(readFileSync(w.path('devnet-state', 'server.lock'), 'utf8')) as { pid: number };
  process.kill(pid, 'SIGKILL');
  await killed.stop();
  const next = await startDevnet(w);
  try {
    const info = await (await fetch(`${next.url}/v1/devnet`)).json() as { packageId: string };
    assert.match(info.packageId, /^0x[0-9a-f]{64}$/);
  } finally {
    await next.stop();
  }
});

lock.run();
