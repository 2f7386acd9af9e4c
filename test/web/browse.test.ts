/**
 * `git walrus web`'s code browsing and its links with the push log, on the world of test/support/browse-world.ts:
 * a corrupt pack and a SHA-256 repository, line links, file history, pictures, Markdown files, raw text, the ref
 * picker and version-sorted tags, and which push brought each commit.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { buildBrowseWorld, type BrowseWorld } from '../support/browse-world.ts';
import { get, ok, startWeb, text, verified, type WebProcess } from '../support/web.ts';

let w: BrowseWorld;
let web: WebProcess;

const Browse = suite('git walrus web: code browsing');
Browse.before(async () => {
  w = await buildBrowseWorld();
  web = await startWeb(w.world, [], w.keys.owner);
});
Browse.after(async () => {
  await web?.stop();
  w?.world.remove();
});

Browse('a corrupt pack: a page that says so (502), with the tabs; the chain\'s pages still show', async () => {
  for (const path of [`/repos/${w.broken.id}`, `/repos/${w.broken.id}/commits`, `/repos/${w.broken.id}/tree?path=a.txt`]) {
    const page = await get(web, path);
    assert.is(page.status, 502, `${path}: ${page.status}`);
    const plain = text(page.text);
    assert.match(plain, new RegExp(`Contents unreadable cannot read the contents of repository ${w.broken.id}: pack 1 of repository ${w.broken.id} is corrupt: its bytes hash to sha256 [0-9a-f]{64}, but the chain records [0-9a-f]{64}`));
    assert.match(plain, /push log says which push's pack fails/);
    assert.match(page.text, /<nav class="tabs">/, `${path} keeps the repository's tabs`);
    assert.match(page.text, new RegExp(`<a href="/repos/${w.broken.id}/pushes">Push log</a>`));
  }
  assert.match(text(await ok(web, `/repos/${w.broken.id}/pushes`)), /push 2 /);
  assert.match(text(await ok(web, `/repos/${w.broken.id}/access`)), /owner/);
  const badges = await verified(web, w.broken.id);
  assert.equal(badges.map((b) => [b.seq, b.state]), [[1, 'verified'], [2, 'failed']]);
});

Browse('a SHA-256 repository: browsed (its root commit\'s diff too) and verified', async () => {
  const commits = await ok(web, `/repos/${w.wide.id}/commits`);
  const oids = [...commits.matchAll(/>([0-9a-f]{64})<\/a>/g)].map((m) => m[1]!);
  assert.is(oids.length, 2);
  assert.is(oids[0], w.wide.commit);
  const root = text(await ok(web, `/repos/${w.wide.id}/commit/${oids[1]}`));
  assert.match(root, /parents none \(a root commit\)/);
  assert.match(root, /Files changed \(1\) \+3 −0 README\.md \+3 −0/);
  assert.match(text(await ok(web, `/repos/${w.wide.id}/tree?path=README.md`)), /Object ids of 64 hex digits\./);
  const badges = await verified(web, w.wide.id);
  assert.equal(badges.map((b) => [b.seq, b.state]), [[1, 'verified']]);
  const log = text(await ok(web, `/repos/${w.wide.id}/pushes`));
  assert.match(log, /verify: every check holds/);
  assert.match(log, /the history check reads SHA-1 repositories only, and this one uses SHA-256/);
});

Browse.run();
