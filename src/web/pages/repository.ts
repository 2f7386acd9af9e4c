/** The code pages of a repository: overview (README), tree and files, commits, a commit, compare, branches and tags. */
import { html as diffHtml } from 'diff2html';
import type { CommitInfo, FileChange, RepositoryObjects, TreeEntry } from '../../ports/object-cache.ts';
import { formatBytes } from '../../remote/progress.ts';
import { highlight } from '../highlight.ts';
import { href, html, trusted, type Html } from '../html.ts';
import { formatUtc, page, pager, repoNav, shortOid, type RepoNav } from '../layout.ts';
import { renderMarkdown } from '../markdown.ts';
import type { LoadedRepository } from '../repositories.ts';
import { NotFound, htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';
import { deploymentsOf, pushLink } from './shared.ts';

/** Files above this are not shown inline (a download link instead). */
export const LARGE_FILE = 1024 * 1024;
/** A diff is cut (on a file boundary) past this many bytes. */
export const DIFF_LIMIT = 16 * 1024 * 1024;
export const COMMITS_PER_PAGE = 50;
const WORD_MARKS_LIMIT = 256 * 1024;
const README_NAMES = ['readme.md', 'readme.markdown', 'readme', 'readme.txt', 'readme.rst'];

function nav(repo: LoadedRepository, tab: RepoNav['tab']): RepoNav {
  return repoNav(repo.info, tab);
}

/** The page of a private repository the running key may not read: what the chain says, and who may read it. */
function lockedPage(context: WebContext, repo: LoadedRepository, tab: RepoNav['tab']): Reply {
  const { info } = repo;
  const readers = [info.owner, ...info.writers, ...info.readers];
  return htmlReply(page({
    title: info.name,
    network: context.services.networkName,
    repo: nav(repo, tab),
    body: html`<section class="locked"><h2>encrypted</h2>
<p>This repository is private: its packs are encrypted, and ${context.settings.privateContents ? 'the running key is not one of its readers' : 'this server was started without access to private repositories (--host without --allow-private)'}.</p>
<p>readers: ${readers.map((r, i) => html`${i > 0 ? ', ' : ''}<span class="mono">${r}</span>`)}</p>
<p class="muted">${info.seq} pushes, ${repo.refs.size} refs, ${info.packCount} packs; the push log, the access list and the deployments stay readable.</p></section>`,
  }));
}

interface Opened {
  repo: LoadedRepository;
  objects: RepositoryObjects;
}

async function open(context: WebContext, id: string): Promise<Opened | LoadedRepository> {
  const repo = await context.repositories.load(id);
  if (!repo.readable) return repo;
  return { repo, objects: await context.repositories.objects(repo) };
}

function isOpened(value: Opened | LoadedRepository): value is Opened {
  return 'objects' in value;
}

async function commitOf(objects: RepositoryObjects, rev: string): Promise<string> {
  const oid = await objects.resolveCommit(rev);
  if (oid === null) throw new NotFound(`no branch, tag or commit '${rev}' in this repository`);
  return oid;
}

/** `refs/heads/main` → `main` for display; the full name stays in links. */
function shortRef(name: string): string {
  return name.replace(/^refs\/(heads|tags)\//, '');
}

function refPicker(repo: LoadedRepository, current: string, action: string, path?: string): Html {
  const names = [...repo.refs.keys()].sort();
  const known = names.includes(current);
  return html`<form class="ref-picker" method="get" action="${action}"><select name="ref" class="autosubmit">
${known ? '' : html`<option value="${current}" selected>${current}</option>`}
${names.map((name) => html`<option value="${name}"${name === current ? html` selected` : ''}>${shortRef(name)}</option>`)}
</select>${path ? html`<input type="hidden" name="path" value="${path}">` : ''} <button type="submit">Go</button></form>`;
}

function breadcrumbs(id: string, ref: string, path: string): Html {
  const parts = path === '' ? [] : path.split('/');
  return html`<div class="crumbs"><a href="${href(`/repos/${id}/tree`, { ref })}">root</a>${parts.map((part, i) => html` / <a href="${href(`/repos/${id}/tree`, { ref, path: parts.slice(0, i + 1).join('/') })}">${part}</a>`)}</div>`;
}

function treeTable(id: string, ref: string, dir: string, entries: TreeEntry[]): Html {
  return html`<table class="list tree"><tbody>${entries.map((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    return html`<tr class="${entry.type}"><td>${entry.type === 'commit' ? html`<span>${entry.name}</span> <span class="muted">submodule at ${shortOid(entry.oid)}</span>` : html`<a href="${href(`/repos/${id}/tree`, { ref, path })}">${entry.name}</a>${entry.type === 'tree' ? '/' : ''}`}</td><td class="num">${entry.size === null ? '' : formatBytes(entry.size)}</td></tr>`;
  })}</tbody></table>`;
}

/** Checks a path from the address bar: relative segments and NULs are refused before git sees it. */
function cleanPath(raw: string | null): string {
  const path = (raw ?? '').replace(/^\/+|\/+$/g, '');
  if (path === '') return '';
  const parts = path.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))) throw new NotFound(`no path '${path}' in this repository`);
  return path;
}

