/**
 * `git walrus show` output: the push as `log` prints it, then the commits its pack introduced; or stable JSON.
 */
import { formatPushText, pushToJson, type PushJson, type Style } from './format-log.ts';
import { visibleLine } from '../../core/terminal-text.ts';
import type { PushDetails, ShownCommit } from './show-push.ts';

export function formatShowText(details: PushDetails, style: Style): string {
  const head = formatPushText(details.event, style);
  if (details.event.pack === null) return head;
  const count = details.commits.length;
  const lines = [`Commits: ${count === 0 ? 'none (the pack holds no commit)' : count}`];
  for (const commit of details.commits) {
    lines.push(`  ${style.header(commit.oid)}`);
    // Names and subjects are whatever the commit's author wrote: shown, never obeyed by the terminal.
    lines.push(`      ${visibleLine(commit.author.name)} <${visibleLine(commit.author.email)}>  ${formatGitDate(commit.author.timestamp, commit.author.timezoneOffset)}`);
    lines.push(`      ${visibleLine(commit.subject)}`);
  }
  return `${head}\n${lines.join('\n')}\n`;
}

export interface ShowJson extends PushJson {
  commits: Array<{ oid: string; parents: string[]; author: { name: string; email: string; date: string }; subject: string }>;
}

export function formatShowJson(details: PushDetails): string {
  const json: ShowJson = {
    ...pushToJson(details.event),
    commits: details.commits.map((commit: ShownCommit) => ({
      oid: commit.oid,
      parents: commit.parents,
      author: { name: commit.author.name, email: commit.author.email, date: formatGitDate(commit.author.timestamp, commit.author.timezoneOffset) },
      subject: commit.subject,
    })),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/**
 * The author's own wall time and zone, as git prints it: `2023-11-14 23:13:20 +0100`. `timezoneOffset` is in
 * minutes with isomorphic-git's sign (UTC+1 is -60, like `Date#getTimezoneOffset`).
 */
export function formatGitDate(timestamp: number, timezoneOffset: number): string {
  const east = -timezoneOffset;
  const local = new Date((timestamp + east * 60) * 1000).toISOString().slice(0, 19).replace('T', ' ');
  const sign = east < 0 ? '-' : '+';
  const abs = Math.abs(east);
  return `${local} ${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}
