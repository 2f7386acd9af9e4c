/**
 * `git walrus web` end to end, on one world (test/support/web.ts) pushed through stock git and the real helper:
 * every page over HTTP as the owner, a reader and a stranger would see it, the security properties (escaping, CSP,
 * loopback Host check, no path outside the repository, --host without private contents), and then a real browser
 * (Debian's Chromium, driven by playwright-core): navigation, verify badges turning green, a tampered pack turning
 * one red, nothing a pusher wrote ever running. Screenshots go to test-output/web/.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from '../../scripts/harness/world.ts';
import { axeFindings } from '../support/axe.ts';
import { ATTESTED_BUILD_KEY, DIFFERING_TAR_SHA256, INJECTION, buildWebWorld, get, ok, startWeb, text, verified, type WebProcess, type WebWorld } from '../support/web.ts';

const SCREENSHOTS = join(REPO_ROOT, 'test-output', 'web');

let w: WebWorld;
let owner: WebProcess;
let reader: WebProcess;
let stranger: WebProcess;

/** fetch() sets Host itself: node:http sends the one given. */
function statusWithHost(base: WebProcess, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(base.url);
    request({ host: url.hostname, port: url.port, path: '/', headers: { host } }, (response) => { response.resume(); resolve(response.statusCode ?? 0); }).on('error', reject).end();
  });
}


const setup = async () => {
  w = await buildWebWorld();
  [owner, reader, stranger] = await Promise.all([startWeb(w.world, [], w.keys.owner), startWeb(w.world, [], w.keys.reader), startWeb(w.world, [], w.keys.stranger)]);
};
const teardown = async () => {
  await Promise.all([owner?.stop(), reader?.stop(), stranger?.stop()]);
  w?.world.remove();
};

const Pages = suite('git walrus web: pages');
Pages.before(setup);

