import type { OptionAnswer, PushResult, RefListing } from '../ports/helper-backend.ts';

/** The lines a helper writes back to git, in git's own words (gitremote-helpers(7); transport-helper.c reads them). */

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