export async function overviewPage(context: WebContext, { params }: RouteRequest): Promise<Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) return lockedPage(context, opened, 'code');
  const { repo, objects } = opened;
  const id = repo.info.id;
  const ref = repo.info.head;
  const commit = await objects.resolveCommit(ref);
  if (commit === null) {
    return htmlReply(page({ title: repo.info.name, network: context.services.networkName, repo: nav(repo, 'code'), body: html`<p class="muted">Nothing pushed to ${ref} yet.</p>${repo.refs.size > 0 ? html`<p>Other refs: <a href="/repos/${id}/refs">branches and tags</a>.</p>` : ''}` }));
  }
  const [root, [last]] = await Promise.all([objects.entry(commit, ''), objects.log(commit, 0, 1)]);
  const entries = await objects.listTree(root!.oid);
  const readme = entries.find((e) => e.type === 'blob' && README_NAMES.includes(e.name.toLowerCase()));
  let readmeHtml: Html | string = '';
  if (readme !== undefined && (readme.size ?? 0) <= LARGE_FILE) {
    const text = Buffer.from(await objects.readBlob(readme.oid)).toString('utf8');
    const isMarkdown = /\.(md|markdown)$/i.test(readme.name);
    readmeHtml = html`<section class="readme"><h2>${readme.name}</h2>${isMarkdown
      ? html`<div class="markdown">${trusted(renderMarkdown(text, { dir: '', page: (path) => href(`/repos/${id}/tree`, { ref, path }), raw: (path) => href(`/repos/${id}/raw`, { ref, path }) }))}</div>`
      : html`<pre>${text}</pre>`}</section>`;
  }
  return htmlReply(page({
    title: repo.info.name,
    network: context.services.networkName,
    repo: nav(repo, 'code'),
    body: html`<div class="bar">${refPicker(repo, ref, `/repos/${id}/tree`)} <span class="muted">clone:</span> <code class="mono">git clone walrus://${id}</code></div>
${last ? html`<p class="last-commit"><a class="mono" href="/repos/${id}/commit/${last.oid}">${shortOid(last.oid)}</a> ${subject(last)} <span class="muted">— ${last.author.name}, ${formatUtc(last.author.time * 1000)}</span></p>` : ''}
${treeTable(id, ref, '', entries)}
${readmeHtml}`,
  }));
}

export async function treePage(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) return lockedPage(context, opened, 'code');
  const { repo, objects } = opened;
  const id = repo.info.id;
  const ref = query.get('ref') || repo.info.head;
  const path = cleanPath(query.get('path'));
  const commit = await commitOf(objects, ref);
  const entry = await objects.entry(commit, path);
  if (entry === null) throw new NotFound(`no path '${path}' at ${ref}`);
  let body: Html;
  if (entry.type === 'tree') {
    body = treeTable(id, ref, path, await objects.listTree(entry.oid));
  } else if (entry.type === 'commit') {
    body = html`<p>A submodule at commit <span class="mono">${entry.oid}</span>.</p>`;
  } else {
    body = await fileView(objects, id, ref, path, entry);
  }
  return htmlReply(page({
    title: `${path || 'root'} at ${shortRef(ref)} · ${repo.info.name}`,
    network: context.services.networkName,
    repo: nav(repo, 'code'),
    body: html`<div class="bar">${refPicker(repo, ref, `/repos/${id}/tree`, path)} ${breadcrumbs(id, ref, path)}</div>
<p class="muted mono">at commit ${commit}</p>
${body}`,
  }));
}

