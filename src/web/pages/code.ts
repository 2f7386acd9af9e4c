/**
 * The code pages of a repository: the overview (tree and README), a folder or a file at any ref (numbered lines,
 * pictures inline, Markdown rendered with its source a click away), a path's history (a file's across renames), a
 * file's blame, and raw bytes streamed as plain text, a picture or a download.
 */
import { Readable } from 'node:stream';
import type { RepositoryObjects, TreeEntry } from '../../ports/object-cache.ts';
import { formatBytes } from '../../remote/progress.ts';
import { blamedCode, numberedCode } from '../code-view.ts';
import { href, html, trusted, type Html } from '../html.ts';
import { formatUtc, page, pager, shortOid } from '../layout.ts';
import { renderMarkdown } from '../markdown.ts';
import { pushIndex } from '../push-commits.ts';
import { Recent } from '../recent.ts';
import { NotFound, htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';
import { pushLink } from './shared.ts';
import { breadcrumbs, commitRows, COMMITS_PER_PAGE, isOpened, lockedPage, nav, open, openAt, pageNumber, refPicker, shortRef, subject } from './repository-parts.ts';

/** Files above this are not shown inline (a download link instead). */
export const LARGE_FILE = 1024 * 1024;
const README_NAMES = ['readme.md', 'readme.markdown', 'readme', 'readme.txt', 'readme.rst'];
const MARKDOWN = /\.(md|markdown|mdown|mkd)$/i;
/** git's own test for a binary file looks at this many bytes for a NUL. */
const BINARY_SNIFF_BYTES = 8000;

/**
 * Pictures a browser shows, by extension. SVG is shown only through `<img>` (where it runs no script): its raw URL
 * is a download, never a document of this origin.
 */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  bmp: 'image/bmp', ico: 'image/x-icon', svg: 'image/svg+xml',
};

function imageTypeOf(name: string): string | null {
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return IMAGE_TYPES[ext] ?? null;
}

function isBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/**
 * Markdown rendered last, by blob and by what its links depend on (repository, ref, folder). Rendering a large README
 * holds the event loop for seconds; a blob never changes, so each is rendered once while it is among the recent.
 */
const renderedMarkdown = new Recent<Promise<Html>>(16);

/** Markdown of the blob `oid` at `path` (or a README at the root) with its relative links resolved at `ref`. */
export function markdownHtml(objects: RepositoryObjects, id: string, ref: string, path: string, oid: string): Promise<Html> {
  const dir = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
  const rendered = renderedMarkdown.getOrMake(`${oid} ${id} ${ref} ${dir}`, async () => {
    const text = Buffer.from(await objects.readBlob(oid)).toString('utf8');
    return html`<div class="markdown">${trusted(renderMarkdown(text, { dir, page: (target) => href(`/repos/${id}/tree`, { ref, path: target }), raw: (target) => href(`/repos/${id}/raw`, { ref, path: target }) }))}</div>`;
  });
  // A failed read is not kept: the next view tries again.
  rendered.catch(() => renderedMarkdown.forget(`${oid} ${id} ${ref} ${dir}`));
  return rendered;
}

function treeTable(id: string, ref: string, dir: string, entries: TreeEntry[]): Html {
  return html`<table class="list tree"><tbody>${entries.map((entry) => {
    const path = dir === '' ? entry.name : `${dir}/${entry.name}`;
    return html`<tr class="${entry.type}"><td>${entry.type === 'commit' ? html`<span>${entry.name}</span> <span class="muted">submodule at ${shortOid(entry.oid)}</span>` : html`<a href="${href(`/repos/${id}/tree`, { ref, path })}">${entry.name}</a>${entry.type === 'tree' ? '/' : ''}`}</td><td class="num">${entry.size === null ? '' : formatBytes(entry.size)}</td></tr>`;
  })}</tbody></table>`;
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
    const body = MARKDOWN.test(readme.name) ? await markdownHtml(objects, id, ref, readme.name, readme.oid) : html`<pre>${Buffer.from(await objects.readBlob(readme.oid)).toString('utf8')}</pre>`;
    readmeHtml = html`<section class="readme"><h2>${readme.name}</h2>${body}</section>`;
  }
  return htmlReply(page({
    title: repo.info.name,
    network: context.services.networkName,
    repo: nav(repo, 'code'),
    body: html`<div class="bar">${refPicker(repo, ref, `/repos/${id}/tree`)} <span class="muted">clone:</span> <code class="mono clone">git clone walrus://${id}</code></div>
${last ? html`<p class="last-commit"><a class="mono" href="/repos/${id}/commit/${last.oid}">${shortOid(last.oid)}</a> ${subject(last)} <span class="muted">— ${last.author.name}, ${formatUtc(last.author.time * 1000)}</span></p>` : ''}
${treeTable(id, ref, '', entries)}
${readmeHtml}`,
  }));
}

