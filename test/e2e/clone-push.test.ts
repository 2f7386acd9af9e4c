import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { commit, createWorld, initWorkRepo, refsOf, walrusInit } from '../../scripts/harness/world.ts';

const readme = suite('README flow');

readme('init, push, clone back byte-for-byte with every ref, fsck clean', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    await commit(w, src, 'a.txt', 'alpha\n');
    await w.ok(src, ['checkout', '-q', '-b', 'topic']);
    await commit(w, src, 'b.txt', 'beta\n');
    await w.ok(src, ['checkout', '-q', 'main']);
    await commit(w, src, 'c.txt', 'gamma\n');
    await w.ok(src, ['tag', 'light']);
    await w.ok(src, ['tag', '-a', 'v1.0', '-m', 'release']);
    const url = await walrusInit(w, src, 'myapp');
    assert.match(url, /^walrus:\/\/0x[0-9a-f]{64}$/);
    assert.is(await w.ok(src, ['remote', 'get-url', 'walrus']), url);

    const push = await w.run(src, ['push', 'walrus', '--all']);
    assert.is(push.code, 0, push.stderr);
    assert.match(push.stderr, /\* \[new branch\]\s+main -> main/);
    assert.is(push.stdout, '');
    assert.is((await w.run(src, ['push', 'walrus', '--tags'])).code, 0);

    const clone = await w.run('.', ['clone', url, 'copy']);
    assert.is(clone.code, 0, clone.stderr);
    assert.is(await w.ok('copy', ['rev-parse', '--abbrev-ref', 'HEAD']), 'main');
    assert.is(readFileSync(w.path('copy', 'c.txt'), 'utf8'), 'gamma\n');
    assert.is(await refsOf(w, 'copy', 'refs/tags/'), await refsOf(w, src, 'refs/tags/'));
    const remoteBranches = (await refsOf(w, 'copy', 'refs/remotes/origin/')).replace(/refs\/remotes\/origin\//g, 'refs/heads/').split('\n').filter((l) => !l.endsWith('/HEAD')).join('\n');
    assert.is(remoteBranches, await refsOf(w, src, 'refs/heads/'));
    await w.ok('copy', ['fsck', '--strict', '--no-dangling']);
    const lsRemote = await w.ok(src, ['ls-remote', 'walrus']);
    assert.match(lsRemote, new RegExp(`${await w.ok(src, ['rev-parse', 'main'])}\\tHEAD`));
    assert.match(lsRemote, new RegExp(`${await w.ok(src, ['rev-parse', 'v1.0'])}\\trefs/tags/v1.0`));

    const whoami = await w.ok(src, ['walrus', 'whoami']);
    assert.match(whoami, /^0x[0-9a-f]{64}\nnetwork: local$/);
    // The owner/name form names the same repository.
    const byName = `walrus://${whoami.split('\n')[0]}/myapp`;
    assert.is(await w.ok('.', ['ls-remote', byName]), lsRemote);
    await w.ok('.', ['clone', '-q', byName, 'by-name']);
    assert.is(await w.ok('by-name', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'main']));
  } finally { w.remove(); }
});

readme('a repository on master: init points HEAD there, so a clone checks out master', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    await w.ok(src, ['branch', '-m', 'main', 'master']);
    await commit(w, src, 'a.txt', 'alpha\n');
    const init = await w.run(src, ['walrus', 'init', 'legacy']);
    assert.is(init.code, 0, init.stderr);
    assert.match(init.stderr, /git push walrus master/);
    assert.is((await w.run(src, ['push', 'walrus', 'master'])).code, 0);
    const clone = await w.run('.', ['clone', init.stdout.trim().split('\n').at(-1)!, 'copy']);
    assert.is(clone.code, 0, clone.stderr);
    assert.not.match(clone.stderr, /remote HEAD refers to nonexistent ref/);
    assert.is(await w.ok('copy', ['rev-parse', '--abbrev-ref', 'HEAD']), 'master');
    assert.is(await w.ok('copy', ['rev-parse', 'HEAD']), await w.ok(src, ['rev-parse', 'master']));
  } finally { w.remove(); }
});

const t5801 = suite('t5801 scenarios');