async function fileView(objects: RepositoryObjects, id: string, ref: string, path: string, entry: TreeEntry): Promise<Html> {
  const size = entry.size ?? 0;
  const raw = href(`/repos/${id}/raw`, { ref, path });
  const head = html`<div class="file-head"><span>${entry.name}</span> <span class="muted">${formatBytes(size)} · mode ${entry.mode} · blob ${entry.oid}</span> <a href="${raw}">raw</a></div>`;
  if (size > LARGE_FILE) return html`${head}<p class="notice">This file is ${formatBytes(size)}: too large to show here. <a href="${raw}">Download it</a>.</p>`;
  const bytes = await objects.readBlob(entry.oid);
  if (isBinary(bytes)) return html`${head}<p class="notice">Binary file (${formatBytes(size)}), not shown. <a href="${raw}">Download it</a>.</p>`;
  const text = Buffer.from(bytes).toString('utf8');
  const lit = highlight(entry.name, text);
  return html`${head}<pre class="code"><code class="hljs">${lit === null ? text : trusted(lit)}</code></pre>`;
}

/** git's own test: a NUL in the first 8000 bytes. */
function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/** A file's bytes as a download: never rendered by the browser, whatever its name or content claims. */
export async function rawFile(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) throw new NotFound('this repository is private and not readable here');
  const { repo, objects } = opened;
  const ref = query.get('ref') || repo.info.head;
  const path = cleanPath(query.get('path'));
  const entry = await objects.entry(await commitOf(objects, ref), path);
  if (entry === null || entry.type !== 'blob') throw new NotFound(`no file '${path}' at ${ref}`);
  const name = path.split('/').at(-1)!;
  return {
    type: 'application/octet-stream',
    body: await objects.readBlob(entry.oid),
    headers: { 'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(name)}`, 'content-security-policy': "default-src 'none'; sandbox" },
  };
}

function subject(commit: CommitInfo): string {
  return commit.message.split('\n')[0] ?? '';
}

function commitRows(id: string, commits: CommitInfo[]): Html {
  return html`<table class="list commits"><tbody>${commits.map((c) => html`<tr>
<td><a href="/repos/${id}/commit/${c.oid}">${subject(c) || '(no message)'}</a><div class="muted">${c.author.name} · ${formatUtc(c.author.time * 1000)}</div></td>
<td class="mono sha"><a href="/repos/${id}/commit/${c.oid}">${c.oid}</a></td></tr>`)}</tbody></table>`;
}

export async function commitsPage(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) return lockedPage(context, opened, 'commits');
  const { repo, objects } = opened;
  const id = repo.info.id;
  const ref = query.get('ref') || repo.info.head;
  const pageNo = Math.max(1, Math.floor(Number(query.get('page') ?? 1)) || 1);
  const commit = await objects.resolveCommit(ref);
  const [commits, total] = commit === null ? [[], 0] : await Promise.all([objects.log(commit, (pageNo - 1) * COMMITS_PER_PAGE, COMMITS_PER_PAGE + 1), objects.countCommits(commit)]);
  const hasNext = commits.length > COMMITS_PER_PAGE;
  return htmlReply(page({
    title: `Commits at ${shortRef(ref)} · ${repo.info.name}`,
    network: context.services.networkName,
    repo: nav(repo, 'commits'),
    body: html`<div class="bar">${refPicker(repo, ref, `/repos/${id}/commits`)}
<form class="find" method="get" action="/repos/${id}/compare"><input name="to" placeholder="find a commit by (part of) its id, or a ref" class="mono"> <button type="submit">Find</button></form></div>
${commit === null ? html`<p class="muted">No commit at ${ref}.</p>` : html`<p class="muted">${total} commit(s) reachable from ${shortRef(ref)}</p>${commitRows(id, commits.slice(0, COMMITS_PER_PAGE))}`}
${pager(pageNo, hasNext, (p) => href(`/repos/${id}/commits`, { ref, page: p }))}`,
  }));
}