export async function treePage(context: WebContext, request: RouteRequest): Promise<Reply> {
  const at = await openAt(context, request, 'code');
  if (!('objects' in at)) return at;
  const { repo, objects, ref, path, commit } = at;
  const id = repo.info.id;
  const entry = await objects.entry(commit, path);
  if (entry === null) throw new NotFound(`no path '${path}' at ${ref}`);
  let body: Html;
  if (entry.type === 'tree') {
    body = treeTable(id, ref, path, await objects.listTree(entry.oid));
  } else if (entry.type === 'commit') {
    body = html`<p>A submodule at commit <span class="mono">${entry.oid}</span>.</p>`;
  } else {
    body = await fileView(objects, id, ref, path, entry, request.query.get('plain') === '1');
  }
  return htmlReply(page({
    title: `${path || 'root'} at ${shortRef(ref)} · ${repo.info.name}`,
    network: context.services.networkName,
    repo: nav(repo, 'code'),
    body: html`<div class="bar">${refPicker(repo, ref, `/repos/${id}/tree`, path)} ${breadcrumbs(id, ref, path)} <a class="history-link" href="${href(`/repos/${id}/history`, { ref, path: path || undefined })}">History</a>${entry.type === 'blob' ? html` <a class="blame-link" href="${href(`/repos/${id}/blame`, { ref, path })}">Blame</a>` : ''}</div>
<p class="muted mono sha">at commit ${commit}</p>
${body}`,
  }));
}

async function fileView(objects: RepositoryObjects, id: string, ref: string, path: string, entry: TreeEntry, plain: boolean): Promise<Html> {
  const size = entry.size ?? 0;
  const raw = href(`/repos/${id}/raw`, { ref, path });
  const markdown = MARKDOWN.test(entry.name);
  const views = markdown
    ? html` <nav class="view-switch" aria-label="view">${plain ? html`<a href="${href(`/repos/${id}/tree`, { ref, path })}">Preview</a> · <strong aria-current="page">Source</strong>` : html`<strong aria-current="page">Preview</strong> · <a href="${href(`/repos/${id}/tree`, { ref, path, plain: 1 })}">Source</a>`}</nav>`
    : '';
  const head = html`<div class="file-head"><span class="file-name">${entry.name}</span> <span class="muted">${formatBytes(size)} · mode ${entry.mode} · blob <span class="sha">${entry.oid}</span></span> <a href="${raw}">raw</a>${views}</div>`;
  if (imageTypeOf(entry.name) !== null) return html`${head}<div class="image-box"><img src="${raw}" alt="${entry.name}"></div>`;
  if (size > LARGE_FILE) return html`${head}<p class="notice">This file is ${formatBytes(size)}: too large to show here. <a href="${raw}">Open it raw</a>.</p>`;
  const bytes = await objects.readBlob(entry.oid);
  if (isBinary(bytes)) return html`${head}<p class="notice">Binary file (${formatBytes(size)}), not shown. <a href="${raw}">Download it</a>.</p>`;
  if (markdown && !plain) return html`${head}<div class="file-markdown">${await markdownHtml(objects, id, ref, path, entry.oid)}</div>`;
  return html`${head}${numberedCode(entry.name, Buffer.from(bytes).toString('utf8'))}`;
}

/**
 * The commits that changed a file or folder, newest first; a file's history follows it across renames (each rename
 * said, with a link to the file under its old name).
 */
