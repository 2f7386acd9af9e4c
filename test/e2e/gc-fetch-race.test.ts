/**
 * A fetch and a clone racing `git walrus gc` on a `git walrus devnet` server, through real git: the gc runs (and
 * deletes the deletable blobs of the packs it replaced) exactly after the helper read the repository state and before
 * its first blob read (test/support/blob-read-hook.ts). The helper finds a replaced pack gone, reads the state again
 * and fetches from the consolidated pack: the command succeeds the first time, with no retry by hand.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { beforeBlobReadEnv } from '../support/blob-read-hook-env.ts';
import { commit, initWorkRepo, refsOf, walrusInit, type World } from '../../scripts/harness/world.ts';
import { devnetServerFront, type NetworkFront } from '../support/network-fronts.ts';

const race = suite<{ front: NetworkFront }>('a fetch racing a gc that deletes the packs it replaced (git walrus devnet server)');

race.before(async (context) => {
  context.front = await devnetServerFront.open();
});

race.after(async ({ front }) => {
  await front.close();
});

const DELETABLE = { GIT_WALRUS_DELETABLE_PACKS: 'true' };

async function push(w: World, repo: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await commit(w, repo, `f${i % 2}.txt`, `${repo} ${Date.now()} ${i}\n`);
    const run = await w.run(repo, ['push', '-q', 'walrus', 'main'], { env: DELETABLE });
    assert.is(run.code, 0, run.stderr);
  }
}

/** `git walrus gc walrus` in `repo`, to run just before the first blob read of the command given this environment. */
function gcBeforeFirstRead(w: World, repo: string, log: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...w.env, ...DELETABLE };
  delete env.NODE_OPTIONS;
  return beforeBlobReadEnv({ command: 'git', args: ['walrus', 'gc', 'walrus'], cwd: w.path(repo), env }, log);
}

race('git pull and git clone succeed at once when a gc deleted the packs they had read of', async ({ front }) => {
  const w = front.world();
  try {
    const src = await initWorkRepo(w, 'src');
    await walrusInit(w, src, 'raced');
    const url = (await w.ok(src, ['remote', 'get-url', 'walrus'])).trim();
    await push(w, src, 1);
    await w.ok('.', ['clone', '-q', url, 'behind']);
    await push(w, src, 2);

    // The clone behind needs packs 1 and 2; the gc replaces packs 0-2 with pack 3 and deletes them under it.
    const pullLog = w.path('gc-during-pull.log');
    const pull = await w.run('behind', ['pull', '-q', '--ff-only'], { env: gcBeforeFirstRead(w, src, pullLog) });
    const pullGc = readFileSync(pullLog, 'utf8');
    assert.match(pullGc, /^status 0$/m);
    assert.match(pullGc, /^repacked 3 live pack\(s\) into pack #3: /m);
    assert.match(pullGc, /^deleted 3 replaced blob\(s\)/m);
    assert.is(pull.code, 0, pull.stderr);
    assert.is(await w.ok('behind', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'HEAD']));
    await w.ok('behind', ['fsck', '--strict', '--no-dangling']);

    // A new clone of packs 3-5, when a second gc replaces them with pack 6.
    await push(w, src, 2);
    const cloneLog = w.path('gc-during-clone.log');
    const clone = await w.run('.', ['clone', '-q', url, 'fresh'], { env: gcBeforeFirstRead(w, src, cloneLog) });
    const cloneGc = readFileSync(cloneLog, 'utf8');
    assert.match(cloneGc, /^status 0$/m);
    assert.match(cloneGc, /^repacked 3 live pack\(s\) into pack #6: /m);
    assert.match(cloneGc, /^deleted 3 replaced blob\(s\)/m);
    assert.is(clone.code, 0, clone.stderr);
    assert.is(await refsOf(w, 'fresh', 'refs/heads/'), await refsOf(w, src, 'refs/heads/'));
    await w.ok('fresh', ['fsck', '--strict', '--no-dangling']);
    const verify = await w.run(src, ['walrus', 'verify', 'walrus']);
    assert.is(verify.code, 0, verify.stdout + verify.stderr);
  } finally {
    w.remove();
  }
});

race.run();