/** A diff is shown in parts of whole files, each of at most this much patch text (or one file): a page stays light. */
export const DIFF_PART_BYTES = 256 * 1024;

/** Most recent first, both: the parts of a diff, and each part rendered (commit pairs are immutable). */
const diffPartsKept = new Map<string, Promise<{ parts: string[]; truncated: boolean; bytes: number }>>();
const renderedParts = new Map<string, Html>();
const DIFFS_KEPT = 8;
const RENDERED_PARTS_KEPT = 32;

function remember<V>(map: Map<string, V>, key: string, value: V, limit: number): V {
  map.delete(key);
  map.set(key, value);
  if (map.size > limit) map.delete(map.keys().next().value!);
  return value;
}

/** Whole files of `text`, grouped into parts of at most DIFF_PART_BYTES (a larger file is a part alone). */
function splitDiff(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (const file of text.split(/(?=^diff --git )/m)) {
    if (current !== '' && current.length + file.length > DIFF_PART_BYTES) {
      parts.push(current);
      current = '';
    }
    current += file;
  }
  if (current !== '') parts.push(current);
  return parts;
}

/** How many files each part holds, in order (git lists the files in the same order in the patch and its numstat). */
function filesPerPart(parts: readonly string[]): number[] {
  return parts.map((text) => text.match(/^diff --git /gm)?.length ?? 0);
}

/**
 * Every file the diff changes, over all its parts, with git's own line counts ("binary" where git counts none), each
 * linked to the part that shows it; files past the diff's size cut are listed as not shown.
 */
function fileList(changes: readonly FileChange[], counts: readonly number[], link: (part: number) => string): Html {
  const partOf: number[] = counts.flatMap((count, index) => Array<number>(count).fill(index + 1));
  const added = changes.reduce((sum, c) => sum + (c.added ?? 0), 0);
  const deleted = changes.reduce((sum, c) => sum + (c.deleted ?? 0), 0);
  return html`<details class="file-list" open><summary>Files changed (${changes.length}) <span class="added">+${added}</span> <span class="deleted">−${deleted}</span></summary><ol>
${changes.map((c, i) => {
    const name = c.renamedFrom === undefined ? c.path : `${c.renamedFrom} → ${c.path}`;
    const counts = c.added === null ? html`<span class="muted">binary</span>` : html`<span class="added">+${c.added}</span> <span class="deleted">−${c.deleted}</span>`;
    const part = partOf[i];
    return html`<li>${part === undefined ? html`<span class="mono">${name}</span> <span class="muted">(past the size cut: not shown)</span>` : html`<a class="mono" href="${link(part)}">${name}</a>`} ${counts}</li>`;
  })}</ol></details>`;
}