export async function historyPage(context: WebContext, request: RouteRequest): Promise<Reply> {
  const at = await openAt(context, request, 'commits');
  if (!('objects' in at)) return at;
  const { repo, objects, ref, path, commit } = at;
  const id = repo.info.id;
  const entry = path === '' ? null : await objects.entry(commit, path);
  if (path !== '' && entry === null) throw new NotFound(`no path '${path}' at ${ref}`);
  const pageNo = pageNumber(request.query);
  const skip = (pageNo - 1) * COMMITS_PER_PAGE;
  let rows: Html;
  let more: boolean;
  if (entry?.type === 'blob') {
    const found = await objects.fileHistory(commit, path, skip, COMMITS_PER_PAGE + 1);
    const shown = found.slice(0, COMMITS_PER_PAGE);
    more = found.length > COMMITS_PER_PAGE;
    rows = shown.length === 0 ? html`<p class="muted">No commit at ${shortRef(ref)} changes it.</p>` : commitRows(id, shown.map((f) => f.commit), (_, i) => {
      const { path: at, renamedFrom, commit: c } = shown[i]!;
      return html`${at !== path ? html` <span class="muted">as</span> <a class="mono" href="${href(`/repos/${id}/tree`, { ref: c.oid, path: at })}">${at}</a>` : ''}${renamedFrom !== undefined ? html` <span class="renamed">renamed from <a class="mono" href="${href(`/repos/${id}/tree`, { ref: c.parents[0] ?? c.oid, path: renamedFrom })}">${renamedFrom}</a></span>` : ''}`;
    });
  } else {
    const commits = await objects.history(commit, path, skip, COMMITS_PER_PAGE + 1);
    more = commits.length > COMMITS_PER_PAGE;
    rows = commits.length === 0 ? html`<p class="muted">No commit at ${shortRef(ref)} changes it.</p>` : commitRows(id, commits.slice(0, COMMITS_PER_PAGE));
  }
  return htmlReply(page({
    title: `History of ${path || 'root'} at ${shortRef(ref)} · ${repo.info.name}`,
    network: context.services.networkName,
    repo: nav(repo, 'commits'),
    body: html`<div class="bar">${refPicker(repo, ref, `/repos/${id}/history`, path)} ${breadcrumbs(id, ref, path)}${entry?.type === 'blob' ? html` <a class="blame-link" href="${href(`/repos/${id}/blame`, { ref, path })}">Blame</a>` : ''}</div>
<h2>History of <span class="mono">${path || 'the whole tree'}</span>${entry?.type === 'blob' ? html` <span class="muted">(following renames)</span>` : ''}</h2>
${rows}
${pager(pageNo, more, (p) => href(`/repos/${id}/history`, { ref, path: path || undefined, page: p }))}`,
  }));
}

/** How far back blame looks: lines last changed further back are blamed on the commit there, which the page names. */
export const BLAME_COMMITS = 10_000;

