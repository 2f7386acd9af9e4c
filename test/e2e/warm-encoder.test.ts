import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createWorld, initWorkRepo, walrusInit } from '../../scripts/harness/world.ts';

const warm = suite('the warm encoder through git and `git walrus daemon`');

warm('with walrus.warmEncoder the first push starts the daemon, the next push\'s ids come from it, and `daemon stop` ends it', async () => {
  const w = createWorld('walrus-warm-e2e-', { GIT_WALRUS_WARM_ENCODER: 'true' });
  const status = async () => JSON.parse((await w.ok('.', ['walrus', 'daemon', 'status', '--json']))) as { ids: number; pid: number } | null;
  try {
    const none = await w.run('.', ['walrus', 'daemon', 'status']);
    assert.is(none.code, 0, none.stderr);
    assert.match(none.stdout, /^no warm encoder runs \(socket .*run\/encoder\.sock\); with walrus\.warmEncoder set, the next push starts it$/m);
    const src = await initWorkRepo(w, 'src');
    const url = await walrusInit(w, src, 'warm');
    await commit(w, src, 'a.txt', 'a\n');
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    let running = null;
    for (let i = 0; i < 200 && running === null; i++) {
      running = await status();
      if (running === null) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(running, 'the first push started the daemon');
    await commit(w, src, 'b.txt', 'b\n');
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    const after = (await status())!;
    assert.ok(after.ids >= 1, `the second push's pack id came from the daemon (${after.ids})`);
    assert.is(after.pid, running.pid);
    const shown = await w.ok('.', ['walrus', 'daemon', 'status']);
    assert.match(shown, new RegExp(`^warm encoder: pid ${after.pid}, socket \\S+encoder\\.sock$`, 'm'));
    assert.match(shown, /^ids computed: \d+ \(\d+\.\d s of encoding\); encoders built for 50 shard count\(s\)$/m);
    const clone = await w.run('.', ['clone', '-q', url, 'copy']);
    assert.is(clone.code, 0, clone.stderr);
    assert.is(await w.ok('copy', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'HEAD']));
    assert.is(await w.ok('.', ['walrus', 'daemon', 'stop']), 'warm encoder stopped');
    assert.is(await status(), null);
    assert.is(await w.ok('.', ['walrus', 'daemon', 'stop']), 'no warm encoder runs');
  } finally {
    await w.run('.', ['walrus', 'daemon', 'stop']);
    w.remove();
  }
});

warm.run();