Pages('the command prints a loopback URL; given a remote, the URL of its page', async () => {
  assert.match(owner.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
  const byUrl = await startWeb(w.world, [w.app.url], w.keys.owner);
  try {
    assert.match(byUrl.url, new RegExp(`^http://127\\.0\\.0\\.1:\\d+/repos/${w.app.id}$`));
    assert.match(await ok(byUrl, new URL(byUrl.url).pathname), /<h1 id="user-content-app">App<\/h1>/);
  } finally {
    await byUrl.stop();
  }
  const port = new URL(owner.url).port;
  const taken = await startWeb(w.world, ['--port', port], w.keys.owner).then(() => null, (error: Error) => error.message);
  assert.match(taken ?? '', new RegExp(`fatal: cannot serve on 127\\.0\\.0\\.1:${port}: port ${port} is in use \\(leave --port out for a free one\\)`));
});

Pages('repositories: every repository of the registry, private marked, with a filter', async () => {
  const list = text(await ok(owner, '/'));
  assert.match(list, /evil public/);
  assert.match(list, /secret private/);
  assert.match(list, /app public 0x[0-9a-f]{64} 6 /);
  const filtered = text(await ok(owner, '/?q=sec'));
  assert.match(filtered, /secret private/);
  assert.not.match(filtered, /app public/);
});

Pages('a repository: README rendered at the default branch, relative links kept inside it, the tree', async () => {
  const page = await ok(owner, `/repos/${w.app.id}`);
  assert.match(page, /<h1 id="user-content-app">App<\/h1>/);
  assert.match(page, new RegExp(`<a href="/repos/${w.app.id}/tree\\?ref=refs%2Fheads%2Fmain&amp;path=docs%2Fguide\\.md"[^>]*>the guide</a>`));
  for (const name of ['docs', 'index.js', 'logo.bin', 'big.txt', 'README.md']) assert.match(page, new RegExp(`>${name.replace('.', '\\.')}</a>`));
  assert.match(page, /git clone walrus:\/\/0x/);
});

Pages('files at any ref: highlighted source, binary and large files not inlined, raw as a download', async () => {
  const code = await ok(owner, `/repos/${w.app.id}/tree?ref=refs/heads/main&path=index.js`);
  assert.match(code, /<span class="hljs-keyword">export<\/span>/);
  assert.match(code, /<span class="hljs-number">43<\/span>/);
  const old = await ok(owner, `/repos/${w.app.id}/tree?ref=v1&path=index.js`);
  assert.match(old, /<span class="hljs-number">42<\/span>/, 'the file as tag v1 has it');
  assert.match(text(await ok(owner, `/repos/${w.app.id}/tree?path=logo.bin`)), /Binary file \(7 bytes\), not shown/);
  assert.match(text(await ok(owner, `/repos/${w.app.id}/tree?path=big.txt`)), /This file is 1\.07 MiB: too large to show here/);
  const raw = await get(owner, `/repos/${w.app.id}/raw?ref=main&path=logo.bin`);
  assert.is(raw.status, 200);
  assert.is(raw.headers.get('content-type'), 'application/octet-stream');
  assert.match(raw.headers.get('content-disposition') ?? '', /^attachment; filename\*=UTF-8''logo\.bin$/);
  assert.match(raw.headers.get('content-security-policy') ?? '', /sandbox/);
  assert.equal([...Buffer.from(raw.text, 'latin1')].length > 0, true);
  const dir = text(await ok(owner, `/repos/${w.app.id}/tree?ref=main&path=docs`));
  assert.match(dir, /root \/ docs/);
  assert.match(dir, /guide\.md/);
});

Pages('no path outside the repository, no unknown ref, no foreign Host, no cross-site POST', async () => {
  for (const path of ['../../../etc/passwd', 'docs/../../x', '/etc/passwd', 'docs/./guide.md']) {
    assert.is((await get(owner, `/repos/${w.app.id}/tree?path=${encodeURIComponent(path)}`)).status, 404, path);
  }
  assert.is((await get(owner, `/repos/${w.app.id}/tree?ref=${encodeURIComponent('--output=/tmp/x')}`)).status, 404);
  assert.is((await get(owner, `/repos/${w.app.id}/tree?ref=nope`)).status, 404);
  assert.is((await get(owner, `/repos/0x${'0'.repeat(64)}`)).status, 404);
  assert.is(await statusWithHost(owner, 'attacker.example'), 421, 'a foreign Host (DNS rebinding) is refused');
  assert.is(await statusWithHost(owner, new URL(owner.url).host), 200);
  assert.is((await get(owner, `/repos/${w.app.id}/verify`, { method: 'POST', headers: { origin: 'http://attacker.example' } })).status, 403);
  assert.is((await get(owner, '/', { method: 'DELETE' })).status, 405);
});

Pages('commits: paginated, each with its full SHA; a commit with its diff, unified and split, and where it is deployed', async () => {
  const list = await ok(owner, `/repos/${w.app.id}/commits?ref=main`);
  for (const oid of [w.app.commits.c3b!, w.app.commits.c2!, w.app.commits.c1!]) assert.match(list, new RegExp(`>${oid}</a>`));
  assert.not.match(list, new RegExp(w.app.commits.c3!), 'the commit the forced push replaced is not on main');
  assert.match(text(list), /3 commit\(s\) reachable from main/);
  const second = await ok(owner, `/repos/${w.app.id}/commits?ref=main&page=2`);
  assert.not.match(second, /class="mono sha"/, 'three commits fit on the first page');
  const unified = await ok(owner, `/repos/${w.app.id}/commit/${w.app.commits.c3b}`);
  assert.match(unified, /third, reworded/);
  assert.match(unified, /d2h-file-diff/);
  assert.match(text(unified), /deployed by provider 0x[0-9a-f]{10} on lease 0x[0-9a-f]{10} as artifact /);
  assert.match(unified, new RegExp(`tip of</dt><dd><span class="ref">refs/heads/main</span>`));
  const split = await ok(owner, `/repos/${w.app.id}/commit/${w.app.commits.c3b}?view=split`);
  assert.match(split, /d2h-file-side-diff/);
  assert.match(text(await ok(owner, `/repos/${w.app.id}/commit/${w.app.commits.c1}`)), /not deployed by any provider/);
  // A commit whose diff comes in parts lists every file on every part, with git's counts; a binary file has none.
  for (const part of [1, 2]) {
    const files = text(await ok(owner, `/repos/${w.app.id}/commit/${w.app.commits.c2}?part=${part}`));
    assert.match(files, /Files changed \(4\) \+5 −0/, `part ${part}`);
    assert.match(files, /big\.txt \+1 −0 docs\/guide\.md \+1 −0 index\.js \+3 −0 logo\.bin binary/, `part ${part}`);
    assert.match(files, new RegExp(`part ${part} of 2`));
  }
  // An abbreviated id finds the commit (the commit list's search box).
  const found = await get(owner, `/repos/${w.app.id}/compare?to=${w.app.commits.c2!.slice(0, 8)}`);
  assert.is(found.status, 303);
  assert.is(found.headers.get('location'), `/repos/${w.app.id}/commit/${w.app.commits.c2}`);
});

Pages('compare two refs', async () => {
  const page = text(await ok(owner, `/repos/${w.app.id}/compare?from=v1&to=main`));
  assert.match(page, /1 commit\(s\)/);
  assert.match(page, /third, reworded/);
  assert.match(await ok(owner, `/repos/${w.app.id}/compare?from=v1&to=main&view=split`), /d2h-file-side-diff/);
});

Pages('branches and tags with the push that last set each', async () => {
  const page = text(await ok(owner, `/repos/${w.app.id}/refs`));
  assert.match(page, new RegExp(`main default ${w.app.commits.c3b} push 5`));
  assert.match(page, new RegExp(`v1 ${w.app.commits.c2} push 3`));
  assert.match(page, / v2 [0-9a-f]{40} push 3/);
  assert.not.match(page, /topic/, 'the deleted branch is gone');
});

Pages('push log: who, when, refs old → new, forced, deleted, transaction, pack, expiry; badges that turn verified', async () => {
  const log = JSON.parse(await w.world.ok('app', ['walrus', 'log', 'walrus', '--json'])) as { pushes: Array<{ seq: number; txDigest: string; sender: string; pack: { blobIds: string[]; size: number } | null }> };
  const page = await ok(owner, `/repos/${w.app.id}/pushes`);
  const plain = text(page);
  for (const push of log.pushes) {
    assert.match(page, new RegExp(`id="push-${push.seq}"`));
    assert.match(page, new RegExp(push.txDigest));
    for (const blobId of push.pack?.blobIds ?? []) assert.match(page, new RegExp(blobId.replace(/[-]/g, '\\-')));
  }
  assert.match(plain, /push 5 .*refs\/heads\/main [0-9a-f]{12} → [0-9a-f]{12} forced/);
  assert.match(plain, /push 6 .*refs\/heads\/topic [0-9a-f]{12} → \(none\) deleted/);
  assert.match(plain, /push 1 .*refs\/heads\/main \(none\) → [0-9a-f]{12} new/);
  assert.match(plain, /stored until epoch \d+ \(now \d+\)/);
  assert.match(plain, new RegExp(`git walrus verify walrus://${w.app.id} --deep`));
  assert.not.match(page, /suiscan|walruscan/, 'no explorer links on the embedded network');
  const badges = await verified(owner, w.app.id);
  assert.equal(badges.map((b) => [b.seq, b.state]), [[1, 'verified'], [2, 'verified'], [3, 'verified'], [4, 'verified'], [5, 'verified'], [6, 'verified']]);
  const after = text(await ok(owner, `/repos/${w.app.id}/pushes`));
  assert.match(after, /verify --deep: every check holds/);
  // The embedded network has its genesis committee as anchor: the state checked was proved, and the badge says as of when.
  assert.match(after, /certified as of checkpoint \d+ \(epoch \d+, \d{4}-\d\d-\d\dT[\d:.]+Z; version \d+, from /);
  assert.match(after, /its pack’s bytes on Walrus have the recorded blob ids, size and sha256/);
});

Pages('access: owner, writers, readers, protected refs, and the changes with their transactions', async () => {
  await w.world.ok('app', ['walrus', 'protect', 'walrus', 'main'], { env: w.keys.owner });
  const app = text(await ok(owner, `/repos/${w.app.id}/access`));
  assert.match(app, /readers anyone/);
  assert.match(app, /protected refs refs\/heads\/main/);
  assert.match(app, /created app by 0x[0-9a-f]{64}/);
  assert.match(app, /ref protected refs\/heads\/main \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC [1-9A-HJ-NP-Za-km-z]{43,44}/);
  const secret = text(await ok(stranger, `/repos/${w.secret.id}/access`));
  assert.match(secret, /reader added 0x[0-9a-f]{64} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
});

Pages('deployments: provider, commit, artifact, since; the artifact check; a diff link; the market and the lease', async () => {
  const page = text(await ok(owner, `/repos/${w.app.id}/deployments`));
  assert.match(page, new RegExp(`refs/heads/main ${w.deployment.commit}`));
  assert.match(page, new RegExp(w.deployment.artifact.replace(/-/g, '\\-')));
  assert.match(page, /not checked/);
  assert.match(page, /none stated/);
  // The attestations: reproduced by one other provider, and the other one's differing build named with its key.
  assert.match(page, / reproduced by 1 provider /);
  assert.match(page, new RegExp(` differs provider 0x[0-9a-f]{10} built tar sha256 ${DIFFERING_TAR_SHA256} under build key ${ATTESTED_BUILD_KEY.slice(0, 12)} `));
  assert.match(text(await ok(owner, `/repos/${w.app.id}/deployments?check=1`)), / verified /);
  const market = text(await ok(owner, '/market'));
  assert.match(market, /20 SUI 1 MIST\/ms .* http:\/\/127\.0\.0\.1:2 region=eu 1 active, 0 completed bonded/);
  const provider = text(await ok(owner, `/market/providers/${w.deployment.provider}`));
  assert.match(provider, /stake 20 SUI/);
  assert.match(provider, /open/);
  const lease = text(await ok(owner, `/market/leases/${w.deployment.lease}`));
  assert.match(lease, /escrow \d+(\.\d+)? SUI/);
  // The lease's tenant (the world's own key) is told when the provider's gateway does not answer; the page still shows.
  const tenant = await startWeb(w.world);
  try {
    const asTenant = text(await ok(tenant, `/market/leases/${w.deployment.lease}`));
    assert.match(asTenant, /App The provider’s gateway did not report the app: the gateway of provider 0x[0-9a-f]{64} at http:\/\/127\.0\.0\.1:2 did not answer \(connect ECONNREFUSED 127\.0\.0\.1:2\)/);
    assert.match(asTenant, /escrow \d+(\.\d+)? SUI/);
  } finally {
    await tenant.stop();
  }
  assert.match(lease, / reproduced by 1 provider differs provider 0x[0-9a-f]{10} built tar sha256 /);
  assert.match(lease, /accrued \d+(\.\d+)? SUI since/);
  assert.match(lease, /funded until \d{4}-\d\d-\d\d/);
  assert.match(lease, new RegExp(w.deployment.commit));
  assert.not.match(lease, /ended/);
  const ended = text(await ok(owner, `/market/leases/${w.endedLease}`));
  assert.match(ended, /state closed ended closed by the provider while it was still funded at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z/);
  assert.match(provider, /closed closed by the provider while it was still funded/, 'the provider\'s lease list says why each ended');
});

Pages('a private repository: its owner and its reader see the contents, decrypted locally; a stranger sees who may read', async () => {
  for (const viewer of [owner, reader]) {
    const page = await ok(viewer, `/repos/${w.secret.id}`);
    assert.match(page, /Top secret plans: launch on Tuesday\./);
    assert.match(page, /class="tag private">private/);
  }
  const locked = await ok(stranger, `/repos/${w.secret.id}`);
  assert.not.match(locked, /Top secret/);
  const lockedText = text(locked);
  assert.match(lockedText, /encrypted This repository is private: its packs are encrypted, and the running key is not one of its readers/);
  assert.match(lockedText, /readers: 0x[0-9a-f]{64} ?, 0x[0-9a-f]{64}/);
  assert.is((await get(stranger, `/repos/${w.secret.id}/raw?path=README.md`)).status, 404);
  assert.match(text(await ok(stranger, `/repos/${w.secret.id}/commits`)), /encrypted/);
  assert.match(text(await ok(stranger, `/repos/${w.secret.id}/pushes`)), /push 1 .* encrypted/);
});

Pages('the web cache of decrypted repositories is readable by the user only (key from GIT_WALRUS_KEY)', async () => {
  await ok(owner, `/repos/${w.secret.id}`);
  const cache = w.world.path('walrus-home', 'web-cache', 'local');
  const open: string[] = [];
  const walk = (path: string) => {
    const mode = statSync(path).mode;
    if ((mode & 0o077) !== 0) open.push(`${path} ${(mode & 0o777).toString(8)}`);
    if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(w.world.path('walrus-home', 'web-cache'));
  assert.ok(readdirSync(cache).includes(`${w.secret.id}.git`), 'the private repository is in the cache');
  assert.equal(open, [], 'no directory or file of the cache is open to group or others');
});

Pages('another site\'s <img> (cross-site, no Origin) starts no work: no verify, no clone, no artifact check', async () => {
  const fresh = await startWeb(w.world, [], w.keys.owner);
  try {
    const img = { headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-dest': 'image', 'sec-fetch-mode': 'no-cors' } };
    for (const path of [`/repos/${w.secret.id}`, `/repos/${w.secret.id}/pushes`, `/repos/${w.app.id}/deployments?check=1`, `/repos/${w.app.id}/pushes`]) {
      assert.is((await get(fresh, path, img)).status, 403, `cross-site GET ${path} is refused`);
    }
    for (const id of [w.secret.id, w.app.id]) {
      assert.is((JSON.parse((await get(fresh, `/repos/${id}/verify.json`)).text) as { state: string }).state, 'idle', 'no verify run started');
    }
    const typed = await get(fresh, `/repos/${w.app.id}`, { headers: { 'sec-fetch-site': 'none', 'sec-fetch-dest': 'document' } });
    assert.is(typed.status, 200, 'an address typed or bookmarked opens');
  } finally {
    await fresh.stop();
  }
});

Pages('--host 127.0.0.2: any loopback alias keeps the Host check and private contents', async () => {
  const alias = await startWeb(w.world, ['--host', '127.0.0.2'], w.keys.owner);
  try {
    assert.match(alias.url, /^http:\/\/127\.0\.0\.2:\d+\/$/);
    assert.not.match(alias.stderr(), /anyone who reaches it/);
    assert.is(await statusWithHost(alias, 'attacker.example'), 421, 'a foreign Host (DNS rebinding) is refused on a loopback alias too');
    assert.is(await statusWithHost(alias, new URL(alias.url).host), 200);
    assert.match(await ok(alias, `/repos/${w.secret.id}`), /Top secret plans/);
    assert.is((await get(alias, '/', { method: 'PUT' })).status, 405);
  } finally {
    await alias.stop();
  }
});

Pages('script and HTML in a README, file names, a commit message and ref names: shown as text, nothing executable', async () => {
  const id = w.evil.id;
  const overview = await ok(owner, `/repos/${id}`);
  assert.not.match(overview, /<script(?! src="\/static\/)|<img[^>]*onerror|<a[^>]*onclick|readme-script/, 'raw HTML in Markdown loses its script and handlers');
  assert.match(overview, /<a href="#" rel="nofollow noopener noreferrer">raw html link<\/a>/, 'the raw HTML link stays, inert');
  assert.match(overview, /<p>\[click\]\(javascript:window\.__pwned='readme-link'\)<\/p>/, 'a javascript: link is no link');
  for (const name of INJECTION.fileNames) assert.match(text(overview), new RegExp(name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  const pages = [
    `/repos/${id}/refs`, `/repos/${id}/commits`, `/repos/${id}/commit/${w.evil.commit}`, `/repos/${id}/commit/${w.evil.commit}?view=split`,
    `/repos/${id}/pushes`, `/repos/${id}/access`, `/repos/${id}/deployments`,
    `/repos/${id}/tree?ref=${encodeURIComponent(INJECTION.branch)}`, `/repos/${id}/commits?ref=${encodeURIComponent(INJECTION.tag)}`,
    ...INJECTION.fileNames.map((name) => `/repos/${id}/tree?path=${encodeURIComponent(name)}`),
  ];
  for (const path of pages) await ok(owner, path);
  const commit = text(await ok(owner, `/repos/${id}/commit/${w.evil.commit}`));
  assert.match(commit, /fix <\/pre><script>window\.__pwned=5<\/script><b>bold<\/b>/, 'the message is shown, as text');
  assert.match(text(await ok(owner, `/repos/${id}/refs`)), /"><svg\/onload=window\.__pwned=6>/);
  const file = text(await ok(owner, `/repos/${id}/tree?path=${encodeURIComponent(INJECTION.fileNames[1]!)}`));
  assert.match(file, /content of "><svg onload=window\.__pwned=4>\.txt/);
});

Pages.run();

const Browser = suite('git walrus web: in headless Chromium');
let browser: Browser;
let tab: Page;
const dialogs: string[] = [];
const pageErrors: string[] = [];

Browser.before(async () => {
  const executablePath = execFileSync(join(REPO_ROOT, 'test', 'web', 'chromium.sh'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath,
    args: ['--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  tab = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  tab.on('dialog', (dialog) => { dialogs.push(dialog.message()); void dialog.dismiss(); });
  tab.on('pageerror', (error) => pageErrors.push(error.message));
});
Browser.after(async () => {
  await browser?.close();
  await teardown();
});

const shot = (name: string) => tab.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
/** The page's document, typed as little as these checks need (the test program has no DOM types). */
interface Doc { querySelectorAll(selector: string): { length: number }; querySelector(selector: string): { dataset: Record<string, string | undefined> } | null }

const pwned = () => tab.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned);

Browser('navigate: repositories, filter as one types, a repository with its README', async () => {
  await tab.goto(owner.url);
  assert.is(await tab.locator('#repo-list .repo-row').count(), 3);
  await tab.fill('#repo-filter', 'sec');
  assert.is(await tab.locator('#repo-list .repo-row:visible').count(), 1);
  await tab.fill('#repo-filter', '');
  await shot('repositories');
  await tab.click('text=app');
  await tab.waitForSelector('.readme h1');
  assert.is(await tab.textContent('.readme h1'), 'App');
  await tab.click('.readme a:text("the guide")');
  assert.match(await tab.textContent('.file-markdown') ?? '', /The guide\./);
  await tab.goto(new URL(`/repos/${w.app.id}`, owner.url).href);
  await shot('repository');
  await tab.goto(new URL(`/repos/${w.app.id}/commit/${w.app.commits.c3b}?view=split`, owner.url).href);
  assert.ok(await tab.locator('.d2h-file-side-diff').count() > 0);
  await shot('commit-split');
});

/** Every page type: the viewport's width is the page's (code and diffs scroll inside), and axe-core finds nothing at all. */
Browser('every page type at 1280 and 375 px: no page wider than the viewport, no axe-core finding of any impact', async () => {
  const id = w.app.id;
  const pages: Array<[string, WebProcess, string]> = [
    ['repositories', owner, '/'],
    ['repository', owner, `/repos/${id}`],
    ['folder', owner, `/repos/${id}/tree?path=docs`],
    ['file', owner, `/repos/${id}/tree?path=index.js#L2`],
    ['markdown-file', owner, `/repos/${id}/tree?path=docs/guide.md`],
    ['history', owner, `/repos/${id}/history?path=index.js`],
    ['blame', owner, `/repos/${id}/blame?path=index.js`],
    ['commits', owner, `/repos/${id}/commits`],
    ['commit', owner, `/repos/${id}/commit/${w.app.commits.c2}`],
    ['commit-split', owner, `/repos/${id}/commit/${w.app.commits.c2}?view=split`],
    ['compare', owner, `/repos/${id}/compare?from=v1&to=main`],
    ['refs', owner, `/repos/${id}/refs`],
    ['push-log', owner, `/repos/${id}/pushes`],
    ['access', owner, `/repos/${id}/access`],
    ['deployments', owner, `/repos/${id}/deployments`],
    ['market', owner, '/market'],
    ['provider', owner, `/market/providers/${w.deployment.provider}`],
    ['lease', owner, `/market/leases/${w.deployment.lease}`],
    ['locked', stranger, `/repos/${w.secret.id}`],
    ['not-found', owner, `/repos/${id}/tree?path=nope`],
  ];
  const findings: string[] = [];
  for (const width of [1280, 375]) {
    const view = await browser.newPage({ viewport: { width, height: 900 } });
    try {
      for (const [name, server, path] of pages) {
        await view.goto(new URL(path, server.url).href);
        await view.waitForLoadState('load');
        const pageWidth = await view.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
        assert.ok(pageWidth <= width, `${name} at ${width} px is ${pageWidth} px wide`);
        await view.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`) });
        findings.push(...await axeFindings(view, `${name} at ${width} px`));
      }
    } finally {
      await view.close();
    }
  }
  assert.equal(findings, []);
});

Browser('the ref picker by keyboard: open, filter, arrows move nothing, Tab to a tag, Enter opens it', async () => {
  const start = new URL(`/repos/${w.app.id}/tree?path=index.js`, owner.url).href;
  await tab.goto(start);
  await tab.focus('.ref-picker > summary');
  await tab.keyboard.press('Enter');
  // The picker's script moves the focus to its filter when it opens; keys typed before that would go elsewhere.
  const filterFocused = () => tab.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { id?: string } | null } }).document.activeElement?.id === 'ref-filter');
  await filterFocused();
  await tab.keyboard.type('v2');
  assert.equal(await tab.locator('#ref-list li:visible').allTextContents(), ['v2 tag']);
  await tab.keyboard.press('ArrowDown');
  await tab.keyboard.press('ArrowUp');
  assert.is(tab.url(), start, 'an arrow key chooses nothing');
  await tab.keyboard.press('Tab');
  await tab.keyboard.press('Tab');
  assert.is(await tab.evaluate(() => (globalThis as unknown as { document: { activeElement: { textContent: string } | null } }).document.activeElement?.textContent), 'v2');
  await tab.keyboard.press('Enter');
  await tab.waitForURL(/ref=refs%2Ftags%2Fv2&path=index\.js$/);
  assert.match(await tab.textContent('table.code-lines') ?? '', /return 42;/);
  // Escape closes the picker and gives the focus back to its button.
  await tab.focus('.ref-picker > summary');
  await tab.keyboard.press('Enter');
  await tab.keyboard.press('Escape');
  assert.is(await tab.locator('details.ref-picker[open]').count(), 0);
  // Typed and sent, a ref the list does not have (a commit id) opens too.
  await tab.focus('.ref-picker > summary');
  await tab.keyboard.press('Enter');
  await filterFocused();
  await tab.keyboard.type(w.app.commits.c2!.slice(0, 10));
  assert.is(await tab.locator('#ref-none:visible').count(), 1);
  await tab.keyboard.press('Enter');
  await tab.waitForURL(new RegExp(`ref=${w.app.commits.c2!.slice(0, 10)}&path=index\\.js$`));
  assert.match(await tab.textContent('table.code-lines') ?? '', /return 42;/);
});

Browser('line links: #L2 marks a line, #L1-L3 a range, Shift-click extends one', async () => {
  await tab.goto(new URL(`/repos/${w.app.id}/tree?path=index.js#L1-L3`, owner.url).href);
  assert.equal(await tab.locator('tr.marked').evaluateAll((rows) => rows.map((row) => row.id)), ['L1', 'L2', 'L3']);
  await tab.click('#L2 td.line-no a');
  assert.match(tab.url(), /#L2$/);
  assert.equal(await tab.locator('tr.marked').evaluateAll((rows) => rows.map((row) => row.id)), ['L2']);
  await tab.click('#L3 td.line-no a', { modifiers: ['Shift'] });
  assert.match(tab.url(), /#L2-L3$/);
  assert.equal(await tab.locator('tr.marked').evaluateAll((rows) => rows.map((row) => row.id)), ['L2', 'L3']);
});

Browser('the push log: badges turn green after "Verify everything"', async () => {
  await tab.goto(new URL(`/repos/${w.app.id}/pushes`, owner.url).href);
  await tab.click('#verify-all');
  await tab.waitForFunction(() => {
    const d = (globalThis as unknown as { document: Doc }).document;
    return d.querySelectorAll('.badge.verified').length === 6 && d.querySelector('#verify-progress')?.dataset.state === 'done';
  }, undefined, { timeout: 60_000 });
  assert.is(await tab.locator('.badge.unchecked, .badge.failed').count(), 0);
  await tab.waitForSelector('#certified-badge .cert-pill.verified');
  assert.match(await tab.textContent('#certified-badge') ?? '', /certified as of checkpoint \d+ \(epoch \d+/);
  await tab.click('#push-5 .badge');
  assert.match(await tab.textContent('#push-5 .checks') ?? '', /git walrus verify walrus:\/\/0x[0-9a-f]{64} --deep/);
  await shot('push-log');
});

Browser('a tampered pack turns its push red, and only that one', async () => {
  const log = JSON.parse(await w.world.ok('app', ['walrus', 'log', 'walrus', '--json'])) as { pushes: Array<{ seq: number; pack: { blobIds: string[] } | null }> };
  const blobId = log.pushes.find((p) => p.seq === 2)!.pack!.blobIds[0]!;
  const file = w.world.path('walrus-home', 'local', 'walrus', 'blobs', blobId);
  const bytes = readFileSync(file);
  bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
  writeFileSync(file, bytes);
  await tab.goto(new URL(`/repos/${w.app.id}/pushes`, owner.url).href);
  await tab.click('#verify-all');
  await tab.waitForFunction(() => {
    const d = (globalThis as unknown as { document: Doc }).document;
    return d.querySelector('.badge.failed') !== null && d.querySelector('#verify-progress')?.dataset.state === 'done';
  }, undefined, { timeout: 60_000 });
  assert.equal(await tab.locator('.badge.failed').evaluateAll((els) => els.map((e) => e.getAttribute('data-seq'))), ['2']);
  assert.is(await tab.locator('.badge.verified').count(), 5);
  await tab.click('#push-2 .badge');
  assert.match(await tab.textContent('#push-2 .findings') ?? '', /BLOB_ID_MISMATCH: push 2, pack #1, blob /);
  await tab.locator('#push-2').scrollIntoViewIfNeeded();
  await shot('push-log-tampered');
});

Browser('nothing a pusher wrote runs: README, file names, commit message, ref names', async () => {
  const id = w.evil.id;
  const paths = [
    `/repos/${id}`, `/repos/${id}/refs`, `/repos/${id}/commits`, `/repos/${id}/commit/${w.evil.commit}`, `/repos/${id}/commit/${w.evil.commit}?view=split`,
    `/repos/${id}/pushes`, `/repos/${id}/tree?ref=${encodeURIComponent(INJECTION.branch)}`,
    ...INJECTION.fileNames.map((name) => `/repos/${id}/tree?path=${encodeURIComponent(name)}`),
  ];
  for (const path of paths) {
    await tab.goto(new URL(path, owner.url).href);
    await tab.waitForLoadState('load');
    assert.is(await pwned(), undefined, `${path}: no payload ran`);
  }
  await tab.goto(new URL(`/repos/${id}`, owner.url).href);
  // The README's javascript: link is no link at all; its raw HTML renders without script or handlers.
  assert.is(await tab.locator('.readme script, .readme [onclick], .readme [onerror], .readme a[href^="javascript"]').count(), 0);
  await tab.click('.readme a:text-is("raw html link")');
  assert.is(await pwned(), undefined);
  // The file names are links; each opens its own file.
  await tab.click(`a:text-is(${JSON.stringify(INJECTION.fileNames[0])})`);
  assert.match(await tab.textContent('.file-markdown') ?? '', /content of/);
  assert.is(await pwned(), undefined);
  await tab.click('.view-switch a:text-is("Source")');
  assert.match(await tab.textContent('table.code-lines') ?? '', /content of <img src=x onerror=window\.__pwned=3>\.md/);
  assert.is(await pwned(), undefined);
  assert.equal(dialogs, []);
  assert.equal(pageErrors, []);
});

Browser('a stranger sees a private repository as encrypted, with who may read it', async () => {
  await tab.goto(new URL(`/repos/${w.secret.id}`, stranger.url).href);
  assert.match(await tab.textContent('.locked') ?? '', /encrypted[\s\S]*readers: 0x/);
});

Browser.run();