/** Who last changed each line of a file: the commit, its author and date, and the push that brought it. */
export async function blamePage(context: WebContext, request: RouteRequest): Promise<Reply> {
  const at = await openAt(context, request, 'code');
  if (!('objects' in at)) return at;
  const { repo, objects, ref, path, commit } = at;
  const id = repo.info.id;
  const entry = path === '' ? null : await objects.entry(commit, path);
  if (entry === null || entry.type !== 'blob') throw new NotFound(`no file '${path}' at ${ref}`);
  const size = entry.size ?? 0;
  const raw = href(`/repos/${id}/raw`, { ref, path });
  let body: Html;
  if (size > LARGE_FILE) {
    body = html`<p class="notice">This file is ${formatBytes(size)}: too large to blame here. <code>git blame ${commit} -- ${path}</code> in a clone does it.</p>`;
  } else {
    const bytes = await objects.readBlob(entry.oid);
    if (isBinary(bytes)) {
      body = html`<p class="notice">Binary file (${formatBytes(size)}): it has no lines to blame. <a href="${raw}">Download it</a>.</p>`;
    } else {
      const [blame, events] = await Promise.all([objects.blame(commit, path, BLAME_COMMITS), context.services.ledger.listPushes(id)]);
      const pushes = await pushIndex(objects, events);
      const newest = events.at(-1)?.seq ?? 0;
      const cell = (oid: string): Html => {
        const info = blame.commits.get(oid)!;
        const push = pushes.get(oid);
        return html`<a class="mono" href="/repos/${id}/commit/${oid}">${shortOid(oid)}</a> <span class="blame-summary">${info.summary}</span>
<div class="muted">${info.author.name} · <time datetime="${new Date(info.author.time * 1000).toISOString()}">${formatUtc(info.author.time * 1000).slice(0, 10)}</time> · ${push === undefined ? 'in no push' : html`<a href="${pushLink(id, push.seq, newest)}">push ${push.seq}</a>`}${oid === blame.stoppedAt ? html` · <strong>or earlier</strong>` : ''}</div>`;
      };
      const stopped = blame.stoppedAt === null ? '' : html`<p class="notice">Blame looked ${BLAME_COMMITS} commits back and stopped there: lines marked “or earlier” were last changed at <a class="mono" href="/repos/${id}/commit/${blame.stoppedAt}">${shortOid(blame.stoppedAt)}</a> or before it. <a href="${href(`/repos/${id}/blame`, { ref: blame.stoppedAt, path: blame.commits.get(blame.stoppedAt)!.path || path })}">Blame the file there</a> to look further.</p>`;
      body = html`${stopped}${blamedCode(entry.name, Buffer.from(bytes).toString('utf8'), blame.lines, cell)}`;
    }
  }
  return htmlReply(page({
    title: `Blame of ${path} at ${shortRef(ref)} · ${repo.info.name}`,
    network: context.services.networkName,
    repo: nav(repo, 'code'),
    body: html`<div class="bar">${refPicker(repo, ref, `/repos/${id}/blame`, path)} ${breadcrumbs(id, ref, path)} <a class="history-link" href="${href(`/repos/${id}/history`, { ref, path })}">History</a> <a href="${href(`/repos/${id}/tree`, { ref, path })}">File</a></div>
<p class="muted mono sha">at commit ${commit}</p>
<div class="file-head"><span class="file-name">${entry.name}</span> <span class="muted">${formatBytes(size)} · who last changed each line</span> <a href="${raw}">raw</a></div>
${body}`,
  }));
}

/**
 * A file's bytes, streamed (any size, never held whole): a picture as its type, text as UTF-8 plain text to read in
 * the browser, anything else (and SVG, which is a document when opened) as a download. The response's own CSP
 * sandboxes it, and nosniff (on every answer) keeps the browser to the stated type.
 */
export async function rawFile(context: WebContext, request: RouteRequest): Promise<Reply> {
  const at = await openAt(context, request, 'code');
  if (!('objects' in at)) throw new NotFound('this repository is private and not readable here');
  const { objects, ref, path, commit } = at;
  const entry = await objects.entry(commit, path);
  if (entry === null || entry.type !== 'blob') throw new NotFound(`no file '${path}' at ${ref}`);
  const name = path.split('/').at(-1)!;
  const { head, body } = await peek(objects.streamBlob(entry.oid), BINARY_SNIFF_BYTES);
  const image = imageTypeOf(name);
  const [type, inline] = image !== null ? [image, image !== 'image/svg+xml']
    : isBinary(head) ? ['application/octet-stream', false] : ['text/plain; charset=utf-8', true];
  return {
    type,
    body,
    headers: {
      ...(entry.size !== null ? { 'content-length': String(entry.size) } : {}),
      'content-disposition': `${inline ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(name)}`,
      'content-security-policy': "default-src 'none'; sandbox",
    },
  };
}

/** The first `bytes` of a stream (or all of it, if shorter), and the whole stream again from its start. */
async function peek(stream: Readable, bytes: number): Promise<{ head: Buffer; body: Readable }> {
  const chunks: Buffer[] = [];
  let size = 0;
  const source = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  while (size < bytes) {
    const next = await source.next();
    if (next.done === true) break;
    chunks.push(next.value);
    size += next.value.length;
  }
  const head = Buffer.concat(chunks);
  async function* whole(): AsyncGenerator<Buffer> {
    try {
      if (head.length > 0) yield head;
      for (let next = await source.next(); next.done !== true; next = await source.next()) yield next.value;
    } finally {
      stream.destroy();
    }
  }
  return { head, body: Readable.from(whole(), { objectMode: false }) };
}
