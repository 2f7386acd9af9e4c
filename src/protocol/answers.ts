import type { ObjectFormat } from '../core/object-id.ts';

/** The lines a helper writes back to git, in git's own words (gitremote-helpers(7); transport-helper.c reads them). */

export type OptionAnswer = 'ok' | 'unsupported' | { error: string };

export interface RefListing {
  /** Present when git asked for it (`option object-format`) and the repository has a format. */
  objectFormat: ObjectFormat | null;
  /** The branch HEAD points to, listed as `@<head> HEAD` so clones check it out; null when it does not exist. */
  head: string | null;
  refs: ReadonlyMap<string, string>;
}

/** One push result: `ok <dst>`, or `error <dst> <why>` with git's reason words (`fetch first`, `stale info`, ...). */
export type PushResult = { dst: string; ok: true } | { dst: string; ok: false; reason: string };

export function optionLine(answer: OptionAnswer): string {
  return typeof answer === 'string' ? `${answer}\n` : `error ${oneLine(answer.error)}\n`;
}

/** The `list` answer, ending with its blank line. */
export function listLines(listing: RefListing): string {
  let out = '';
  if (listing.objectFormat) out += `:object-format ${listing.objectFormat}\n`;
  if (listing.head && listing.refs.has(listing.head)) out += `@${listing.head} HEAD\n`;
  for (const [name, id] of [...listing.refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out += `${id} ${name}\n`;
  return `${out}\n`;
}

/** The answer to a push batch, ending with its blank line. */
export function pushLines(results: readonly PushResult[]): string {
  return results.map((r) => (r.ok ? `ok ${r.dst}\n` : `error ${r.dst} ${quoteC(r.reason)}\n`)).join('') + '\n';
}

/** git's quote_c_style, applied only when the text needs it (quotes, backslashes, control characters). */
export function quoteC(text: string): string {
  if (!/["\\\x00-\x1f\x7f]/.test(text)) return text;
  const escaped = text.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\x00-\x1f\x7f]/g, (c) => {
    const named: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };
    return named[c] ?? `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`;
  });
  return `"${escaped}"`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
