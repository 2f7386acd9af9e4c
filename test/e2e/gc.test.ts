import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createWorld, initWorkRepo, refsOf, walrusInit } from '../../scripts/harness/world.ts';

const gc = suite('git walrus gc');

gc('consolidates ten pushes into one live pack: clone reads it alone, an old clone fetches past it, verify still proves the log', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    const url = await walrusInit(w, src, 'gc');
    for (let i = 0; i < 10; i++) {
      await commit(w, src, `f${i % 3}.txt`, `push ${i}\n`);
      assert.is((await w.run(src, ['push', '-q', 'walrus', 'main'])).code, 0);
    }
    await w.ok('.', ['clone', '-q', url, 'old']);

    const run = await w.run(src, ['walrus', 'gc', 'walrus']);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /^repacked 10 live pack\(s\) into pack #10: .* in 1 blob\(s\), seq 11$/m);
    const again = await w.run(src, ['walrus', 'gc', 'walrus']);
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stderr, /Nothing to do/);

    w.takeStats();
    await w.ok('.', ['clone', '-q', url, 'fresh']);
    const cloneStats = w.takeStats().filter((s) => s.role === 'helper');
    assert.is(cloneStats.reduce((sum, s) => sum + s.blobReads, 0), 1, 'one pack, one blob');
    assert.is(await refsOf(w, 'fresh', 'refs/heads/'), await refsOf(w, src, 'refs/heads/'));
    await w.ok('fresh', ['fsck', '--strict', '--no-dangling']);

    await commit(w, src, 'after.txt', 'after gc\n');
    assert.is((await w.run(src, ['push', '-q', 'walrus', 'main'])).code, 0);
    w.takeStats();
    await w.ok('old', ['pull', '-q', '--ff-only']);
    const fetchStats = w.takeStats().filter((s) => s.role === 'helper');
    assert.is(fetchStats.reduce((sum, s) => sum + s.blobReads, 0), 1, 'only the push after the gc');
    assert.is(await w.ok('old', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'HEAD']));

    const verify = await w.run(src, ['walrus', 'verify', '--deep', 'walrus']);
    assert.is(verify.code, 0, verify.stdout + verify.stderr);
    const log = await w.ok(src, ['walrus', 'log', 'walrus']);
    assert.match(log, /repack/i);

    // Anyone may renew the live packs: the consolidated pack and the push after it.
    const extend = await w.run(src, ['walrus', 'extend', 'walrus', '--epochs', '53']);
    assert.is(extend.code, 0, extend.stderr);
    assert.match(extend.stdout, /^extended [0-2] blob\(s\)( \(transaction \S+\))?, [0-2] already stored long enough; every live pack is stored until epoch \d+$/m);
    const warned = await w.run(src, ['walrus', 'log', 'walrus', '--expiry-warning', '100']);
    assert.match(warned.stderr, /warning: live pack #10 expires at Walrus epoch \d+ \(now \d+: \d+ epoch\(s\) left, blob \S+\); renew it with 'git walrus extend walrus'/);
  } finally { w.remove(); }
});

gc.run();
