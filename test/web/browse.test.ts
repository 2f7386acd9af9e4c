/**
 * `git walrus web`'s code browsing and its links with the push log, on the world of test/support/browse-world.ts:
 * a corrupt pack and a SHA-256 repository, line links, file history, pictures, Markdown files, raw text, the ref
 * picker and version-sorted tags, and which push brought each commit.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { REPO_ROOT } from '../../scripts/harness/world.ts';
import { axeFindings } from '../support/axe.ts';
import { GitObjectCache } from '../../src/git/object-cache.ts';
import { markdownHtml } from '../../src/web/pages/code.ts';
import { PNG, SVG, buildBrowseWorld, type BrowseWorld } from '../support/browse-world.ts';
import { get, ok, startWeb, text, verified, type WebProcess } from '../support/web.ts';

const SCREENSHOTS = join(REPO_ROOT, 'test-output', 'web');

let w: BrowseWorld;
let web: WebProcess;

const Browse = suite('git walrus web: code browsing');
Browse.before(async () => {
  w = await buildBrowseWorld();
  web = await startWeb(w.world, [], w.keys.owner);
});
Browse.after(async () => {
  await web?.stop();
  await w?.gateway.close();
  w?.world.remove();
});

Browse('a corrupt pack: a page that says so (502), with the tabs; the chain\'s pages still show', async () => {
  for (const path of [`/repos/${w.broken.id}`, `/repos/${w.broken.id}/commits`, `/repos/${w.broken.id}/tree?path=a.txt`]) {
    const page = await get(web, path);
    assert.is(page.status, 502, `${path}: ${page.status}`);
    const plain = text(page.text);
    assert.match(plain, new RegExp(`Contents unreadable cannot read the contents of repository ${w.broken.id}: pack 1 of repository ${w.broken.id} is corrupt: its bytes hash to sha256 [0-9a-f]{64}, but the chain records [0-9a-f]{64}`));
    assert.match(plain, /push log says which push's pack fails/);
    assert.match(page.text, /<nav class="tabs" aria-label="Repository">/, `${path} keeps the repository's tabs`);
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

Browse('a file\'s lines are numbered rows, each its own anchor; a comment over two lines stays well-formed', async () => {
  const page = await ok(web, `/repos/${w.docs.id}/tree?path=lines.js`);
  const rows = [...page.matchAll(/<tr id="L(\d+)"><td class="line-no"><a href="#L\1">\1<\/a><\/td><td class="line"><code>(.*?)<\/code><\/td><\/tr>/g)];
  assert.is(rows.length, 60, 'thirty statements of two lines each, and no empty row for the final newline');
  assert.equal(rows.slice(0, 2).map((row) => row[2]), [
    '<span class="hljs-keyword">const</span> line1 = <span class="hljs-number">1</span>; <span class="hljs-comment">/* a comment</span>',
    '<span class="hljs-comment">   over two lines */</span>',
  ]);
});