async function diffView(objects: RepositoryObjects, from: string | null, to: string, split: boolean, part: number, link: (part: number) => string): Promise<Html> {
  const key = `${from}..${to}`;
  const diff = diffPartsKept.get(key) ?? objects.diff(from, to, DIFF_LIMIT).then((patch) => ({ parts: splitDiff(patch.text), truncated: patch.truncated, bytes: patch.text.length }));
  remember(diffPartsKept, key, diff, DIFFS_KEPT);
  const [{ parts, truncated, bytes }, changes] = await Promise.all([diff, objects.diffStat(from, to)]);
  if (parts.length === 0) return html`<p class="muted">No changes.</p>`;
  const index = Math.min(Math.max(1, part), parts.length) - 1;
  const renderKey = `${key}:${split}:${index}`;
  const rendered = renderedParts.get(renderKey) ?? trusted(diffHtml(parts[index]!, {
    outputFormat: split ? 'side-by-side' : 'line-by-line', drawFileList: false, matching: 'none', diffMaxChanges: 20_000,
    // Word-level marks within changed lines cost most of a large diff's rendering: a large diff goes without.
    ...(bytes > WORD_MARKS_LIMIT ? { maxLineLengthHighlight: 0 } : {}),
  }));
  remember(renderedParts, renderKey, rendered, RENDERED_PARTS_KEPT);
  const nav = parts.length === 1 ? '' : html`<nav class="pager diff-parts">${index > 0 ? html`<a rel="prev" href="${link(index)}">← previous files</a>` : ''} <span>part ${index + 1} of ${parts.length} (${formatBytes(bytes)} of diff)</span> ${index + 1 < parts.length ? html`<a rel="next" href="${link(index + 2)}">next files →</a>` : ''}</nav>`;
  return html`${fileList(changes, filesPerPart(parts), link)}${nav}${rendered}${nav}
${truncated && index + 1 === parts.length ? html`<p class="notice">The diff is larger than ${formatBytes(DIFF_LIMIT)}: the files after the cut are not shown. <code>git diff ${from ?? '(empty tree)'} ${to}</code> shows all of it.</p>` : ''}`;
}

function partOf(query: URLSearchParams): number {
  return Math.max(1, Math.floor(Number(query.get('part') ?? 1)) || 1);
}

function viewSwitch(base: string, query: Record<string, string>, split: boolean): Html {
  return html`<nav class="view-switch">${split ? html`<a href="${href(base, query)}">unified</a> · <strong>split</strong>` : html`<strong>unified</strong> · <a href="${href(base, { ...query, view: 'split' })}">split</a>`}</nav>`;
}

export async function commitPage(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) return lockedPage(context, opened, 'commits');
  const { repo, objects } = opened;
  const id = repo.info.id;
  const oid = await commitOf(objects, params[1]!);
  const commit = (await objects.commit(oid))!;
  const split = query.get('view') === 'split';
  const deployed = (await deploymentsOf(context, id)).filter((d) => d.commit === oid);
  const containing = [...repo.refs].filter(([, target]) => target === oid).map(([name]) => name);
  return htmlReply(page({
    title: `${subject(commit)} · ${repo.info.name}`,
    network: context.services.networkName,
    repo: nav(repo, 'commits'),
    body: html`<section class="commit"><h2>${subject(commit) || '(no message)'}</h2>
<pre class="message">${commit.message.split('\n').slice(1).join('\n').trim()}</pre>
<dl class="facts">
<dt>commit</dt><dd class="mono sha">${commit.oid}</dd>
<dt>author</dt><dd>${commit.author.name} &lt;${commit.author.email}&gt; · ${formatUtc(commit.author.time * 1000)}</dd>
<dt>committer</dt><dd>${commit.committer.name} &lt;${commit.committer.email}&gt; · ${formatUtc(commit.committer.time * 1000)}</dd>
<dt>parents</dt><dd>${commit.parents.length === 0 ? 'none (a root commit)' : commit.parents.map((p) => html`<a class="mono" href="/repos/${id}/commit/${p}">${shortOid(p)}</a> `)}</dd>
${containing.length > 0 ? html`<dt>tip of</dt><dd>${containing.map((name) => html`<span class="ref">${name}</span> `)}</dd>` : ''}
<dt>deployed</dt><dd class="deployed">${deployed.length === 0 ? html`<span class="muted">not deployed by any provider</span>` : deployed.map((d) => html`<div>by provider <a class="mono" href="/market/providers/${d.provider}">${shortOid(d.provider)}</a> on lease <a class="mono" href="/market/leases/${d.lease}">${shortOid(d.lease)}</a> as artifact <span class="mono">${d.artifact}</span> since ${formatUtc(d.atMs)}</div>`)}</dd>
</dl>
${commit.parents.length > 0 ? html`<p><a href="${href(`/repos/${id}/compare`, { from: commit.parents[0]!, to: oid })}">compare with its parent</a></p>` : ''}
</section>
${viewSwitch(`/repos/${id}/commit/${oid}`, {}, split)}
${await diffView(objects, commit.parents[0] ?? null, oid, split, partOf(query), (part) => href(`/repos/${id}/commit/${oid}`, { view: split ? 'split' : undefined, part }))}`,
  }));
}

