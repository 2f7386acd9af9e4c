/**
 * The compute market: providers (stake, price, endpoint, attributes, leases) and a lease (escrow, accrued, funded
 * until, why it ended, its app as the provider's gateway reports it with its releases, events and logs, its secrets'
 * names and versions, deploys).
 */
import { messageOf } from '../../core/errors.ts';
import { leaseEndLine, leaseEndWords } from '../../core/lease-end.ts';
import { formatPrice, formatSui } from '../../core/sui-amount.ts';
import { withoutEnvValues } from '../../core/env-values.ts';
import type { EventView, LogRecord, ReleaseView, StatusView } from '../../ports/gateway-api.ts';
import type { LeaseInfo, MarketLedger } from '../../ports/market.ts';
import { readSecrets, type OpenedSecrets } from '../../remote/market/lease-secrets.ts';
import { accruedAt, fundedUntilMs, providerStatus } from '../../remote/market/format.ts';
import { explorerFor } from '../explorer.ts';
import { html, type Html } from '../html.ts';
import { formatUtc, page, shortOid } from '../layout.ts';
import { NotFound, htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';
import { leaseUrl, reproductionCell } from './deployments.ts';
import { reproductionsOf } from '../../remote/market/reproductions.ts';
import { marketOf } from './shared.ts';

function attributes(map: Record<string, string>): Html {
  const entries = Object.entries(map);
  return entries.length === 0 ? html`<span class="muted">none</span>` : html`${entries.map(([k, v]) => html`<span class="attr">${k}=${v}</span> `)}`;
}

async function requireMarket(context: WebContext) {
  const market = await marketOf(context);
  if (market === null) throw new NotFound(`the ${context.services.networkName} network has no compute market`);
  return market;
}

export async function marketPage(context: WebContext): Promise<Reply> {
  const { services } = context;
  const market = await marketOf(context);
  const providers = market === null ? [] : await market.listProviders();
  const now = market === null ? Date.now() : await market.clockMs();
  return htmlReply(page({
    title: 'Market',
    network: services.networkName,
    body: html`<h1>Providers</h1>
${market === null ? html`<p class="muted">This network has no compute market.</p>` : providers.length === 0 ? html`<p class="muted">No provider has registered yet.</p>` : html`
<table class="list"><thead><tr><th>Provider</th><th>Stake</th><th>Price</th><th>Endpoint</th><th>Attributes</th><th>Leases</th><th>Status</th></tr></thead><tbody>
${providers.map((p) => html`<tr><td><a class="mono" href="/market/providers/${p.id}">${shortOid(p.id)}</a></td><td>${formatSui(p.stake)}</td><td>${formatPrice(p.pricePerMs)}</td><td>${p.endpoint}</td><td>${attributes(p.attributes)}</td><td>${p.activeLeases} active, ${p.completedLeases} completed</td><td>${providerStatus(p, now)}</td></tr>`)}
</tbody></table>`}`,
  }));
}

export async function providerPage(context: WebContext, { params }: RouteRequest): Promise<Reply> {
  const market = await requireMarket(context);
  const [provider, leases, now] = await Promise.all([market.getProvider(params[0]!), market.listLeases(params[0]!), market.clockMs()]);
  const explorer = explorerFor(context.services.networkName);
  return htmlReply(page({
    title: `Provider ${shortOid(provider.id)}`,
    network: context.services.networkName,
    body: html`<h1>Provider <span class="mono">${shortOid(provider.id)}</span></h1>
<dl class="facts">
<dt>object</dt><dd>${explorer ? html`<a class="mono" href="${explorer.object(provider.id)}" rel="noopener noreferrer">${provider.id}</a>` : html`<span class="mono">${provider.id}</span>`}</dd>
<dt>owner</dt><dd class="mono">${provider.owner}</dd>
<dt>stake</dt><dd>${formatSui(provider.stake)}${provider.slashed > 0n ? html` <span class="flag forced">${formatSui(provider.slashed)} slashed</span>` : ''}</dd>
<dt>price</dt><dd>${formatPrice(provider.pricePerMs)}</dd>
<dt>endpoint</dt><dd>${provider.endpoint}</dd>
<dt>attributes</dt><dd>${attributes(provider.attributes)}</dd>
<dt>status</dt><dd>${providerStatus(provider, now)}</dd>
<dt>leases</dt><dd>${provider.activeLeases} active, ${provider.completedLeases} completed, ${provider.providerClosedLeases} closed by the provider</dd>
</dl>
<h2>Leases</h2>
<table class="list"><thead><tr><th>Lease</th><th>State</th><th>Tenant</th><th>Repository</th><th>Escrow</th><th>Last deploy</th></tr></thead><tbody>
${leases.map((l) => html`<tr><td><a class="mono" href="/market/leases/${l.id}">${shortOid(l.id)}</a></td><td>${l.state}${l.end ? html`<div class="muted">${leaseEndWords(l.end)}</div>` : ''}</td><td class="mono">${shortOid(l.tenant)}</td><td><a class="mono" href="/repos/${l.repository}">${shortOid(l.repository)}</a> <span class="ref">${l.ref}</span></td><td>${formatSui(l.escrow)}</td><td>${l.lastDeploy ? html`<span class="mono">${shortOid(l.lastDeploy.commit)}</span> ${formatUtc(l.lastDeploy.atMs)}` : html`<span class="muted">none</span>`}</td></tr>`)}
</tbody></table>`,
  }));
}

/** How long the lease page waits for the provider's gateway before it says it did not answer. */
const GATEWAY_WAIT_MS = 4000;
/** How many of each replica's last lines the lease page shows. */
const LOG_LINES = 50;

/** The lease's current secrets as its tenant opens them (names and versions shown; values only hidden), or why not. */
type TenantSecrets = OpenedSecrets | null | { problem: string };

async function openTenantSecrets(context: WebContext, market: MarketLedger, lease: LeaseInfo): Promise<TenantSecrets> {
  const { keyService, ledger, blobStore } = context.services;
  if (keyService === undefined) return { problem: 'this network has no key servers' };
  try {
    return await readSecrets({ market, ledger, blobStore, keyService }, lease, { lease: lease.id });
  } catch (error) {
    return { problem: messageOf(error) };
  }
}

/**
 * The lease's secrets: for its tenant (the running key), each name with its version and when it was set (the values
 * are never shown); for anyone else, the version on chain alone.
 */
async function secretsSection(market: MarketLedger, lease: LeaseInfo, opened: TenantSecrets | undefined): Promise<Html> {
  const pointer = await market.leaseSecrets(lease.id);
  const heading = html`<h2>Secrets</h2>`;
  if (pointer === null) return html`${heading}<p class="muted">None set (<code>git walrus secrets set ${lease.id} NAME=value</code>, by the tenant).</p>`;
  const summary = html`<p>Version ${pointer.version}, set ${formatUtc(Number(pointer.setAtMs))}; sealed on Walrus in blob <span class="mono">${pointer.blobId}</span>.</p>`;
  if (opened === undefined) return html`${heading}${summary}<p class="muted">Their names are shown to the lease’s tenant only; their values only the tenant and, while the lease is open, its provider can decrypt.</p>`;
  if (opened !== null && 'problem' in opened) return html`${heading}${summary}<p class="problem">Cannot list their names: ${opened.problem}</p>`;
  return html`${heading}${summary}<table class="list secrets"><thead><tr><th>Name</th><th>Version</th><th>Set</th></tr></thead><tbody>
${(opened?.secrets ?? []).map((secret) => html`<tr><td class="mono">${secret.name}</td><td>${secret.version}</td><td>${formatUtc(secret.setAtMs)}</td></tr>`)}
</tbody></table><p class="muted">Values are never shown here, nor in the app’s build output and logs above.</p>`;
}

function gatewayProblem(error: unknown): string {
  return (error as Error).name === 'TimeoutError' ? `no answer in ${GATEWAY_WAIT_MS / 1000} s` : messageOf(error);
}

function statusList(lease: LeaseInfo, status: StatusView): Html {
  return html`<dl class="facts gateway-status">
<dt>phase</dt><dd><strong>${status.phase}</strong>: ${status.message}</dd>
<dt>replicas</dt><dd>${status.replicas.ready}/${status.replicas.desired} ready, ${status.replicas.updated} updated${status.pods.map((pod) => html`<div class="muted"><span class="mono">${pod.name}</span> ${pod.phase}${pod.ready ? ', ready' : ''}${pod.restarts > 0 ? `, ${pod.restarts} restart(s)` : ''}</div>`)}</dd>
<dt>serving</dt><dd>${status.serving === null ? html`<span class="muted">nothing</span>` : html`<a class="mono" href="/repos/${lease.repository}/commit/${status.serving.commit}">${status.serving.commit}</a>${status.serving.since ? ` since ${status.serving.since}` : ''}`}</dd>
${status.url ? html`<dt>URL</dt><dd>${status.url}</dd>` : ''}
${status.building ? html`<dt>building</dt><dd class="mono">${status.building.commit}${status.building.step ? ` (step ${status.building.step})` : ''}</dd>` : ''}
${status.refused ? html`<dt>refused</dt><dd><span class="mono">${status.refused.commit}</span>: ${status.refused.reason} <pre>${status.refused.message}</pre></dd>` : ''}
</dl>`;
}

function releasesTable(lease: LeaseInfo, releases: readonly ReleaseView[], hide: (text: string) => string): Html {
  if (releases.length === 0) return html`<p class="muted">No release yet.</p>`;
  return html`<table class="list releases"><thead><tr><th>Commit</th><th>Result</th><th>Time</th><th>Build output</th></tr></thead><tbody>
${releases.map((release) => html`<tr><td><a class="mono" href="/repos/${lease.repository}/commit/${release.commit}">${release.commit.slice(0, 12)}</a>${release.message ? html`<div class="muted">${hide(release.message)}</div>` : ''}</td><td>${release.result}</td><td>${release.time}</td>
<td>${release.output === null ? html`<span class="muted">not kept</span>` : html`<details><summary>${release.output.steps.length} step(s)</summary>${release.output.steps.map((step) => html`<div class="step"><strong>${step.name}</strong> <span class="muted">${step.exitCode === undefined ? 'did not run' : `exit ${step.exitCode}`}${step.reason ? ` (${step.reason})` : ''}${step.cutBytes ? `, first ${step.cutBytes} bytes cut` : ''}</span>${step.output ? html`<pre>${hide(step.output)}</pre>` : ''}</div>`)}</details>`}</td></tr>`)}
</tbody></table>`;
}

function eventsTable(events: readonly EventView[], hide: (text: string) => string): Html {
  if (events.length === 0) return html`<p class="muted">No events.</p>`;
  return html`<table class="list events"><thead><tr><th>Time</th><th>Type</th><th>Reason</th><th>Object</th><th>Message</th></tr></thead><tbody>
${events.map((event) => html`<tr><td>${event.time}</td><td>${event.type}</td><td>${event.reason}</td><td class="mono">${event.object}</td><td>${hide(event.message)}${event.count > 1 ? html` <span class="muted">(×${event.count})</span>` : ''}</td></tr>`)}
</tbody></table>`;
}

function logsView(records: readonly LogRecord[], hide: (text: string) => string): Html {
  if (records.length === 0) return html`<p class="muted">No log lines.</p>`;
  const byPod = new Map<string, string[]>();
  for (const record of records) {
    const [pod, line] = 'notice' in record ? ['', `-- ${record.notice}`] : [record.pod, record.line];
    byPod.set(pod, [...(byPod.get(pod) ?? []), hide(line)]);
  }
  return html`${[...byPod].map(([pod, lines]) => html`<h4 class="mono">${pod || 'gateway'}</h4><pre class="logs">${lines.join('\n')}</pre>`)}`;
}

/**
 * The app as the provider's gateway reports it, asked as the tenant (the gateway answers no one else): its status,
 * releases with their build output, events and each replica's last lines, all within one wait. What the app or its
 * build printed is shown with the lease's secret values written as `$NAME`.
 */
async function appSection(context: WebContext, lease: LeaseInfo, endpoint: string, opened: TenantSecrets | undefined): Promise<Html> {
  const heading = html`<h2>App</h2>`;
  if (opened === undefined) return html`${heading}<p class="muted">The provider’s gateway (${endpoint}) reports the app to the lease’s tenant only.</p>`;
  if (lease.state === 'closed') return html`${heading}<p class="muted">The lease is closed: the provider no longer runs the app.</p>`;
  const target = { lease: lease.id, provider: lease.provider, endpoint };
  const signal = AbortSignal.timeout(GATEWAY_WAIT_MS);
  const gateway = context.services.leaseGateway;
  const [status, releases, events, logs] = await Promise.allSettled([
    gateway.status(target, signal), gateway.releases(target, signal), gateway.events(target, signal), gateway.logs(target, LOG_LINES, signal),
  ]);
  if (status.status === 'rejected') return html`${heading}<p class="problem gateway-status">The provider’s gateway did not report the app: ${gatewayProblem(status.reason)}</p>`;
  const secrets = opened !== null && !('problem' in opened) ? opened.secrets : [];
  const hide = (text: string) => withoutEnvValues(text, secrets);
  const part = <T>(title: string, result: PromiseSettledResult<T>, show: (value: T) => Html) => html`<h3>${title}</h3>${result.status === 'fulfilled' ? show(result.value) : html`<p class="problem">The gateway did not answer: ${gatewayProblem(result.reason)}</p>`}`;
  return html`${heading}${statusList(lease, status.value)}
${part('Releases', releases, (value) => releasesTable(lease, value, hide))}
${part('Events', events, (value) => eventsTable(value, hide))}
${part(`Logs (each replica’s last ${LOG_LINES} lines)`, logs, (value) => logsView(value, hide))}
<p class="muted">As the gateway at ${endpoint} reports it now; <code>git walrus lease status ${lease.id}</code>, <code>lease logs --follow</code> and <code>lease events</code> say the same from the command line.</p>`;
}

export async function leasePage(context: WebContext, { params }: RouteRequest): Promise<Reply> {
  const market = await requireMarket(context);
  const [lease, now, viewer] = await Promise.all([market.getLease(params[0]!), market.clockMs(), context.services.viewer()]);
  const [provider, deployments] = await Promise.all([market.getProvider(lease.provider), market.listDeployments(lease.repository)]);
  const records = deployments.filter((record) => record.lease === lease.id);
  // The tenant's secrets, opened once: their names for the Secrets section, their values to hide in the App's output.
  const opened = viewer === lease.tenant ? await openTenantSecrets(context, market, lease) : undefined;
  const [secrets, app, reproductions] = await Promise.all([
    secretsSection(market, lease, opened), appSection(context, lease, provider.endpoint, opened),
    reproductionsOf(market.attestations(), lease.repository, records),
  ]);
  const accrued = accruedAt(lease, now);
  const url = leaseUrl(lease);
  return htmlReply(page({
    title: `Lease ${shortOid(lease.id)}`,
    network: context.services.networkName,
    body: html`<h1>Lease <span class="mono">${shortOid(lease.id)}</span></h1>
<dl class="facts">
<dt>lease</dt><dd class="mono">${lease.id}</dd>
<dt>state</dt><dd>${lease.state}</dd>
${lease.end ? html`<dt>ended</dt><dd>${leaseEndLine(lease.end)}</dd>` : ''}
<dt>tenant</dt><dd class="mono">${lease.tenant}${opened !== undefined ? ' (you: the key this server runs as)' : ''}</dd>
<dt>provider</dt><dd><a class="mono" href="/market/providers/${lease.provider}">${lease.provider}</a><div class="muted">gateway ${provider.endpoint} · ${attributes(provider.attributes)} · ${providerStatus(provider, now)}</div></dd>
<dt>repository</dt><dd><a class="mono" href="/repos/${lease.repository}">${lease.repository}</a> <span class="ref">${lease.ref}</span></dd>
<dt>price</dt><dd>${formatPrice(lease.pricePerMs)}</dd>
<dt>escrow</dt><dd>${formatSui(lease.escrow - accrued)}</dd>
<dt>accrued</dt><dd>${formatSui(accrued)} since ${formatUtc(lease.settledUntilMs)} <span class="muted">(not yet settled)</span></dd>
<dt>earned</dt><dd>${formatSui(lease.earned + accrued)} not yet claimed</dd>
${lease.state === 'open' ? html`<dt>funded until</dt><dd>${formatUtc(fundedUntilMs(lease))}</dd>` : ''}
<dt>URL</dt><dd>${url ? html`<a href="${url}" rel="noopener noreferrer">${url}</a>` : html`<span class="muted">none stated</span>`}</dd>
</dl>
${app}
${secrets}
<h2>Deploy records</h2>
${records.length === 0 ? html`<p class="muted">Nothing deployed yet.</p>` : html`<table class="list deployments"><thead><tr><th>At</th><th>Commit</th><th>Artifact</th><th>Reproduced</th><th>Transaction</th></tr></thead><tbody>
${records.map((r, i) => html`<tr><td>${formatUtc(r.atMs)}</td><td><a class="mono" href="/repos/${lease.repository}/commit/${r.commit}">${r.commit}</a></td><td class="mono">${r.artifact}<div class="muted">sha256 ${r.sha256}</div></td><td>${reproductionCell(reproductions[i]!)}</td><td class="mono">${r.txDigest}</td></tr>`)}
</tbody></table>`}`,
  }));
}
