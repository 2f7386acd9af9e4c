/** Access, the trust root: owner, writers, readers, protected refs and the default branch, and when each changed. */
import type { AccessChange } from '../../ports/directory.ts';
import { explorerFor } from '../explorer.ts';
import { html } from '../html.ts';
import { formatUtc, page } from '../layout.ts';
import { htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';

const CHANGE_TEXT: Record<AccessChange['kind'], string> = {
  'writer-added': 'writer added',
  'writer-removed': 'writer removed',
  'reader-added': 'reader added',
  'reader-removed': 'reader removed',
  'ref-protected': 'ref protected',
  'ref-unprotected': 'ref unprotected',
  'head-set': 'default branch set to',
  'ownership-transferred': 'ownership transferred to',
};

export async function accessPage(context: WebContext, { params }: RouteRequest): Promise<Reply> {
  const { services } = context;
  const repo = await context.repositories.load(params[0]!);
  const { info } = repo;
  const [changes, created] = await Promise.all([services.directory.listAccessChanges(info.id), services.directory.listRepositories()]);
  const creation = created.find((r) => r.id === info.id);
  const explorer = explorerFor(services.networkName);
  const tx = (digest: string) => (explorer ? html`<a class="mono" href="${explorer.tx(digest)}" rel="noopener noreferrer">${digest}</a>` : html`<span class="mono">${digest}</span>`);
  const addresses = (list: readonly string[], none: string) => (list.length === 0 ? html`<span class="muted">${none}</span>` : html`<ul>${list.map((a) => html`<li class="mono">${a}</li>`)}</ul>`);
  return htmlReply(page({
    title: `Access · ${info.name}`,
    network: services.networkName,
    repo: { id: info.id, name: info.name, owner: info.owner, private: info.private, tab: 'access' },
    body: html`<h2>Who may do what</h2>
<dl class="facts">
<dt>owner</dt><dd class="mono">${info.owner} <span class="muted">(manages writers, readers and protected refs; may push)</span></dd>
<dt>writers</dt><dd>${addresses(info.writers, 'none besides the owner')}</dd>
<dt>readers</dt><dd>${info.private ? addresses(info.readers, 'none besides the owner and the writers') : html`anyone <span class="muted">(a public repository: its packs are not encrypted)</span>`}</dd>
<dt>protected refs</dt><dd>${info.protectedRefs.length === 0 ? html`<span class="muted">none</span>` : html`<ul>${info.protectedRefs.map((r) => html`<li class="ref">${r}</li>`)}</ul> <span class="muted">(no forced update or deletion)</span>`}</dd>
<dt>default branch</dt><dd class="ref">${info.head}</dd>
<dt>object</dt><dd>${explorer ? html`<a class="mono" href="${explorer.object(info.id)}" rel="noopener noreferrer">${info.id}</a>` : html`<span class="mono">${info.id}</span>`}</dd>
</dl>
<h2>Changes</h2>
<table class="list"><thead><tr><th>Change</th><th>Subject</th><th>When</th><th>Transaction</th></tr></thead><tbody>
${creation ? html`<tr><td>created</td><td>${creation.name} by <span class="mono">${creation.owner}</span></td><td>${creation.checkpoint === null ? '' : `checkpoint ${creation.checkpoint}`}</td><td>${tx(creation.txDigest)}</td></tr>` : ''}
${changes.map((c) => html`<tr><td>${CHANGE_TEXT[c.kind]}</td><td class="${c.kind.startsWith('ref') || c.kind === 'head-set' ? 'ref' : 'mono'}">${c.subject}</td><td>${c.timestampMs === null ? (c.checkpoint === null ? '' : `checkpoint ${c.checkpoint}`) : formatUtc(c.timestampMs)}</td><td>${tx(c.txDigest)}</td></tr>`)}
</tbody></table>`,
  }));
}
