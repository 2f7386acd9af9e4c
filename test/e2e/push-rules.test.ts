import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { readdirSync } from 'node:fs';
import { commit } from '../../scripts/harness/world.ts';
import { inPushedRepository } from '../support/pushed-repository.ts';

const rules = suite('push rules');

rules('fetch first, leases, atomic and dry runs answer in git words', async () => {
  await inPushedRepository('rules', { dir: 'a', file: 'f.txt', content: '1\n' }, async ({ world: w, repo: a, url, first: base }) => {
    await w.ok('.', ['clone', '-q', url, 'b']);
    await commit(w, a, 'f.txt', '2\n');
    await w.ok(a, ['push', '-q', 'walrus', 'main']);

    // b is behind and does not have a's commit: git's "fetch first"
    await commit(w, 'b', 'g.txt', 'b\n');
    const behind = await w.run('b', ['push', 'origin', 'main']);
    assert.is.not(behind.code, 0);
    assert.match(behind.stderr, /\[rejected\]\s+main -> main \(fetch first\)/);

    // a lease on a stale value is refused; on the real value it lands
    const stale = await w.run('b', ['push', `--force-with-lease=main:${base}`, 'origin', 'main']);
    assert.is.not(stale.code, 0);
    assert.match(stale.stderr, /\[rejected\]\s+main -> main \(stale info\)/);
    const remoteMain = (await w.ok('b', ['ls-remote', 'origin', 'refs/heads/main'])).split('\t')[0];
    const leased = await w.run('b', ['push', `--force-with-lease=main:${remoteMain}`, 'origin', 'main']);
    assert.is(leased.code, 0, leased.stderr);
    assert.is((await w.ok('b', ['ls-remote', 'origin', 'refs/heads/main'])).split('\t')[0], await w.ok('b', ['rev-parse', 'main']));

    // atomic: one refused ref refuses the other
    await w.ok(a, ['checkout', '-q', '-b', 'side']);
    await commit(w, a, 's.txt', 's\n');
    const atomic = await w.run(a, ['push', '--atomic', 'walrus', 'main', 'side']);
    assert.is.not(atomic.code, 0);
    assert.match(atomic.stderr, /atomic/);
    assert.is(await w.ok(a, ['ls-remote', 'walrus', 'refs/heads/side']), '');
    // without --atomic the good ref lands and the bad one is reported
    const partial = await w.run(a, ['push', 'walrus', 'main', 'side']);
    assert.is.not(partial.code, 0);
    assert.match(partial.stderr, /\* \[new branch\]\s+side -> side/);
    assert.match(partial.stderr, /\[rejected\]\s+main -> main/);

    // dry run: nothing stored, no transaction
    await w.ok(a, ['checkout', '-q', '-b', 'dry']);
    await commit(w, a, 'd.txt', 'd\n');
    w.takeStats();
    const dry = await w.run(a, ['push', '--dry-run', 'walrus', 'dry']);
    assert.is(dry.code, 0, dry.stderr);
    assert.match(dry.stderr, /\* \[new branch\]\s+dry -> dry/);
    const stats = w.takeStats();
    assert.is(stats.reduce((n, s) => n + s.blobWrites + s.transactions, 0), 0);
    assert.is(await w.ok(a, ['ls-remote', 'walrus', 'refs/heads/dry']), '');
  });
});

