import type { PushEvent } from '../../ports/ledger.ts';
import { html } from '../html.ts';
import { formatUtc, page } from '../layout.ts';
import { htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';

/** Every repository of the registry, newest first, with a filter on name, owner and id. */
export async function repositoriesPage(context: WebContext, { query }: RouteRequest): Promise<Reply> {
  const { services } = context;
  const filter = (query.get('q') ?? '').trim().toLowerCase();
  const [created, lastPush] = await Promise.all([services.directory.listRepositories(), lastPushes(context)]);
  const shown = created.filter((r) => filter === '' || `${r.name} ${r.owner} ${r.id}`.toLowerCase().includes(filter)).reverse();
  const infos = await Promise.all(shown.map((r) => services.ledger.getRepository(r.id)));
  const rows = shown.map((r, i) => {
    const info = infos[i]!;
    const last = lastPush.get(r.id);
    return html`<tr class="repo-row" data-filter="${`${r.name} ${r.owner} ${r.id}`.toLowerCase()}">
<td><a href="/repos/${r.id}">${r.name}</a></td>
<td>${info.private ? html`<span class="tag private">private</span>` : html`<span class="tag">public</span>`}</td>
<td class="mono">${r.owner}</td>
<td>${info.seq}</td>
<td>${last === undefined ? html`<span class="muted">no push yet</span>` : formatUtc(last.timestampMs)}</td>
</tr>`;
  });
  return htmlReply(page({
    title: 'Repositories',
    network: services.networkName,
    body: html`<h1>Repositories</h1>
<form class="filter" method="get" action="/"><input type="search" name="q" value="${query.get('q') ?? ''}" placeholder="filter by name, owner or id" id="repo-filter" autocomplete="off"> <button type="submit">Filter</button></form>
<table class="list" id="repo-list"><thead><tr><th>Name</th><th>Access</th><th>Owner</th><th>Pushes</th><th>Last push</th></tr></thead>
<tbody>${rows}</tbody></table>
${shown.length === 0 ? html`<p class="muted">${filter === '' ? 'No repository on this network yet: create one with git walrus init <name>.' : 'No repository matches the filter.'}</p>` : ''}`,
  }));
}

/** The last push of each repository, from one pass over every `Pushed` event of the package. */
async function lastPushes(context: WebContext): Promise<Map<string, PushEvent>> {
  const last = new Map<string, PushEvent>();
  let cursor: string | null = null;
  for (;;) {
    const page = await context.services.ledger.listPushesAfter(cursor);
    for (const event of page.events) last.set(event.repository, event);
    if (!page.hasNextPage || page.cursor === null) return last;
    cursor = page.cursor;
  }
}
