import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commit, createWorld, initWorkRepo, refsOf, walrusInit } from '../../scripts/harness/world.ts';

const sha256 = suite('SHA-256 repositories');

sha256('push and clone keep the object format; a SHA-1 push to a SHA-256 remote is refused clearly', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src', 'sha256');
    await commit(w, src, 'a.txt', 'one\n');
    await w.ok(src, ['tag', '-a', 'v1', '-m', 'v1']);
    await commit(w, src, 'b.txt', 'two\n');
    const url = await walrusInit(w, src, 'modern');
    const push = await w.run(src, ['push', 'walrus', 'main', 'v1']);
    assert.is(push.code, 0, push.stderr);
    assert.match(await w.ok(src, ['ls-remote', 'walrus']), /^[0-9a-f]{64}\tHEAD$/m);

    const clone = await w.run('.', ['clone', url, 'copy']);
    assert.is(clone.code, 0, clone.stderr);
    assert.is(await w.ok('copy', ['rev-parse', '--show-object-format']), 'sha256');
    assert.is(await w.ok('copy', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'HEAD']));
    assert.is(await refsOf(w, 'copy', 'refs/tags/'), await refsOf(w, src, 'refs/tags/'));
    await w.ok('copy', ['fsck', '--strict']);

    const old = await initWorkRepo(w, 'old', 'sha1');
    await commit(w, old, 'c.txt', 'three\n');
    await w.ok(old, ['remote', 'add', 'walrus', url]);
    const mismatch = await w.run(old, ['push', 'walrus', 'main:refs/heads/old']);
    assert.is.not(mismatch.code, 0);
    assert.match(mismatch.stderr, /sha256|sha1|object format/i);
    assert.not.match(mismatch.stderr, /^\s+at /m);
  } finally { w.remove(); }
});

sha256.run();
