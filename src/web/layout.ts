import { html, type Fragment, type Html } from './html.ts';

export interface RepoNav {
  id: string;
  name: string;
  owner: string;
  private: boolean;
  /** Which tab is open. */
  tab: 'code' | 'commits' | 'refs' | 'pushes' | 'access' | 'deployments';
}

const TABS: Array<[RepoNav['tab'], string, string]> = [
  ['code', 'Code', ''],
  ['commits', 'Commits', '/commits'],
  ['refs', 'Branches & tags', '/refs'],
  ['pushes', 'Push log', '/pushes'],
  ['access', 'Access', '/access'],
  ['deployments', 'Deployments', '/deployments'],
];

/** The tab a repository page's path belongs to (error pages keep the tabs of the page that was asked for). */
export function tabOfPath(suffix: string): RepoNav['tab'] {
  if (/^\/(commit|compare)/.test(suffix)) return 'commits';
  const named = TABS.find(([, , path]) => path !== '' && suffix.startsWith(path));
  return named?.[0] ?? 'code';
}

/**
 * A whole page: no inline script or style anywhere (the CSP forbids them), only /static files. Everything on it is in
 * a landmark (the site's header, the repository's region, main), and each navigation has a name of its own.
 */
export function page(options: { title: string; network: string; repo?: RepoNav; body: Fragment }): Html {
  const { repo } = options;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · git walrus</title>
<link rel="stylesheet" href="/static/diff2html.css">
<link rel="stylesheet" href="/static/highlight.css">
<link rel="stylesheet" href="/static/style.css">
<script src="/static/app.js" defer></script>
</head>
<body>
<header class="top"><a class="brand" href="/">git walrus</a> <nav aria-label="Site"><a href="/">Repositories</a> <a href="/market">Market</a></nav> <span class="network" title="the network this server reads">${options.network}</span></header>
${repo ? html`<section class="repo-head" aria-labelledby="repo-name"><h1 id="repo-name"><a href="/repos/${repo.id}">${repo.name}</a> ${repo.private ? html`<span class="tag private">private</span>` : html`<span class="tag">public</span>`}</h1>
<div class="muted mono">owner ${repo.owner} · <span class="sha">${repo.id}</span></div>
<nav class="tabs" aria-label="Repository">${TABS.map(([tab, label, suffix]) => html`<a href="/repos/${repo.id}${suffix}"${tab === repo.tab ? html` class="active" aria-current="page"` : ''}>${label}</a>`)}</nav></section>` : ''}
<main>
${options.body}
</main>
</body>
</html>
`;
}

/** The tabs of a repository's pages. */
export function repoNav(info: { id: string; name: string; owner: string; private: boolean }, tab: RepoNav['tab']): RepoNav {
  return { id: info.id, name: info.name, owner: info.owner, private: info.private, tab };
}

export function shortOid(oid: string): string {
  return oid.slice(0, 12);
}

export function formatUtc(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `page` links of a paginated list. */
export function pager(current: number, hasNext: boolean, link: (page: number) => string): Html {
  return html`<nav class="pager" aria-label="Pages">${current > 1 ? html`<a rel="prev" href="${link(current - 1)}">← newer</a>` : ''} <span>page ${current}</span> ${hasNext ? html`<a rel="next" href="${link(current + 1)}">older →</a>` : ''}</nav>`;
}
