/**
 * What the code and commit pages of a repository share: opening it (or its locked page when private and not
 * readable here), resolving refs and paths from the address bar, the ref picker, breadcrumbs and commit rows.
 */
import type { CommitInfo, RepositoryObjects } from '../../ports/object-cache.ts';
import { href, html, type Fragment, type Html } from '../html.ts';
import { formatUtc, page, repoNav, shortOid, type RepoNav } from '../layout.ts';
import { sortRefs } from '../ref-order.ts';
import type { LoadedRepository } from '../repositories.ts';
import { NotFound, htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';

export const COMMITS_PER_PAGE = 50;

/** The `page` query parameter: 1 unless a whole number above it. */
export function pageNumber(query: URLSearchParams): number {
  return Math.max(1, Math.floor(Number(query.get('page') ?? 1)) || 1);
}

export function nav(repo: LoadedRepository, tab: RepoNav['tab']): RepoNav {
  return repoNav(repo.info, tab);
}

/** The page of a private repository the running key may not read: what the chain says, and who may read it. */
export function lockedPage(context: WebContext, repo: LoadedRepository, tab: RepoNav['tab']): Reply {
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

export interface Opened {
  repo: LoadedRepository;
  objects: RepositoryObjects;
}

export async function open(context: WebContext, id: string): Promise<Opened | LoadedRepository> {
  const repo = await context.repositories.load(id);
  if (!repo.readable) return repo;
  return { repo, objects: await context.repositories.objects(repo) };
}

export function isOpened(value: Opened | LoadedRepository): value is Opened {
  return 'objects' in value;
}

/** A readable repository at the ref (the default branch when none), path and commit the address names. */
export interface OpenedAt extends Opened {
  ref: string;
  path: string;
  commit: string;
}

/** The repository of a code page at its address's ref and path, or the locked page when it is not readable here. */
export async function openAt(context: WebContext, { params, query }: RouteRequest, tab: RepoNav['tab']): Promise<OpenedAt | Reply> {
  const opened = await open(context, params[0]!);
  if (!isOpened(opened)) return lockedPage(context, opened, tab);
  const ref = query.get('ref') || opened.repo.info.head;
  const path = cleanPath(query.get('path'));
  return { ...opened, ref, path, commit: await commitOf(opened.objects, ref) };
}

export async function commitOf(objects: RepositoryObjects, rev: string): Promise<string> {
  const oid = await objects.resolveCommit(rev);
  if (oid === null) throw new NotFound(`no branch, tag or commit '${rev}' in this repository`);
  return oid;
}

/** `refs/heads/main` → `main` for display; the full name stays in links. */
export function shortRef(name: string): string {
  return name.replace(/^refs\/(heads|tags)\//, '');
}

/**
 * The ref picker: a disclosure with a form and a list of links, no select. Typing filters the list (the page script),
 * Enter opens what was typed (a ref, a tag or a commit id), Tab walks the links; the arrow keys move nothing, so a
 * keyboard user chooses at their pace. Tags come newest version first.
 */
export function refPicker(repo: LoadedRepository, current: string, action: string, path?: string): Html {
  const names = sortRefs(repo.refs.keys(), repo.info.head);
  const shown = /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(current) ? shortOid(current) : shortRef(current);
  const kind = (name: string) => (name.startsWith('refs/heads/') ? 'branch' : name.startsWith('refs/tags/') ? 'tag' : '');
  return html`<details class="ref-picker"><summary><span class="muted">${kind(current) || 'at'}</span> <span class="ref">${shown}</span></summary>
<div class="ref-menu"><form method="get" action="${action}" role="search"><label for="ref-filter">Branch, tag or commit</label>
<input id="ref-filter" name="ref" type="search" autocomplete="off" spellcheck="false" class="mono" aria-controls="ref-list">${path ? html`<input type="hidden" name="path" value="${path}">` : ''} <button type="submit">Go</button></form>
<ul class="ref-list" id="ref-list">${names.map((name) => html`<li data-name="${name.toLowerCase()}"><a href="${href(action, { ref: name, path: path || undefined })}"${name === current ? html` aria-current="true"` : ''}>${shortRef(name)}</a> <span class="muted">${kind(name)}</span></li>`)}</ul>
<p class="muted" id="ref-none" hidden>No branch or tag matches: Go opens what you typed.</p></div></details>`;
}

export function breadcrumbs(id: string, ref: string, path: string): Html {
  const parts = path === '' ? [] : path.split('/');
  return html`<div class="crumbs"><a href="${href(`/repos/${id}/tree`, { ref })}">root</a>${parts.map((part, i) => html` / <a href="${href(`/repos/${id}/tree`, { ref, path: parts.slice(0, i + 1).join('/') })}">${part}</a>`)}</div>`;
}

/** Checks a path from the address bar: relative segments and NULs are refused before git sees it. */
function cleanPath(raw: string | null): string {
  const path = (raw ?? '').replace(/^\/+|\/+$/g, '');
  if (path === '') return '';
  const parts = path.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..' || part.includes('\0'))) throw new NotFound(`no path '${path}' in this repository`);
  return path;
}

export function subject(commit: CommitInfo): string {
  return commit.message.split('\n')[0] ?? '';
}

/** A table of commits; `note` adds to a commit's line (a file's history says under which name it was). */
export function commitRows(id: string, commits: CommitInfo[], note?: (commit: CommitInfo, index: number) => Fragment): Html {
  return html`<table class="list commits"><tbody>${commits.map((c, i) => html`<tr>
<td><a href="/repos/${id}/commit/${c.oid}">${subject(c) || '(no message)'}</a><div class="muted">${c.author.name} · ${formatUtc(c.author.time * 1000)}${note?.(c, i)}</div></td>
<td class="mono sha"><a href="/repos/${id}/commit/${c.oid}">${c.oid}</a></td></tr>`)}</tbody></table>`;
}

