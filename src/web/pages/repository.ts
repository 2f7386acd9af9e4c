/** The history pages of a repository: commits, a commit (with the push that brought it), compare, branches and tags. */
import { html as diffHtml } from 'diff2html';
import type { FileChange, RepositoryObjects } from '../../ports/object-cache.ts';
import { formatBytes } from '../../remote/progress.ts';
import { href, html, trusted, type Html } from '../html.ts';
import { formatUtc, page, pager, shortOid } from '../layout.ts';
import { pushThatBrought } from '../push-commits.ts';
import { Recent } from '../recent.ts';
import { sortRefs } from '../ref-order.ts';
import { NotFound, htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';
import { commitOf, commitRows, COMMITS_PER_PAGE, isOpened, lockedPage, nav, open, pageNumber, refPicker, shortRef, subject } from './repository-parts.ts';
import { deploymentsOf, pushLink } from './shared.ts';

/** A diff is cut (on a file boundary) past this many bytes. */
export const DIFF_LIMIT = 16 * 1024 * 1024;
const WORD_MARKS_LIMIT = 256 * 1024;

export async function commitsPage(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) return lockedPage(context, opened, 'commits');
  const { repo, objects } = opened;
  const id = repo.info.id;
  const ref = query.get('ref') || repo.info.head;
  const pageNo = pageNumber(query);
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

/** The parts of the diffs shown last, and each part rendered (commit pairs are immutable). */
const diffPartsKept = new Recent<Promise<{ parts: string[]; truncated: boolean; bytes: number }>>(8);
const renderedParts = new Recent<Html>(32);

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
  const diff = diffPartsKept.getOrMake(key, () => objects.diff(from, to, DIFF_LIMIT).then((patch) => ({ parts: splitDiff(patch.text), truncated: patch.truncated, bytes: patch.text.length })));
  const [{ parts, truncated, bytes }, changes] = await Promise.all([diff, objects.diffStat(from, to)]);
  if (parts.length === 0) return html`<p class="muted">No changes.</p>`;
  const index = Math.min(Math.max(1, part), parts.length) - 1;
  const renderKey = `${key}:${split}:${index}`;
  const rendered = renderedParts.getOrMake(renderKey, () => trusted(diffHtml(parts[index]!, {
    outputFormat: split ? 'side-by-side' : 'line-by-line', drawFileList: false, matching: 'none', diffMaxChanges: 20_000,
    // Word-level marks within changed lines cost most of a large diff's rendering: a large diff goes without.
    ...(bytes > WORD_MARKS_LIMIT ? { maxLineLengthHighlight: 0 } : {}),
    // Each file's lines scroll sideways on their own: a keyboard user scrolls them once they hold the focus.
  }).replace(/<div class="(d2h-file-diff|d2h-file-side-diff)">/g, '<div class="$1" tabindex="0">')));
  // Above and below the diff: two navigations, each named.
  const nav = (where: string) => (parts.length === 1 ? '' : html`<nav class="pager diff-parts" aria-label="Parts of the diff, ${where}">${index > 0 ? html`<a rel="prev" href="${link(index)}">← previous files</a>` : ''} <span>part ${index + 1} of ${parts.length} (${formatBytes(bytes)} of diff)</span> ${index + 1 < parts.length ? html`<a rel="next" href="${link(index + 2)}">next files →</a>` : ''}</nav>`);
  return html`${fileList(changes, filesPerPart(parts), link)}${nav('above')}${rendered}${nav('below')}
${truncated && index + 1 === parts.length ? html`<p class="notice">The diff is larger than ${formatBytes(DIFF_LIMIT)}: the files after the cut are not shown. <code>git diff ${from ?? '(empty tree)'} ${to}</code> shows all of it.</p>` : ''}`;
}

function partOf(query: URLSearchParams): number {
  return Math.max(1, Math.floor(Number(query.get('part') ?? 1)) || 1);
}

function viewSwitch(base: string, query: Record<string, string>, split: boolean): Html {
  return html`<nav class="view-switch" aria-label="Diff view">${split ? html`<a href="${href(base, query)}">unified</a> · <strong>split</strong>` : html`<strong>unified</strong> · <a href="${href(base, { ...query, view: 'split' })}">split</a>`}</nav>`;
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
  const events = await context.services.ledger.listPushes(id);
  const pushed = await pushThatBrought(objects, events, oid);
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
<dt>pushed</dt><dd class="pushed">${pushed === null ? html`<span class="muted">by no push in the log</span>` : html`in <a href="${pushLink(id, pushed.seq, events.at(-1)!.seq)}">push ${pushed.seq}</a> by <span class="mono">${pushed.sender}</span>${pushed.sender === repo.info.owner ? ' (owner)' : ''} · ${formatUtc(pushed.timestampMs)}`}</dd>
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
  const sorted = sortRefs(repo.refs.keys(), repo.info.head);
  const rows = (prefix: string) => sorted.filter((name) => name.startsWith(prefix)).map((name) => {
    const oid = repo.refs.get(name)!;
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