export async function comparePage(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) return lockedPage(context, opened, 'commits');
  const { repo, objects } = opened;
  const id = repo.info.id;
  const fromRev = (query.get('from') ?? '').trim();
  const toRev = (query.get('to') ?? '').trim();
  const split = query.get('view') === 'split';
  const form = html`<form class="compare" method="get" action="/repos/${id}/compare"><input name="from" value="${fromRev}" placeholder="base: ref or commit" class="mono"> … <input name="to" value="${toRev}" placeholder="compare: ref or commit" class="mono"> <button type="submit">Compare</button></form>`;
  let body: Html = html`<p class="muted">Name two refs or commits (full or abbreviated ids).</p>`;
  if (toRev !== '' && fromRev === '') {
    // One commit asked for (the commit list's search box): show it.
    const oid = await objects.resolveCommit(toRev);
    if (oid === null) throw new NotFound(`no branch, tag or commit '${toRev}' in this repository`);
    return { status: 303, body: '', headers: { location: `/repos/${id}/commit/${oid}` } };
  }
  if (fromRev !== '' && toRev !== '') {
    const [from, to] = [await commitOf(objects, fromRev), await commitOf(objects, toRev)];
    const base = await objects.mergeBase(from, to);
    const commits = await objects.between(from, to, 200);
    body = html`<p class="muted mono">${from} … ${to}${base !== null && base !== from ? html` (merge base ${base})` : ''}</p>
<h3>${commits.length === 200 ? '200+' : commits.length} commit(s)</h3>
${commitRows(id, commits)}
${viewSwitch(`/repos/${id}/compare`, { from: fromRev, to: toRev }, split)}
${await diffView(objects, base ?? from, to, split, partOf(query), (part) => href(`/repos/${id}/compare`, { from: fromRev, to: toRev, view: split ? 'split' : undefined, part }))}`;
  }
  return htmlReply(page({ title: `Compare · ${repo.info.name}`, network: context.services.networkName, repo: nav(repo, 'commits'), body: html`<h2>Compare</h2>${form}${body}` }));
}

export async function refsPage(context: WebContext, { params }: RouteRequest): Promise<Reply> {
  const repo = await context.repositories.load(params[0]!);
  const id = repo.info.id;
  const events = await context.services.ledger.listPushes(id);
  // The push that last set each ref.
  const setBy = new Map<string, number>();
  for (const event of events) for (const update of event.updates) if (update.new !== null) setBy.set(update.name, event.seq);
  const total = events.length === 0 ? 0 : events.at(-1)!.seq;
  const rows = (prefix: string) => [...repo.refs].filter(([name]) => name.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, oid]) => {
    const seq = setBy.get(name);
    return html`<tr><td><span class="ref">${shortRef(name)}</span>${name === repo.info.head ? html` <span class="tag">default</span>` : ''}</td>
<td class="mono sha">${repo.readable ? html`<a href="/repos/${id}/commit/${oid}">${oid}</a>` : oid}</td>
<td>${seq === undefined ? '' : html`<a href="${pushLink(id, seq, total)}">push ${seq}</a>`}</td></tr>`;
  });
  const others = [...repo.refs.keys()].filter((name) => !name.startsWith('refs/heads/') && !name.startsWith('refs/tags/'));
  return htmlReply(page({
    title: `Branches and tags · ${repo.info.name}`,
    network: context.services.networkName,
    repo: nav(repo, 'refs'),
    body: html`<h2>Branches</h2><table class="list refs"><thead><tr><th>Branch</th><th>Commit</th><th>Set by</th></tr></thead><tbody>${rows('refs/heads/')}</tbody></table>
<h2>Tags</h2><table class="list refs"><thead><tr><th>Tag</th><th>Commit</th><th>Set by</th></tr></thead><tbody>${rows('refs/tags/')}</tbody></table>
${others.length > 0 ? html`<h2>Other refs</h2><ul>${others.map((name) => html`<li class="ref">${name}</li>`)}</ul>` : ''}`,
  }));
}