t5801('fetch a new branch, push a new branch, tags, force, delete, no changes, fetch after an update, prune', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    await commit(w, src, 'a.txt', 'one\n');
    const url = await walrusInit(w, src, 'proj');
    const quietPush = await w.run(src, ['push', '-q', 'walrus', 'main']);
    assert.is(quietPush.code, 0, quietPush.stderr);
    const quietClone = await w.run('.', ['clone', '-q', url, 'clone']);
    assert.is(quietClone.code, 0, quietClone.stderr);
    assert.is(quietPush.stderr + quietClone.stderr + quietPush.stdout + quietClone.stdout, '', '-q silences the helper');

    // fetch new branch
    await w.ok(src, ['checkout', '-q', '-b', 'new']);
    const newTip = await commit(w, src, 'n.txt', 'new\n');
    await w.ok(src, ['push', '-q', 'walrus', 'new']);
    await w.ok('clone', ['fetch', '-q']);
    assert.is(await w.ok('clone', ['rev-parse', 'origin/new']), newTip);

    // push new branch from the clone
    await w.ok('clone', ['checkout', '-q', '-b', 'from-clone']);
    const cloneTip = await commit(w, 'clone', 'c.txt', 'clone\n');
    const pushNew = await w.run('clone', ['push', 'origin', 'from-clone']);
    assert.is(pushNew.code, 0, pushNew.stderr);
    assert.match(await w.ok(src, ['ls-remote', 'walrus', 'refs/heads/from-clone']), new RegExp(cloneTip));

    // push tags: lightweight and annotated
    await w.ok(src, ['tag', 'lw']);
    await w.ok(src, ['tag', '-a', 'ann', '-m', 'annotated']);
    await w.ok(src, ['push', '-q', 'walrus', '--tags']);
    await w.ok('clone', ['fetch', '-q', '--tags']);
    assert.is(await w.ok('clone', ['rev-parse', 'ann']), await w.ok(src, ['rev-parse', 'ann']));
    assert.is(await w.ok('clone', ['cat-file', '-t', 'ann']), 'tag');
    assert.is(await w.ok('clone', ['rev-parse', 'lw']), newTip);

    // force push
    await w.ok(src, ['commit', '-q', '--amend', '-m', 'rewritten']);
    const rejected = await w.run(src, ['push', 'walrus', 'new']);
    assert.is.not(rejected.code, 0);
    assert.match(rejected.stderr, /\[rejected\]\s+new -> new \(non-fast-forward\)/);
    const forced = await w.run(src, ['push', '-f', 'walrus', 'new']);
    assert.is(forced.code, 0, forced.stderr);
    assert.match(forced.stderr, /\+ [0-9a-f]+\.\.\.[0-9a-f]+ new -> new \(forced update\)/);
    const rewritten = await w.ok(src, ['rev-parse', 'new']);
    assert.match(await w.ok(src, ['ls-remote', 'walrus', 'refs/heads/new']), new RegExp(rewritten));

    // push with no changes
    const noop = await w.run(src, ['push', 'walrus', 'new']);
    assert.is(noop.code, 0);
    assert.match(noop.stderr, /Everything up-to-date/);
    w.takeStats();

    // delete, then prune in the clone
    const del = await w.run(src, ['push', 'walrus', '--delete', 'new']);
    assert.is(del.code, 0, del.stderr);
    assert.match(del.stderr, /- \[deleted\]\s+new/);
    assert.is(w.takeStats().reduce((n, s) => n + s.blobWrites, 0), 0, 'a delete stores no blob');
    assert.is(await w.ok(src, ['ls-remote', 'walrus', 'refs/heads/new']), '');
    await w.ok('clone', ['fetch', '-q', '--prune']);
    assert.is((await w.run('clone', ['rev-parse', '--verify', '-q', 'origin/new'])).code, 1);

    // fetch after a remote update: pull
    await w.ok(src, ['checkout', '-q', 'main']);
    const mainTip = await commit(w, src, 'b.txt', 'two\n');
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    await w.ok('clone', ['checkout', '-q', 'main']);
    const pull = await w.run('clone', ['pull', '-q', '--ff-only']);
    assert.is(pull.code, 0, pull.stderr);
    assert.is(await w.ok('clone', ['rev-parse', 'HEAD']), mainTip);

    // a fetch with nothing new: the Repository object alone (its seq has not moved since the refs this clone kept),
    // no blob read, no transaction
    w.takeStats();
    await w.ok('clone', ['fetch', '-q']);
    const stats = w.takeStats();
    assert.is(stats.length, 1);
    assert.is(stats[0].chainReads, 1);
    assert.is(stats[0].blobReads, 0);
    assert.is(stats[0].transactions, 0);
    await w.ok('clone', ['fsck', '--strict']);

    // another clone pushes: seq moves, and the next fetch sees the new refs
    const later = await commit(w, src, 'd.txt', 'three\n');
    await w.ok(src, ['push', '-q', 'walrus', 'main']);
    w.takeStats();
    await w.ok('clone', ['fetch', '-q']);
    assert.is(await w.ok('clone', ['rev-parse', 'origin/main']), later);
    assert.ok(w.takeStats()[0].chainReads > 1, 'a moved seq pages the refs again');
  } finally { w.remove(); }
});

t5801('cloning an empty repository warns as git does', async () => {
  const w = createWorld();
  try {
    const src = await initWorkRepo(w, 'src');
    const url = await walrusInit(w, src, 'empty');
    const clone = await w.run('.', ['clone', url, 'empty-clone']);
    assert.is(clone.code, 0, clone.stderr);
    assert.match(clone.stderr, /You appear to have cloned an empty repository/);
    assert.is(await w.ok('.', ['ls-remote', url]), '');
  } finally { w.remove(); }
});

readme.run();
t5801.run();
