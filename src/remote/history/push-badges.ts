/**
 * A verdict per push, for a timeline of the push log: what was checked about it and what was found. The chain
 * link (the push's record hashes, with its predecessor's head, to the head the chain recorded) costs nothing and is
 * known at once; the pack and history checks come from a `verify --deep` report when one has run. Pure.
 */
import type { PushEvent, RepositoryInfo } from '../../ports/ledger.ts';
import type { Finding } from './finding.ts';
import { verifyPushLog } from './verify-log.ts';
import type { VerifyReport } from './verify-repository.ts';

export type BadgeState = 'verified' | 'failed' | 'unchecked';

export interface PushBadge {
  seq: number;
  state: BadgeState;
  /** What was checked, in the user's words (each one held unless `findings` says otherwise). */
  checks: string[];
  findings: Finding[];
}

export interface PushBadges {
  badges: Map<number, PushBadge>;
  /** Findings about the repository as a whole (the log head, the ref table): they fail every badge. */
  repository: Finding[];
}

/** Badges from the chain link alone: `unchecked` until a deep verification reports on the packs. */
export function chainLinkBadges(repository: Pick<RepositoryInfo, 'id' | 'seq' | 'logHead'>, events: readonly PushEvent[]): PushBadges {
  const replay = verifyPushLog(repository, events);
  return badgesFrom(events, replay.findings, null);
}

/** Badges from a finished `verify --deep` over the same events. */
export function reportBadges(events: readonly PushEvent[], report: VerifyReport): PushBadges {
  return badgesFrom(events, report.findings, report);
}

/**
 * Badges for a timeline as of `repository` (the events past its seq are left out: they landed after it was read).
 * A finished run's verdicts stand for the pushes it covered, even when later pushes have landed since; those later
 * pushes get the chain link's badge until a new run covers them.
 */
export function timelineBadges(repository: Pick<RepositoryInfo, 'id' | 'seq' | 'logHead'>, events: readonly PushEvent[], run: { events: readonly PushEvent[]; report: VerifyReport } | null): PushBadges {
  const linked = chainLinkBadges(repository, events.filter((event) => event.seq <= repository.seq));
  if (run === null) return linked;
  const checked = reportBadges(run.events, run.report);
  const badges = new Map(linked.badges);
  for (const [seq, badge] of checked.badges) if (badges.has(seq)) badges.set(seq, badge);
  return { badges, repository: [...checked.repository, ...linked.repository] };
}

function badgesFrom(events: readonly PushEvent[], findings: readonly Finding[], report: VerifyReport | null): PushBadges {
  const repository = findings.filter((f) => f.seq === null);
  const packsFrom = report === null ? null : liveFromOf(events);
  const badges = new Map<number, PushBadge>();
  for (const event of events) {
    const own = findings.filter((f) => f.seq === event.seq);
    const checks = ['its record hashes, with the previous push’s log head, to the log head the chain recorded'];
    if (report !== null) {
      if (event.packIndex !== null && event.packIndex >= packsFrom!) checks.push('its pack’s bytes on Walrus have the recorded blob ids, size and sha256');
      else if (event.pack !== null) checks.push('its pack was consolidated by a later repack, whose pack was checked instead');
      if (report.commitsChecked !== undefined && event.updates.some((u) => u.new !== null)) checks.push('the live packs hold every commit it set a ref to, with its whole history');
    }
    const failed = own.length > 0 || repository.length > 0;
    badges.set(event.seq, { seq: event.seq, state: failed ? 'failed' : report === null ? 'unchecked' : 'verified', checks, findings: [...own, ...repository] });
  }
  return { badges, repository };
}

/** The first live pack: the last repack's, or 0. */
function liveFromOf(events: readonly PushEvent[]): number {
  return events.reduce((from, event) => (event.kind === 1 ? event.liveFrom : from), 0);
}
