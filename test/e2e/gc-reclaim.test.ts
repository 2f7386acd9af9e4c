import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createWorld, initWorkRepo, refsOf, walrusInit } from '../../scripts/harness/world.ts';

const reclaim = suite('git walrus gc: deleting what it replaced');

reclaim('packs pushed deletable are deleted after the gc; clones old and new still work; permanent packs are kept and said so', async () => {
  const w = createWorld();
  try {
    const deletable = { GIT_WALRUS_DELETABLE_PACKS: 'true' };
    const src = await initWorkRepo(w, 'src');
    const url = await walrusInit(w, src, 'reclaim');
    for (let i = 0; i < 3; i++) {
      await commit(w, src, `f${i}.txt`, `push ${i}\n`);
      assert.is((await w.run(src, ['push', '-q', 'walrus', 'main'], { env: deletable })).code, 0);
    }
    await w.ok('.', ['clone', '-q', url, 'old']);
    await commit(w, src, 'permanent.txt', 'pushed permanent\n');
    assert.is((await w.run(src, ['push', '-q', 'walrus', 'main'])).code, 0);

    const run = await w.run(src, ['walrus', 'gc', 'walrus'], { env: deletable });
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /^repacked 4 live pack\(s\) into pack #4: .*$/m);
    assert.match(run.stdout, /^deleted 3 replaced blob\(s\), reclaiming \S+ \S+ of Walrus storage \(transaction \S+\); kept 1 permanent \(they stay until their end epoch\)$/m);

    await w.ok('.', ['clone', '-q', url, 'fresh']);
    assert.is(await refsOf(w, 'fresh', 'refs/heads/'), await refsOf(w, src, 'refs/heads/'));
    await w.ok('fresh', ['fsck', '--strict', '--no-dangling']);
    // The clone from before the gc fetches past it from the consolidated pack, not from the deleted ones.
    await w.ok('old', ['pull', '-q', '--ff-only']);
    assert.is(await w.ok('old', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'HEAD']));
    const verify = await w.run(src, ['walrus', 'verify', 'walrus']);
    assert.is(verify.code, 0, verify.stdout + verify.stderr);

    const again = await w.run(src, ['walrus', 'gc', 'walrus']);
    assert.match(again.stderr, /Nothing to do/);
  } finally { w.remove(); }
});

reclaim.run();