Browse('a file\'s history lists the commits that changed it, newest first; a folder\'s and the root\'s too', async () => {
  const { commits } = w.docs;
  const oids = (page: string) => [...page.matchAll(/class="mono sha"><a href="[^"]+">([0-9a-f]{40})<\/a>/g)].map((m) => m[1]);
  const notes = await ok(web, `/repos/${w.docs.id}/history?path=notes.txt`);
  assert.equal(oids(notes), [commits.fourthB, commits.third, commits.first]);
  assert.match(text(notes), /History of notes\.txt/);
  assert.equal(oids(await ok(web, `/repos/${w.docs.id}/history?path=pixel.png`)), [commits.second]);
  assert.equal(oids(await ok(web, `/repos/${w.docs.id}/history?ref=${commits.third}&path=notes.txt`)), [commits.third, commits.first]);
  assert.equal(oids(await ok(web, `/repos/${w.docs.id}/history`)).length, 4);
  assert.match(await ok(web, `/repos/${w.docs.id}/tree?path=notes.txt`), new RegExp(`href="/repos/${w.docs.id}/history\\?ref=refs%2Fheads%2Fmain&amp;path=notes\\.txt">History</a>`));
  assert.is((await get(web, `/repos/${w.docs.id}/history?path=nope.txt`)).status, 404);
});

Browse('blame: each line\'s last commit, author and date, linked to the commit and to the push that brought it', async () => {
  const { commits } = w.moved;
  const id = w.moved.id;
  const page = await ok(web, `/repos/${id}/blame?path=src/new.js`);
  const rows = [...page.matchAll(/<tr id="L(\d+)"[^>]*><td class="blame-cell">(.*?)<\/td><td class="line-no">/gs)].map((m) => [Number(m[1]), text(m[2]!).trim()]);
  const author = (await w.world.ok('moved', ['log', '-1', '--format=%an'])).trim();
  const day = (oid: string) => w.world.ok('moved', ['log', '-1', '--format=%ad', '--date=format-local:%Y-%m-%d', oid], { env: { TZ: 'UTC' } }).then((out) => out.trim());
  assert.equal(rows, [
    [1, `${commits.add!.slice(0, 12)} add old.js ${author} · ${await day(commits.add!)} · push 1`],
    [2, `${commits.change!.slice(0, 12)} b is twenty ${author} · ${await day(commits.change!)} · push 1`],
    [3, `${commits.writer!.slice(0, 12)} c is thirty ${author} · ${await day(commits.writer!)} · push 2`],
  ]);
  assert.match(page, new RegExp(`<a class="mono" href="/repos/${id}/commit/${commits.writer}">`));
  assert.match(page, new RegExp(`<a href="/repos/${id}/pushes#push-2">push 2</a>`));
  assert.match(page, /<td class="line"><code><span class="hljs-keyword">const<\/span> c = <span class="hljs-number">30<\/span>;<\/code>/);
  // At an older ref, under the old name; the file page links its blame.
  assert.match(text(await ok(web, `/repos/${id}/blame?ref=${commits.change}&path=old.js`)), new RegExp(`${commits.change!.slice(0, 12)} b is twenty`));
  assert.match(await ok(web, `/repos/${id}/tree?path=src/new.js`), new RegExp(`<a class="blame-link" href="/repos/${id}/blame\\?ref=refs%2Fheads%2Fmain&amp;path=src%2Fnew\\.js">Blame</a>`));
  assert.match(text(await ok(web, `/repos/${w.docs.id}/blame?path=pixel.png`)), /Binary file \(\d+ bytes\): it has no lines to blame/);
  assert.is((await get(web, `/repos/${id}/blame?path=src`)).status, 404, 'a folder has no blame');
  assert.is((await get(web, `/repos/${id}/blame?path=nope.js`)).status, 404);
});

Browse('blame looks a bounded number of commits back and says where it stopped', async () => {
  const { commits } = w.moved;
  const cache = new GitObjectCache({ dir: w.world.path('blame-cache'), env: process.env });
  const objects = await cache.open(w.moved.id, w.world.path('moved'), new Map([['refs/heads/main', commits.writer!]]), 'refs/heads/main');
  const whole = await objects.blame(commits.writer!, 'src/new.js', 100);
  assert.equal(whole.lines, [commits.add, commits.change, commits.writer]);
  assert.is(whole.stoppedAt, null);
  // Two commits back from the writer's is the change of b: lines older than it are blamed on it, and it is named.
  const bounded = await objects.blame(commits.writer!, 'src/new.js', 2);
  assert.equal(bounded.lines, [commits.change, commits.change, commits.writer]);
  assert.is(bounded.stoppedAt, commits.change);
  assert.is(bounded.commits.get(commits.change!)!.path, 'old.js');
});

Browse('a file\'s history follows it across a rename, saying under which name each commit changed it', async () => {
  const { commits } = w.moved;
  const id = w.moved.id;
  const page = await ok(web, `/repos/${id}/history?path=src/new.js`);
  const oids = [...page.matchAll(/class="mono sha"><a href="[^"]+">([0-9a-f]{40})<\/a>/g)].map((m) => m[1]);
  assert.equal(oids, [commits.writer, commits.rename, commits.change, commits.add]);
  const plain = text(page);
  assert.match(plain, /History of src\/new\.js \(following renames\)/);
  assert.match(plain, /move old\.js to src\/new\.js .* renamed from old\.js/);
  assert.match(plain, /b is twenty .* as old\.js/);
  assert.match(page, new RegExp(`renamed from <a class="mono" href="/repos/${id}/tree\\?ref=${commits.change}&amp;path=old\\.js">old\\.js</a>`));
  const folder = await ok(web, `/repos/${id}/history?path=src`);
  assert.equal([...folder.matchAll(/class="mono sha"><a href="[^"]+">([0-9a-f]{40})<\/a>/g)].map((m) => m[1]), [commits.writer, commits.rename], 'a folder\'s history does not follow');
});

Browse('pictures are shown inline from this server, each raw with its own type; SVG only as an image', async () => {
  const png = await ok(web, `/repos/${w.docs.id}/tree?path=pixel.png`);
  assert.match(png, new RegExp(`<img src="/repos/${w.docs.id}/raw\\?ref=refs%2Fheads%2Fmain&amp;path=pixel\\.png" alt="pixel\\.png">`));
  const raw = await fetch(new URL(`/repos/${w.docs.id}/raw?path=pixel.png`, web.url));
  assert.is(raw.headers.get('content-type'), 'image/png');
  assert.is(raw.headers.get('x-content-type-options'), 'nosniff');
  assert.match(raw.headers.get('content-disposition') ?? '', /^inline;/);
  assert.equal(Buffer.from(await raw.arrayBuffer()), PNG);
  assert.match(await ok(web, `/repos/${w.docs.id}/tree?path=drawing.svg`), /<img src="[^"]+path=drawing\.svg" alt="drawing\.svg">/);
  const svg = await fetch(new URL(`/repos/${w.docs.id}/raw?path=drawing.svg`, web.url));
  assert.is(svg.headers.get('content-type'), 'image/svg+xml');
  assert.match(svg.headers.get('content-disposition') ?? '', /^attachment; filename\*=UTF-8''drawing\.svg$/, 'opened by itself, an SVG is a download, never a page of this origin');
  assert.match(svg.headers.get('content-security-policy') ?? '', /default-src 'none'; sandbox/);
  assert.is(await svg.text(), SVG);
});

Browse('in Chromium, under the page\'s CSP: the PNG, the SVG and the Markdown file\'s relative image show; the SVG\'s script never runs; a bare #id lands on its README heading; blame, a renamed file\'s history and the answering lease pass axe-core', async () => {
  const executablePath = execFileSync(join(REPO_ROOT, 'test', 'web', 'chromium.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  const browser = await chromium.launch({ executablePath, args: ['--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  try {
    const tab = await browser.newPage();
    for (const [name, width] of [['pixel.png', 1], ['drawing.svg', 10], ['GUIDE.md', 1]] as const) {
      await tab.goto(new URL(`/repos/${w.docs.id}/tree?path=${name}`, web.url).href);
      await tab.waitForLoadState('load');
      const shown = await tab.evaluate(() => [...(globalThis as unknown as { document: { images: Array<{ naturalWidth: number }> } }).document.images].map((image) => image.naturalWidth));
      assert.equal(shown, [width], `${name}: the picture is loaded and decoded`);
    }
    assert.is(await tab.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
    // A README's heading ids are prefixed; the bare id (a typed address, a link from elsewhere) lands on it all the same.
    const headingTop = () => tab.evaluate(() => {
      const { document, scrollY } = globalThis as unknown as { document: { getElementById(id: string): { getBoundingClientRect(): { top: number } } | null }; scrollY: number };
      return { top: Math.round(document.getElementById('user-content-install')!.getBoundingClientRect().top), scrollY };
    });
    await tab.goto(new URL(`/repos/${w.docs.id}#install`, web.url).href);
    await tab.waitForLoadState('load');
    const landed = await headingTop();
    assert.ok(landed.scrollY > 0 && Math.abs(landed.top) <= 2, `#install lands on its heading: ${JSON.stringify(landed)}`);
    await tab.goto(new URL(`/repos/${w.docs.id}#user-content-about`, web.url).href);
    await tab.evaluate(() => { (globalThis as unknown as { location: { hash: string } }).location.hash = '#install'; });
    await tab.waitForFunction(() => Math.abs((globalThis as unknown as { document: { getElementById(id: string): { getBoundingClientRect(): { top: number } } } }).document.getElementById('user-content-install').getBoundingClientRect().top) <= 2);
    // This world's pages (the blame, a history across a rename, the lease with its answering gateway): screenshots,
    // and axe-core's findings of every impact, at both widths.
    mkdirSync(SCREENSHOTS, { recursive: true });
    const findings: string[] = [];
    for (const width of [1280, 375]) {
      await tab.setViewportSize({ width, height: 900 });
      for (const [name, path] of [['blame', `/repos/${w.moved.id}/blame?path=src/new.js`], ['history-renamed', `/repos/${w.moved.id}/history?path=src/new.js`], ['lease-gateway', `/market/leases/${w.lease.id}`]] as const) {
        await tab.goto(new URL(path, web.url).href);
        await tab.waitForLoadState('load');
        const pageWidth = await tab.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
        assert.ok(pageWidth <= width, `${name} at ${width} px is ${pageWidth} px wide`);
        if (width === 1280) await tab.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: name === 'lease-gateway' });
        findings.push(...await axeFindings(tab, `${name} at ${width} px`));
      }
    }
    assert.equal(findings, []);
    // Opened by itself, the SVG is a download: it never becomes a document of this origin where its script could run.
    const download = tab.waitForEvent('download');
    await tab.goto(new URL(`/repos/${w.docs.id}/raw?path=drawing.svg`, web.url).href).catch(() => undefined);
    assert.is((await download).suggestedFilename(), 'drawing.svg');
  } finally {
    await browser.close();
  }
});

Browse('a README is rendered once per blob and what its links depend on, then kept (bounded), never per view', async () => {
  const cache = new GitObjectCache({ dir: w.world.path('memo-cache'), env: process.env });
  const head = (await w.world.ok('docs', ['rev-parse', 'HEAD'])).trim();
  const objects = await cache.open(w.docs.id, w.world.path('docs'), new Map([['refs/heads/main', head]]), 'refs/heads/main');
  const readme = (await objects.entry(head, 'README.md'))!;
  const first = await markdownHtml(objects, w.docs.id, 'refs/heads/main', 'README.md', readme.oid);
  assert.match(first.text, /<h2 id="user-content-install">Install<\/h2>/);
  assert.is(await markdownHtml(objects, w.docs.id, 'refs/heads/main', 'README.md', readme.oid), first, 'the second view renders nothing');
  const atTag = await markdownHtml(objects, w.docs.id, 'v1.2.0', 'README.md', readme.oid);
  assert.is.not(atTag, first, 'its links name the ref: another ref is another rendering');
  // More blobs than the cache keeps push the first one out: it is rendered again, to the same HTML.
  const guide = (await objects.entry(head, 'GUIDE.md'))!;
  for (let i = 0; i < 20; i++) await markdownHtml(objects, w.docs.id, `refs/heads/b${i}`, 'GUIDE.md', guide.oid);
  const again = await markdownHtml(objects, w.docs.id, 'refs/heads/main', 'README.md', readme.oid);
  assert.is.not(again, first);
  assert.is(again.text, first.text);
});

Browse('a Markdown file is rendered (relative image resolved), its source one click away', async () => {
  const rendered = await ok(web, `/repos/${w.docs.id}/tree?path=GUIDE.md`);
  assert.match(rendered, /<h2 id="user-content-steps">Steps<\/h2>/);
  assert.match(rendered, new RegExp(`<img src="/repos/${w.docs.id}/raw\\?ref=refs%2Fheads%2Fmain&amp;path=pixel\\.png" alt="pixel" />|<img src="/repos/${w.docs.id}/raw\\?ref=refs%2Fheads%2Fmain&amp;path=pixel\\.png" alt="pixel">`));
  assert.match(rendered, /<strong aria-current="page">Preview<\/strong> · <a href="[^"]+plain=1">Source<\/a>/);
  const source = await ok(web, `/repos/${w.docs.id}/tree?path=GUIDE.md&plain=1`);
  assert.match(text(source), /1 # Guide 2 3 !\[ ?pixel ?\]\( ?pixel\.png ?\)/);
  assert.not.match(source, /<h2 id="user-content-steps">/);
});

Browse('raw text is shown as UTF-8 plain text, streamed whole; binary bytes are a download', async () => {
  const raw = await fetch(new URL(`/repos/${w.docs.id}/raw?path=lines.js`, web.url));
  assert.is(raw.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.match(raw.headers.get('content-disposition') ?? '', /^inline; filename\*=UTF-8''lines\.js$/);
  assert.is(raw.headers.get('x-content-type-options'), 'nosniff');
  const body = await raw.text();
  assert.is(Number(raw.headers.get('content-length')), Buffer.byteLength(body));
  assert.match(body, /^const line1 = 1;[\s\S]*const line30 = 30; \/\* a comment\n {3}over two lines \*\/\n$/);
  const head = await fetch(new URL(`/repos/${w.docs.id}/raw?path=lines.js`, web.url), { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(await head.text(), '');
});

Browse('the ref picker: a form and a list of links, tags newest version first (also on the refs page)', async () => {
  const page = await ok(web, `/repos/${w.docs.id}/tree?path=notes.txt`);
  assert.not.match(page, /<select/);
  assert.match(page, /<details class="ref-picker"><summary><span class="muted">branch<\/span> <span class="ref">main<\/span><\/summary>/);
  assert.match(page, /<label for="ref-filter">Branch, tag or commit<\/label>\s*<input id="ref-filter" name="ref" type="search"[^>]*><input type="hidden" name="path" value="notes\.txt">/);
  const listed = [...page.matchAll(/<li data-name="([^"]+)"><a href="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(listed, ['refs/heads/main', 'refs/tags/v1.10.0', 'refs/tags/v1.2.0', 'refs/tags/v0.10.0', 'refs/tags/v0.10.0-rc.1', 'refs/tags/v0.9.0']);
  assert.match(page, /<a href="\/repos\/0x[0-9a-f]{64}\/tree\?ref=refs%2Ftags%2Fv0\.9\.0&amp;path=notes\.txt">v0\.9\.0<\/a>/);
  const refs = text(await ok(web, `/repos/${w.docs.id}/refs`));
  assert.match(refs, /Tags Tag Commit Set by v1\.10\.0 .* v1\.2\.0 .* v0\.10\.0 .* v0\.10\.0-rc\.1 .* v0\.9\.0 /);
  // What is typed goes to the page as it is: a tag by its short name, a commit by part of its id.
  assert.match(text(await ok(web, `/repos/${w.docs.id}/tree?ref=v0.9.0&path=notes.txt`)), /1 one/);
  assert.match(text(await ok(web, `/repos/${w.docs.id}/tree?ref=${w.docs.commits.third!.slice(0, 10)}&path=notes.txt`)), /1 one 2 two/);
});

Browse('a commit says which push brought it and who pushed it; a push lists its commits; a forced one links a compare', async () => {
  const { commits, writer } = w.docs;
  const byWriter = text(await ok(web, `/repos/${w.docs.id}/commit/${commits.third}`));
  assert.match(byWriter, new RegExp(`pushed in push 2 by ${writer} · \\d{4}-`));
  assert.match(await ok(web, `/repos/${w.docs.id}/commit/${commits.third}`), new RegExp(`<a href="/repos/${w.docs.id}/pushes#push-2">push 2</a>`));
  assert.match(text(await ok(web, `/repos/${w.docs.id}/commit/${commits.first}`)), /pushed in push 1 by 0x[0-9a-f]{64} \(owner\)/);
  assert.match(text(await ok(web, `/repos/${w.docs.id}/commit/${commits.fourthB}`)), /pushed in push 4 by 0x[0-9a-f]{64} \(owner\)/);
  const log = await ok(web, `/repos/${w.docs.id}/pushes`);
  const entry = (seq: number) => {
    const start = log.indexOf(`id="push-${seq}"`);
    const end = log.indexOf('<li class="push"', start);
    return text(log.slice(start, end < 0 ? undefined : end));
  };
  assert.match(entry(1), new RegExp(`commits ${commits.second!.slice(0, 12)} pictures, a guide and a long file ${commits.first!.slice(0, 12)} notes: one line`));
  assert.match(entry(2), new RegExp(`commits ${commits.third!.slice(0, 12)} notes: two lines (?!.*${commits.first!.slice(0, 12)})`));
  const forced = `/repos/${w.docs.id}/compare?from=${commits.fourth}&amp;to=${commits.fourthB}`;
  assert.match(log, new RegExp(`<span class="flag forced">forced</span> <a class="compare-link" href="${forced.replace(/[?]/g, '\\?')}">compare</a>`));
  const compare = text(await ok(web, forced.replace('&amp;', '&')));
  assert.match(compare, /1 commit\(s\) notes: three lines, reworded/);
});

Browse('the push log filters by pusher and by ref', async () => {
  const seqs = (page: string) => [...page.matchAll(/<li class="push" id="push-(\d+)">/g)].map((m) => Number(m[1]));
  assert.equal(seqs(await ok(web, `/repos/${w.docs.id}/pushes`)), [4, 3, 2, 1]);
  const writer = await ok(web, `/repos/${w.docs.id}/pushes?pusher=${w.docs.writer}`);
  assert.equal(seqs(writer), [2]);
  assert.match(text(writer), /1 of 4 pushes show all/);
  assert.match(writer, new RegExp(`<option value="${w.docs.writer}" selected>`));
  assert.equal(seqs(await ok(web, `/repos/${w.docs.id}/pushes?ref=v0.9.0`)), [1]);
  assert.equal(seqs(await ok(web, `/repos/${w.docs.id}/pushes?ref=refs/tags/v0.9.0`)), [1]);
  assert.equal(seqs(await ok(web, `/repos/${w.docs.id}/pushes?ref=main&pusher=${w.docs.writer}`)), [2]);
  assert.equal(seqs(await ok(web, `/repos/${w.docs.id}/pushes?ref=nothing`)), []);
});

Browse('a lease, for its tenant: the app as the provider\'s gateway reports it (status, releases with build output, events, logs), the secrets\' names; never a secret value', async () => {
  const { lease } = w;
  const { commits } = w.docs;
  const page = await ok(web, `/market/leases/${lease.id}`);
  const plain = text(page);
  assert.match(plain, /state open/);
  assert.match(plain, new RegExp(`tenant 0x[0-9a-f]{64} \\(you: the key this server runs as\\) provider ${lease.provider} gateway ${w.gateway.endpoint} `));
  assert.match(plain, new RegExp(`App phase Live : ${commits.fourthB!.slice(0, 12)} serves at http://lease-[0-9a-f]{16}\\.apps\\.provider\\.test/ replicas 1/1 ready, 1 updated lease-[0-9a-f]{16}-7d9f-x2k4q Running, ready serving ${commits.fourthB} since `));
  assert.match(page, new RegExp(`<a class="mono" href="/repos/${w.docs.id}/commit/${commits.fourthB}">`));
  // Releases, newest first: the one serving, and the refused one with its failing test's output.
  assert.match(plain, new RegExp(`Releases Commit Result Time Build output ${commits.fourthB!.slice(0, 12)} rolled out Released \\S+ 2 step\\(s\\) build exit 0 \\(Completed\\) npm ci added 3 packages token in use: \\$API_TOKEN test exit 0 \\(Completed\\) # pass 4 ${commits.fourth!.slice(0, 12)} the tests failed TestsFailed `));
  assert.match(plain, /test exit 1 \(Error\) not ok 1 - adds two numbers/);
  assert.match(plain, /Events Time Type Reason Object Message \S+ Normal Started Pod\/lease-[0-9a-f]{16}-7d9f-x2k4q Started container app \S+ Normal Pulled /);
  assert.not.match(plain, /not this app/, 'events of other objects are not the app\'s');
  assert.match(plain, /Logs \(each replica’s last 50 lines\) lease-[0-9a-f]{16}-7d9f-x2k4q listening on port 3000 connected to \$DATABASE_URL request \/health/);
  assert.match(plain, /Secrets Version 1, set \d{4}-\d\d-\d\d [\d:]+ UTC; sealed on Walrus in blob \S+ \. Name Version Set API_TOKEN 1 \d{4}-[-\d :]+UTC DATABASE_URL 1 /);
  assert.match(plain, /Deploy records Nothing deployed yet\./);
  for (const value of Object.values(lease.secrets)) assert.not.ok(page.includes(value) || page.includes(value.replace(/&/g, '&amp;')), 'no secret value on the page');
  // Anyone else: the version on chain, no names, and no request to the gateway in their name.
  const other = await startWeb(w.world, [], w.keys.writer);
  try {
    const seen = text(await ok(other, `/market/leases/${lease.id}`));
    assert.match(seen, /Secrets Version 1, set .* Their names are shown to the lease’s tenant only/);
    assert.not.match(seen, /API_TOKEN|DATABASE_URL/);
    assert.match(seen, new RegExp(`App The provider’s gateway \\(${w.gateway.endpoint}\\) reports the app to the lease’s tenant only\\.`));
  } finally {
    await other.stop();
  }
});

Browse.run();
