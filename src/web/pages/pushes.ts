/**
 * The push log: a timeline of pushes (who, when, which refs moved from what to what, forced or not, the transaction,
 * the pack's blobs, size and storage expiry), each with a verification badge. The chain link of every push is checked
 * at each view (it costs no read beyond the events); "Verify everything" runs `verify` in the background (deep
 * when the running key may read the repository), and the page shows its progress and then its verdicts.
 */
import { DEFAULT_EXPIRY_WARNING_EPOCHS } from '../../core/blob-lifetime.ts';
import type { PushEvent, RefUpdate } from '../../ports/ledger.ts';
import type { CommitInfo } from '../../ports/object-cache.ts';
import { timelineBadges, type PushBadge, type PushBadges } from '../../remote/history/push-badges.ts';
import { liveLifetimes, type LiveLifetimes } from '../../remote/lifetime.ts';
import { formatBytes } from '../../remote/progress.ts';
import { explorerFor, type Explorer } from '../explorer.ts';
import { href, html, type Html } from '../html.ts';
import { formatUtc, page, pager, shortOid } from '../layout.ts';
import { commitsOfPushes } from '../push-commits.ts';
import { RepositoryUnreadableError, type LoadedRepository } from '../repositories.ts';
import { jsonReply, redirect, htmlReply, type Reply, type RouteRequest } from '../reply.ts';
import type { WebContext } from '../web-context.ts';
import type { VerifyJob } from '../verify-jobs.ts';
import { certifiedBadge, certifiedBadgeHtml } from '../certified-badge.ts';
import { PUSHES_PER_PAGE } from './shared.ts';

/** The command that repeats a badge's checks. */
function verifyCommand(id: string, deep: boolean): string {
  return `git walrus verify walrus://${id}${deep ? ' --deep' : ''}`;
}

/**
 * Whether "Verify everything" runs the deep check: the running key must read the packs, and the history check reads
 * SHA-1 object ids only (a SHA-256 repository gets every other check, as `git walrus verify` gives it).
 */
export function deepCheckable(repo: LoadedRepository): boolean {
  return repo.readable && repo.info.hashLength !== 32;
}

/** The verdicts to show: the finished run's for the pushes it covered, the chain link alone for the rest. */
function badgesFor(repo: LoadedRepository, events: readonly PushEvent[], job: VerifyJob | undefined): { badges: PushBadges; deep: boolean | null } {
  const run = job?.state === 'done' && job.report && job.events ? { events: job.events, report: job.report } : null;
  return { badges: timelineBadges(repo.info, events, run), deep: run === null ? null : job!.deep };
}

const BADGE_TEXT = { verified: 'verified', failed: 'failed', unchecked: 'not checked' } as const;

function badge(id: string, b: PushBadge | undefined, deep: boolean | null): Html {
  if (b === undefined) return html``;
  const command = verifyCommand(id, deep ?? true);
  return html`<details class="badge-box"><summary><span class="badge ${b.state}" data-seq="${b.seq}">${BADGE_TEXT[b.state]}</span></summary>
<div class="checks"><p>${b.state === 'unchecked' ? 'Checked at this view:' : 'Checked:'}</p><ul>${b.checks.map((c) => html`<li>${c}</li>`)}</ul>
${b.state === 'unchecked' ? html`<p>Not yet checked: the pack’s bytes on Walrus and the history it brings. Run “Verify everything”, or:</p>` : html`<p>Repeat with:</p>`}
<pre class="command">${command}</pre>
${b.findings.length > 0 ? html`<p>Found:</p><ul class="findings">${b.findings.map((f) => html`<li><span class="mono">${f.code}</span>: ${f.message}</li>`)}</ul>` : ''}</div></details>`;
}

function updateRow(id: string, update: RefUpdate, readable: boolean): Html {
  const link = (oid: string | null) => oid === null ? html`<span class="muted">(none)</span>` : readable ? html`<a class="mono" href="/repos/${id}/commit/${oid}" title="${oid}">${shortOid(oid)}</a>` : html`<span class="mono" title="${oid}">${shortOid(oid)}</span>`;
  const flag = update.new === null ? html`<span class="flag deleted">deleted</span>` : update.force ? html`<span class="flag forced">forced</span>` : update.old === null ? html`<span class="flag created">new</span>` : '';
  // A forced update's two sides, compared: what the push dropped and what it put in their place.
  const compare = readable && update.force && update.old !== null && update.new !== null ? html` <a class="compare-link" href="${href(`/repos/${id}/compare`, { from: update.old, to: update.new })}">compare</a>` : '';
  return html`<li><span class="ref">${update.name}</span> ${link(update.old)} → ${link(update.new)} ${flag}${compare}</li>`;
}

/** Commits listed under a push; the rest are a link away. */
const COMMITS_SHOWN = 10;

