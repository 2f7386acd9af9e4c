import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync } from 'node:fs';
import { Ed25519Keypair } from '@mysten/sui/keypairs/ed25519';
import { commit } from '../../scripts/harness/world.ts';
import { inPushedRepository } from '../support/pushed-repository.ts';

const PUSHERS = 10;

const concurrent = suite('concurrent pushers');

concurrent(`${PUSHERS} pushers to one branch: each lands as a fast-forward or hears "fetch first"; nothing is lost`, async () => {
  await inPushedRepository('busy', { dir: 'src', file: 'base.txt', content: 'base\n' }, async ({ world: w, repo: src, url, first: base }) => {
    await w.ok('.', ['clone', '-q', url, 'p0']);
    const names = Array.from({ length: PUSHERS }, (_, i) => `p${i}`);
    for (const name of names.slice(1)) cpSync(w.path('p0'), w.path(name), { recursive: true });
    // Ten people: each signs with their own key (one key's gas coin serves one transaction at a time).
    const keys = new Map(names.map((name) => [name, new Ed25519Keypair()]));
    for (const key of keys.values()) await w.ok(src, ['walrus', 'writers', 'add', 'walrus', key.toSuiAddress()]);
    const as = (name: string) => ({ env: { GIT_WALRUS_KEY: keys.get(name)!.getSecretKey() } });
    const tips = new Map<string, string>();
    for (const name of names) tips.set(name, await commit(w, name, `${name}.txt`, `${name}\n`, `work of ${name}`));

    const results = await Promise.all(names.map((name) => w.run(name, ['push', 'origin', 'main'], as(name))));
    const landed = names.filter((_, i) => results[i].code === 0);
    assert.ok(landed.length >= 1, 'at least one push lands');
    results.forEach((r, i) => {
      if (r.code !== 0) assert.match(r.stderr, /\[(remote )?rejected\]\s+main -> main \(fetch first\)/, `${names[i]}: ${r.stderr}`);
    });
    // Every landed push was a fast-forward of what it saw: the remote head descends from each landed commit.
    const head = () => w.ok('src', ['ls-remote', url, 'refs/heads/main']).then((l) => l.split('\t')[0]);
    await w.ok('src', ['fetch', '-q', 'walrus']);
    for (const name of landed) await w.ok('src', ['merge-base', '--is-ancestor', tips.get(name)!, 'walrus/main']);

    // The others integrate and push again; in the end the history holds all the work.
    for (const name of names.filter((n) => !landed.includes(n))) {
      await w.ok(name, ['pull', '-q', '--rebase', 'origin', 'main']);
      const retry = await w.run(name, ['push', 'origin', 'main'], as(name));
      assert.is(retry.code, 0, retry.stderr);
    }
    await w.ok('src', ['fetch', '-q', 'walrus']);
    assert.is(await w.ok('src', ['rev-parse', 'walrus/main']), await head());
    const subjects = (await w.ok('src', ['log', '--format=%s', 'walrus/main'])).split('\n');
    for (const name of names) assert.ok(subjects.includes(`work of ${name}`), `${name}'s commit is in the history`);
    await w.ok('src', ['merge-base', '--is-ancestor', base, 'walrus/main']);
    await w.ok('.', ['clone', '-q', url, 'final']);
    await w.ok('final', ['fsck', '--strict']);
  });
});

concurrent('pushers sharing ONE key: every push to its own branch lands; to one branch, each lands or hears "fetch first"', async () => {
  await inPushedRepository('one-key', { dir: 'src', file: 'base.txt', content: 'base\n' }, async ({ world: w, url }) => {
    await w.ok('.', ['clone', '-q', url, 'k0']);
    const branchers = ['k0', 'k1', 'k2', 'k3'];
    const mainers = ['k4', 'k5', 'k6'];
    for (const name of [...branchers, ...mainers].slice(1)) cpSync(w.path('k0'), w.path(name), { recursive: true });
    const tips = new Map<string, string>();
    for (const name of [...branchers, ...mainers]) tips.set(name, await commit(w, name, `${name}.txt`, `${name}\n`, `work of ${name}`));

    // Every process signs with the world's one key and spends the same gas coins.
    const pushes = [
      ...branchers.map((name) => w.run(name, ['push', 'origin', `HEAD:refs/heads/${name}`])),
      ...mainers.map((name) => w.run(name, ['push', 'origin', 'main'])),
    ];
    const results = await Promise.all(pushes);
    branchers.forEach((name, i) => assert.is(results[i].code, 0, `${name}: ${results[i].stderr}`));
    const mainResults = results.slice(branchers.length);
    const landed = mainers.filter((_, i) => mainResults[i].code === 0);
    assert.is(landed.length >= 1, true, 'at least one push to main lands');
    mainResults.forEach((r, i) => {
      if (r.code !== 0) assert.match(r.stderr, /\[(remote )?rejected\]\s+main -> main \(fetch first\)/, `${mainers[i]}: ${r.stderr}`);
    });

    // Nothing lost: each branch holds its pusher's commit, main holds a landed one, and the history is whole.
    const remote = new Map((await w.ok('src', ['ls-remote', url])).split('\n').map((line) => line.split('\t').reverse() as [string, string]));
    for (const name of branchers) assert.is(remote.get(`refs/heads/${name}`), tips.get(name), `${name}'s branch`);
    assert.ok(landed.map((name) => tips.get(name)).includes(remote.get('refs/heads/main')), 'main is a landed commit');
    await w.ok('.', ['clone', '-q', url, 'final']);
    await w.ok('final', ['fsck', '--strict']);
  });
});

concurrent.run();