rules('writers and protected refs: a stranger is refused naming the owner; a writer may not force a protected ref', async () => {
  await inPushedRepository('guarded', { dir: 'a', file: 'f.txt', content: '1\n' }, async ({ world: w, repo: a, url }) => {
    const owner = (await w.ok(a, ['walrus', 'whoami'])).split('\n')[0];
    const stranger = new Ed25519Keypair();
    const asStranger = { env: { GIT_WALRUS_KEY: stranger.getSecretKey() } };
    await w.ok('.', ['clone', '-q', url, 'b'], asStranger);
    await commit(w, 'b', 'g.txt', 'b\n');

    const refused = await w.run('b', ['push', 'origin', 'main'], asStranger);
    assert.is.not(refused.code, 0);
    assert.match(refused.stderr, new RegExp(`\\[remote rejected\\]\\s+main -> main \\(permission denied: ${stranger.toSuiAddress()} is not a writer of this repository; its owner ${owner}`));

    await w.ok(a, ['walrus', 'writers', 'add', 'walrus', stranger.toSuiAddress()]);
    assert.match(await w.ok(a, ['walrus', 'writers', 'list', url]), new RegExp(`${owner} \\(owner\\)\\n${stranger.toSuiAddress()}`));
    await w.ok(a, ['walrus', 'protect', 'walrus', 'main']);
    const ff = await w.run('b', ['push', 'origin', 'main'], asStranger);
    assert.is(ff.code, 0, ff.stderr);

    await w.ok('b', ['commit', '-q', '--amend', '-m', 'rewrite']);
    const forced = await w.run('b', ['push', '-f', 'origin', 'main'], asStranger);
    assert.is.not(forced.code, 0);
    assert.match(forced.stderr, /\[remote rejected\]\s+main -> main \(refs\/heads\/main is protected: only the owner/);
    const del = await w.run('b', ['push', 'origin', '--delete', 'main'], asStranger);
    assert.is.not(del.code, 0);
    assert.match(del.stderr, /protected/);

    await w.ok(a, ['walrus', 'unprotect', 'walrus', 'main']);
    const after = await w.run('b', ['push', '-f', 'origin', 'main'], asStranger);
    assert.is(after.code, 0, after.stderr);

    await w.ok(a, ['walrus', 'writers', 'remove', 'walrus', stranger.toSuiAddress()]);
    assert.is(await w.ok(a, ['walrus', 'writers', 'list', 'walrus']), `${owner} (owner)`);
    await commit(w, 'b', 'h.txt', 'again\n');
    const removed = await w.run('b', ['push', 'origin', 'main'], asStranger);
    assert.is.not(removed.code, 0);
    assert.match(removed.stderr, /is not a writer/);
  });
});

rules('a ref name git accepts and the contract does not is refused before the pack is uploaded, with the contract\'s rule', async () => {
  await inPushedRepository('names', { dir: 'a', file: 'f.txt', content: '1\n' }, async ({ world: w, repo: a }) => {
    const blobs = () => readdirSync(w.path('walrus-home', 'local', 'walrus', 'blobs')).length;
    const before = blobs();
    await w.ok(a, ['checkout', '-q', '-b', 'feat']);
    await commit(w, a, 'g.txt', 'new content that needs a pack\n');
    for (const dst of ['refs/heads/ñ', 'refs/heads/café']) {
      const refused = await w.run(a, ['push', 'walrus', `feat:${dst}`]);
      assert.is.not(refused.code, 0);
      assert.match(refused.stderr, `feat -> ${dst.slice('refs/heads/'.length)} (invalid ref name: the contract takes printable ASCII only`);
      assert.not.match(refused.stderr, 'must be valid git ref names');
      assert.is(blobs(), before, `no pack was stored for ${dst}`);
    }
    // With --atomic the valid ref is refused with it, and nothing is stored either.
    const atomic = await w.run(a, ['push', '--atomic', 'walrus', 'feat', 'feat:refs/heads/ñ']);
    assert.is.not(atomic.code, 0);
    assert.match(atomic.stderr, /atomic push failed/);
    assert.is(blobs(), before);
    assert.is(await w.ok(a, ['ls-remote', 'walrus', 'refs/heads/feat']), '');
  });
});

rules('a ref that would stand beside another as file and directory is refused in git\'s words before any upload; the repository stays clonable', async () => {
  await inPushedRepository('clash', { dir: 'a', file: 'f.txt', content: '1\n' }, async ({ world: w, repo: a, url }) => {
    const blobs = () => readdirSync(w.path('walrus-home', 'local', 'walrus', 'blobs')).length;
    const before = blobs();
    await commit(w, a, 'g.txt', 'new content that needs a pack\n');
    const below = await w.run(a, ['push', 'walrus', 'HEAD:refs/heads/main/evil']);
    assert.is.not(below.code, 0);
    assert.match(below.stderr, "HEAD -> main/evil ('refs/heads/main' exists; cannot create 'refs/heads/main/evil')");
    const together = await w.run(a, ['push', 'walrus', 'HEAD:refs/heads/x', 'HEAD:refs/heads/x/y']);
    assert.match(together.stderr, "HEAD -> x/y (cannot process 'refs/heads/x' and 'refs/heads/x/y' at the same time)");
    assert.is(blobs(), before, 'no pack was stored');
    assert.is(await w.ok(a, ['ls-remote', 'walrus', 'refs/heads/main/*']), '');
    await w.ok('.', ['clone', '-q', url, 'b']);
  });
});

rules.run();