function broughtList(id: string, event: PushEvent, commits: CommitInfo[] | undefined): Html | string {
  if (commits === undefined) return '';
  if (commits.length === 0) return html`<dt>commits</dt><dd class="muted">none new (the refs moved to commits already pushed)</dd>`;
  const more = commits.length - COMMITS_SHOWN;
  return html`<dt>commits</dt><dd><ul class="brought">${commits.slice(0, COMMITS_SHOWN).map((c) => html`<li><a class="mono" href="/repos/${id}/commit/${c.oid}">${shortOid(c.oid)}</a> ${c.message.split('\n')[0]}</li>`)}</ul>${more > 0 ? html`<span class="muted">and ${more} more</span>` : ''}</dd>`;
}

function pushEntry(id: string, event: PushEvent, badges: PushBadges, deep: boolean | null, readable: boolean, explorer: Explorer | null, lifetimes: LiveLifetimes | null, commits: CommitInfo[] | undefined): Html {
  const life = event.packIndex === null ? undefined : lifetimes?.packs.find((p) => p.index === event.packIndex);
  const expiry = life === undefined
    ? event.pack !== null && lifetimes !== null ? html`<span class="muted">consolidated by a repack</span>` : html`<span class="muted">unknown</span>`
    : life.endEpoch === null || life.endEpoch === undefined ? html`<span class="muted">unknown</span>` : html`epoch ${life.endEpoch} <span class="muted">(now ${lifetimes!.epoch}${life.verdict === 'expiring' ? ', expiring soon' : life.verdict === 'expired' ? ', EXPIRED' : ''})</span>`;
  const tx = explorer ? html`<a class="mono" href="${explorer.tx(event.txDigest)}" rel="noopener noreferrer">${event.txDigest}</a>` : html`<span class="mono">${event.txDigest}</span>`;
  return html`<li class="push" id="push-${event.seq}">
<div class="push-head"><a class="seq" href="#push-${event.seq}">${event.kind === 1 ? 'repack' : 'push'} ${event.seq}</a> <span class="muted">${formatUtc(event.timestampMs)}</span> ${badge(id, badges.badges.get(event.seq), deep)}</div>
<dl class="facts">
<dt>pusher</dt><dd class="mono">${event.sender}</dd>
<dt>transaction</dt><dd>${tx}</dd>
${event.updates.length > 0 ? html`<dt>refs</dt><dd><ul class="updates">${event.updates.map((u) => updateRow(id, u, readable))}</ul></dd>` : ''}
${broughtList(id, event, commits)}
<dt>pack</dt><dd>${event.pack === null ? html`<span class="muted">none (no new objects)</span>` : html`#${event.packIndex} · ${formatBytes(event.pack.size)} (${event.pack.size} bytes)${event.pack.sealedKey !== undefined ? ' · encrypted' : ''} · sha256 <span class="mono">${event.pack.sha256}</span>
<ul class="blobs">${event.pack.chunks.map((blobId) => html`<li>blob ${explorer ? html`<a class="mono" href="${explorer.blob(blobId)}" rel="noopener noreferrer">${blobId}</a>` : html`<span class="mono">${blobId}</span>`}</li>`)}</ul>`}</dd>
${event.pack !== null ? html`<dt>stored until</dt><dd>${expiry}</dd>` : ''}
${event.kind === 1 ? html`<dt>live from</dt><dd>pack #${event.liveFrom}</dd>` : ''}
<dt>log head</dt><dd class="mono">${event.logHead}</dd>
</dl></li>`;
}

function jobLine(job: VerifyJob | undefined, seq: number): Html {
  if (job === undefined) return html`<span id="verify-progress" class="muted">not run yet</span>`;
  const stale = job.state === 'done' && job.seq < seq ? ` (for pushes up to ${job.seq}; later ones are not checked yet: run it again)` : '';
  return html`<span id="verify-progress" data-state="${job.state}">${job.deep ? 'verify --deep' : 'verify'}: ${job.progress}${stale}</span>`;
}

/** The push log's filter: by pusher (the signers the log has) and by ref (full name or short). */
function filterForm(id: string, events: readonly PushEvent[], filter: { pusher: string; ref: string }, count: number): Html {
  const pushers = [...new Set(events.map((event) => event.sender))];
  const active = filter.pusher !== '' || filter.ref !== '';
  return html`<form class="push-filter" method="get" action="/repos/${id}/pushes" role="search">
<label>Pusher <select name="pusher"><option value="">anyone</option>${pushers.map((sender) => html`<option value="${sender}"${sender === filter.pusher ? html` selected` : ''}>${shortOid(sender)}</option>`)}</select></label>
<label>Ref <input name="ref" value="${filter.ref}" class="mono" placeholder="main, v1.2.0 or refs/…"></label>
<button type="submit">Filter</button>${active ? html` <span class="muted">${count} of ${events.length} pushes</span> <a href="/repos/${id}/pushes">show all</a>` : ''}</form>`;
}

/** The commits each shown push brought, when the running key reads the repository and its packs read (else none). */
async function broughtBy(context: WebContext, repo: LoadedRepository, events: readonly PushEvent[], shown: readonly PushEvent[]): Promise<Map<number, CommitInfo[]>> {
  if (!repo.readable || shown.length === 0) return new Map();
  try {
    return await commitsOfPushes(await context.repositories.objects(repo), events, new Set(shown.map((event) => event.seq)));
  } catch (error) {
    // The log is read from the chain: it shows even when the packs do not read (the verify view says why).
    if (error instanceof RepositoryUnreadableError) return new Map();
    throw error;
  }
}

export async function pushesPage(context: WebContext, { params, query }: RouteRequest): Promise<Reply> {
  const { services } = context;
  const repo = await context.repositories.load(params[0]!);
  const id = repo.info.id;
  // Events are read after the repository: any that landed in between are past its seq, and left out.
  const events = (await services.ledger.listPushes(id)).filter((event) => event.seq <= repo.info.seq);
  // On loopback the first view starts the run (the page never waits for it); an exposed server waits to be asked.
  const job = context.jobs.get(id) ?? (events.length > 0 && !context.settings.exposed ? context.jobs.start(id, repo.info, deepCheckable(repo)) : undefined);
  const { badges, deep } = badgesFor(repo, events, job);
  const pageNo = Math.max(1, Math.floor(Number(query.get('page') ?? 1)) || 1);
  const filter = { pusher: (query.get('pusher') ?? '').trim().toLowerCase(), ref: (query.get('ref') ?? '').trim() };
  const matching = events.filter((event) => (filter.pusher === '' || event.sender === filter.pusher)
    && (filter.ref === '' || event.updates.some((u) => u.name === filter.ref || u.name === `refs/heads/${filter.ref}` || u.name === `refs/tags/${filter.ref}`)));
  const shown = [...matching].reverse().slice((pageNo - 1) * PUSHES_PER_PAGE, pageNo * PUSHES_PER_PAGE);
  const commits = await broughtBy(context, repo, events, shown);
  const lifetimes = await liveLifetimes(services.ledger, services.blobStore, id, DEFAULT_EXPIRY_WARNING_EPOCHS).catch(() => null);
  const explorer = explorerFor(services.networkName);
  return htmlReply(page({
    title: `Push log · ${repo.info.name}`,
    network: services.networkName,
    repo: { id, name: repo.info.name, owner: repo.info.owner, private: repo.info.private, tab: 'pushes' },
    body: html`<section class="verify-bar" id="verify" data-repo="${id}" data-status="/repos/${id}/verify.json">
<form method="post" action="/repos/${id}/verify"><button type="submit" id="verify-all">Verify everything</button></form>
${jobLine(job, repo.info.seq)}
${certifiedBadgeHtml(certifiedBadge(job, services.certified !== undefined))}
<p class="muted">Runs <code>${verifyCommand(id, deepCheckable(repo))}</code> here: the log replayed to the chain’s log head (${repo.info.logHead}), every live pack against Walrus${deepCheckable(repo) ? ', and every commit a ref pointed to' : !repo.readable ? ' (as stored: this key cannot decrypt it)' : ' (as stored: the history check reads SHA-1 repositories only, and this one uses SHA-256)'}.</p>
${badges.repository.length > 0 ? html`<ul class="findings">${badges.repository.map((f) => html`<li><span class="mono">${f.code}</span>: ${f.message}</li>`)}</ul>` : ''}
</section>
${events.length === 0 ? html`<p class="muted">No pushes yet.</p>` : html`${filterForm(id, events, filter, matching.length)}<ol class="timeline">${shown.map((event) => pushEntry(id, event, badges, deep, repo.readable, explorer, lifetimes, commits.get(event.seq)))}</ol>`}
${pager(pageNo, pageNo * PUSHES_PER_PAGE < matching.length, (p) => href(`/repos/${id}/pushes`, { pusher: filter.pusher || undefined, ref: filter.ref || undefined, page: p }))}`,
  }));
}

export async function startVerify(context: WebContext, { params }: RouteRequest): Promise<Reply> {
  const repo = await context.repositories.load(params[0]!);
  context.jobs.start(repo.info.id, repo.info, deepCheckable(repo));
  return redirect(`/repos/${repo.info.id}/pushes`);
}

/** The run's state and each push's verdict, for the page script to update badges in place. */
export async function verifyStatus(context: WebContext, { params }: RouteRequest): Promise<Reply> {
  const repo = await context.repositories.load(params[0]!);
  const job = context.jobs.get(repo.info.id);
  const events = await context.services.ledger.listPushes(repo.info.id);
  const { badges } = badgesFor(repo, events, job);
  return jsonReply({
    state: job?.state ?? 'idle',
    progress: job?.progress ?? 'not run yet',
    command: verifyCommand(repo.info.id, job?.deep ?? deepCheckable(repo)),
    certified: certifiedBadge(job, context.services.certified !== undefined),
    badges: [...badges.badges.values()].map((b) => ({ seq: b.seq, state: b.state, text: BADGE_TEXT[b.state], checks: b.checks, findings: b.findings.map((f) => ({ code: f.code, message: f.message })) })),
  });
}
