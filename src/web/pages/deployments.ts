/**
 * Deployments: which provider runs which commit as which artifact since when, with the lease's URL where the chain
 * states one; "check" fetches each artifact from Walrus against its sha256 and each commit against the push log
 * (`git walrus deployments --verify`); how many other providers reproduced each build, from their attestations on
 * chain, and who built something else; any two deployed revisions can be diffed.
 */
import type { LeaseInfo } from '../../ports/market.ts';
import type { RecordReproduction } from '../../core/attestation.ts';
import { verifyDeployments } from '../../remote/market/deployments.ts';
import { reproductionsOf } from '../../remote/market/reproductions.ts';
import type { DeploymentLine } from '../../remote/market/format.ts';
import { explorerFor } from '../explorer.ts';
import { href, html } from '../html.ts';
import { formatUtc, page, shortOid } from '../layout.ts';
import { htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';
import { marketOf } from './shared.ts';

/** The URL the provider stated on a lease (`state_url`), when it is one a browser may follow. */
export function leaseUrl(lease: LeaseInfo | undefined): string | null {
  // The provider writes it: only an http(s) URL becomes a link, never a javascript: or data: one.
  const url = lease?.url;
  return url && /^https?:\/\//.test(url) ? url : null;
}

/** How many other providers reproduced the record's build (their attestations), and who built something else. */
export function reproductionCell(reproduction: RecordReproduction) {
  const n = reproduction.reproducedBy.length;
  const count = n === 0 ? html`<span class="badge unchecked">not reproduced yet</span>` : html`<span class="badge verified">reproduced by ${n} provider${n === 1 ? '' : 's'}</span>`;
  const differing = reproduction.differing.map((d) => html`<li>provider <a class="mono" href="/market/providers/${d.provider}">${shortOid(d.provider)}</a> built tar sha256 <span class="mono sha">${d.tarSha256}</span> under build key <span class="mono">${shortOid(d.buildKey)}</span></li>`);
  return html`${count}${differing.length > 0 ? html`<div><span class="badge failed">differs</span></div><ul class="findings">${differing}</ul>` : ''}`;
}

export async function deploymentsPage(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const { services } = context;
  const repo = await context.repositories.load(params[0]!);
  const { info } = repo;
  const market = await marketOf(context);
  const records = market === null ? [] : await market.listDeployments(info.id);
  const check = query.get('check') === '1';
  const lines: DeploymentLine[] = check
    ? await verifyDeployments({ ledger: services.ledger, artifactSha256: (blobId) => services.artifactSha256(blobId) }, info.id, records)
    : records.map((record) => ({ record }));
  if (market !== null) {
    const reproductions = await reproductionsOf(market.attestations(), info.id, records);
    lines.forEach((line, i) => { line.reproduction = reproductions[i]!; });
  }
  const leases = new Map<string, LeaseInfo>();
  if (market !== null) for (const lease of new Set(records.map((r) => r.lease))) leases.set(lease, await market.getLease(lease));
  const explorer = explorerFor(services.networkName);
  const commitCell = (oid: string) => (repo.readable ? html`<a class="mono" href="/repos/${info.id}/commit/${oid}">${oid}</a>` : html`<span class="mono">${oid}</span>`);
  const revisions = [...new Set(records.map((r) => r.commit))];
  const rows = lines.map(({ record: r, problems, reproduction }, i) => {
    const previous = lines.slice(0, i).reverse().find((l) => l.record.lease === r.lease && l.record.commit !== r.commit);
    const url = leaseUrl(leases.get(r.lease));
    return html`<tr class="deployment">
<td>${formatUtc(r.atMs)}</td>
<td><a class="mono" href="/market/providers/${r.provider}">${shortOid(r.provider)}</a><div class="muted">lease <a class="mono" href="/market/leases/${r.lease}">${shortOid(r.lease)}</a></div></td>
<td><span class="ref">${r.ref}</span><div>${commitCell(r.commit)}</div>${previous && repo.readable ? html`<a href="${href(`/repos/${info.id}/compare`, { from: previous.record.commit, to: r.commit })}">diff from the previous deployment</a>` : ''}</td>
<td><span class="mono">${explorer ? html`<a href="${explorer.blob(r.artifact)}" rel="noopener noreferrer">${r.artifact}</a>` : r.artifact}</span><div class="muted mono">sha256 ${r.sha256}</div></td>
<td>${url ? html`<a href="${url}" rel="noopener noreferrer">${url}</a>` : html`<span class="muted">none stated</span>`}</td>
<td>${reproduction ? reproductionCell(reproduction) : ''}</td>
<td>${problems === undefined ? html`<span class="badge unchecked">not checked</span>` : problems.length === 0 ? html`<span class="badge verified">verified</span>` : html`<span class="badge failed">failed</span><ul class="findings">${problems.map((p) => html`<li>${p}</li>`)}</ul>`}</td>
</tr>`;
  });
  return htmlReply(page({
    title: `Deployments · ${info.name}`,
    network: services.networkName,
    repo: { id: info.id, name: info.name, owner: info.owner, private: info.private, tab: 'deployments' },
    body: html`<h2>Deployments</h2>
${market === null ? html`<p class="muted">This network has no compute market.</p>` : ''}
${records.length === 0 ? html`<p class="muted">No provider has recorded a deployment of this repository.</p>` : html`
<p><a href="${href(`/repos/${info.id}/deployments`, { check: '1' })}" id="check-artifacts">Check every artifact</a> <span class="muted">(as <code>git walrus deployments walrus://${info.id} --verify</code>: each artifact from Walrus against its sha256, each commit against the push log)</span></p>
<table class="list deployments"><thead><tr><th>Since</th><th>Provider</th><th>Revision</th><th>Artifact</th><th>URL</th><th>Reproduced</th><th>Check</th></tr></thead><tbody>${rows}</tbody></table>
${revisions.length > 1 && repo.readable ? html`<h3>Diff two deployed revisions</h3>
<form method="get" action="/repos/${info.id}/compare"><select name="from">${revisions.map((c, i) => html`<option value="${c}"${i === revisions.length - 2 ? html` selected` : ''}>${shortOid(c)}</option>`)}</select> … <select name="to">${revisions.map((c, i) => html`<option value="${c}"${i === revisions.length - 1 ? html` selected` : ''}>${shortOid(c)}</option>`)}</select> <button type="submit">Diff</button></form>` : ''}`}`,
  }));
}
