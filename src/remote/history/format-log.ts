/**
 * `git walrus log` output: pushes newest first, as terminal text (colour only when the caller says the output is a
 * colour terminal) or as stable JSON (field names and order are part of the interface: scripts read them).
 */
import type { PushEvent, RefUpdate, RepositoryInfo } from '../../ports/ledger.ts';

export interface LogSelection {
  /** Only pushes that updated this ref (full name, or a short name such as `main` or `v1.0`). */
  ref?: string;
  /** At most this many pushes (the newest). */
  limit?: number;
}

/** The pushes to show, newest first. */
export function selectPushes(events: readonly PushEvent[], selection: LogSelection = {}): PushEvent[] {
  const ref = selection.ref;
  // A repack moves no ref: it is shown unless the selection asks for one ref.
  const chosen = ref === undefined ? [...events] : events.filter((event) => event.updates.some(refMatcher(ref)));
  chosen.reverse();
  return selection.limit === undefined ? chosen : chosen.slice(0, selection.limit);
}

/** `main` matches `refs/heads/main`, `v1` matches `refs/tags/v1`; a full name matches itself. */
function refMatcher(ref: string): (update: RefUpdate) => boolean {
  const names = new Set(ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`, `refs/${ref}`]);
  return (update) => names.has(update.name);
}

export interface PushJson {
  seq: number;
  kind: 'push' | 'repack';
  timestamp: string;
  timestampMs: number;
  sender: string;
  txDigest: string;
  logHead: string;
  updates: Array<{ ref: string; old: string | null; new: string | null; forced: boolean; deleted: boolean }>;
  pack: { index: number | null; size: number; sha256: string; blobIds: string[]; encrypted: boolean } | null;
  liveFrom: number;
}

export function pushToJson(event: PushEvent): PushJson {
  return {
    seq: event.seq,
    kind: event.kind === 1 ? 'repack' : 'push',
    timestamp: new Date(event.timestampMs).toISOString(),
    timestampMs: event.timestampMs,
    sender: event.sender,
    txDigest: event.txDigest,
    logHead: event.logHead,
    updates: event.updates.map((update) => ({
      ref: update.name,
      old: update.old,
      new: update.new,
      forced: update.force,
      deleted: update.new === null,
    })),
    pack: event.pack === null ? null : { index: event.packIndex, size: event.pack.size, sha256: event.pack.sha256, blobIds: [...event.pack.chunks], encrypted: event.pack.sealedKey !== undefined },
    liveFrom: event.liveFrom,
  };
}

/** Who may read: everyone (public), or the owner, the writers and the readers of a private repository. */
export type ReadAccess = Pick<RepositoryInfo, 'owner' | 'writers' | 'readers' | 'private'>;

export interface AccessJson {
  private: boolean;
  /** Private repositories: every address that may read (owner, writers, readers); null when anyone may. */
  readers: { owner: string; writers: string[]; readers: string[] } | null;
}

export function accessToJson(access: ReadAccess): AccessJson {
  return { private: access.private, readers: access.private ? { owner: access.owner, writers: [...access.writers], readers: [...access.readers] } : null };
}

export function formatLogJson(repository: string, pushes: readonly PushEvent[], access?: ReadAccess): string {
  return `${JSON.stringify({ repository, ...(access ? accessToJson(access) : {}), pushes: pushes.map(pushToJson) }, null, 2)}\n`;
}

/** The lines that head the log of a private repository (a public one needs none: anyone may read it). */
export function formatAccessText(access: ReadAccess, style: Style): string {
  if (!access.private) return '';
  const lines = [
    style.header('private repository') + ': packs are encrypted; only these addresses can read them',
    `Owner:  ${access.owner}`,
    ...access.writers.map((writer) => `Writer: ${writer}`),
    ...access.readers.map((reader) => `Reader: ${reader}`),
  ];
  return `${lines.join('\n')}\n\n`;
}

/** ANSI styling, or none. */
export interface Style {
  header(text: string): string;
  warn(text: string): string;
  dim(text: string): string;
}

export const plainStyle: Style = { header: (t) => t, warn: (t) => t, dim: (t) => t };

export const ansiStyle: Style = {
  header: (t) => `\x1b[33m${t}\x1b[0m`,
  warn: (t) => `\x1b[31m${t}\x1b[0m`,
  dim: (t) => `\x1b[2m${t}\x1b[0m`,
};

/** Colour when the stream is a terminal and the user did not opt out (https://no-color.org). */
export function styleFor(isTty: boolean, env: Record<string, string | undefined>): Style {
  return isTty && (env.NO_COLOR ?? '') === '' ? ansiStyle : plainStyle;
}

/** One push as a terminal block, ending with a newline. */
export function formatPushText(event: PushEvent, style: Style): string {
  const kind = event.kind === 1 ? 'repack' : 'push';
  const lines = [
    style.header(`${kind} ${event.seq}`) + `  ${formatTime(event.timestampMs)}`,
    `Pusher: ${event.sender}`,
    `Tx:     ${event.txDigest}`,
  ];
  const width = Math.max(0, ...event.updates.map((update) => update.name.length));
  for (const update of event.updates) lines.push(`    ${formatUpdate(update, width, style)}`);
  if (event.pack !== null) {
    const index = event.packIndex === null ? '' : `#${event.packIndex}, `;
    lines.push(`Pack:   ${index}${event.pack.size} bytes, sha256 ${event.pack.sha256}${event.pack.sealedKey === undefined ? '' : ' (encrypted)'}`);
    for (const blobId of event.pack.chunks) lines.push(`        blob ${blobId}`);
  } else {
    lines.push(style.dim('Pack:   none'));
  }
  if (event.kind === 1) lines.push(`Live:   packs from #${event.liveFrom}`);
  return `${lines.join('\n')}\n`;
}

export function formatLogText(pushes: readonly PushEvent[], style: Style): string {
  return pushes.map((event) => formatPushText(event, style)).join('\n');
}

function formatUpdate(update: RefUpdate, width: number, style: Style): string {
  const name = update.name.padEnd(width);
  const from = update.old === null ? '(new)' : abbreviate(update.old);
  if (update.new === null) return `${name}  ${from} → (none)  ${style.warn('[deleted]')}`;
  const line = `${name}  ${from} → ${abbreviate(update.new)}`;
  return update.force ? `${line}  ${style.warn('[forced]')}` : line;
}

/** Twelve hex digits: unambiguous in practice, and the JSON output carries the full ids. */
export function abbreviate(oid: string): string {
  return oid.slice(0, 12);
}

/** `2026-11-21 21:50:03 UTC`: one zone for every reader of a shared log. */
export function formatTime(timestampMs: number): string {
  return `${new Date(timestampMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
