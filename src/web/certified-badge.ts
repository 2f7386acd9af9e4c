/**
 * The verify view's certification badge: whether the state the last `verify` checked was proved against the
 * validators' certificates, and as of which checkpoint. Pure: it reads a verify job's report (verify-jobs.ts); the
 * push-log page renders it and its status JSON carries it for the page script.
 */
import type { VerifyJob } from './verify-jobs.ts';
import { html, type Html } from './html.ts';

export interface CertifiedBadge {
  /** certified: proved; failed: asked for and not proved; uncertified: one node's word; pending: not known yet. */
  state: 'certified' | 'failed' | 'uncertified' | 'pending';
  /** The pill's word and its colour. */
  label: string;
  tone: 'verified' | 'failed' | 'unchecked';
  text: string;
  /** RPCs that lied or lagged beside the proved answer. */
  notes: string[];
}

/** `available`: the network has a trust anchor (the web server's verify then proves the state). */
export function certifiedBadge(job: VerifyJob | undefined, available: boolean): CertifiedBadge {
  const pending = (text: string): CertifiedBadge => ({ state: 'pending', label: 'certification', tone: 'unchecked', text, notes: [] });
  if (!available) return { state: 'uncertified', label: 'uncertified', tone: 'unchecked', text: 'this network has no trust anchor, so the state is as one RPC node reports it', notes: [] };
  if (job === undefined) return pending('not checked yet');
  if (job.state === 'running') return pending('being proved against the validators\u2019 certificates');
  const certified = job.report?.certified;
  if (!certified) return { state: 'failed', label: 'not certified', tone: 'failed', text: job.error ?? 'no RPC\u2019s answer verified', notes: [] };
  const notes = certified.answers.flatMap((answer) => {
    if (answer.problem !== undefined) return [`RPC ${answer.rpc} served a state that does not verify: ${answer.problem}`];
    if (answer.version !== certified.version) return [`RPC ${answer.rpc} lags: it proves version ${answer.version}, not ${certified.version}`];
    return [];
  });
  const time = new Date(certified.timestampMs).toISOString();
  return {
    state: 'certified', label: 'certified', tone: 'verified',
    text: `as of checkpoint ${certified.checkpoint} (epoch ${certified.epoch}, ${time}; version ${certified.version}, from ${certified.rpc})`, notes,
  };
}

export function certifiedBadgeHtml(badge: CertifiedBadge): Html {
  return html`<div id="certified-badge" data-state="${badge.state}"><span class="cert-pill ${badge.tone}">${badge.label}</span> <span class="certified-text">${badge.text}</span>${badge.notes.length > 0 ? html`<ul class="findings">${badge.notes.map((note) => html`<li>${note}</li>`)}</ul>` : ''}</div>`;
}
