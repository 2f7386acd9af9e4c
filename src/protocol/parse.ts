/**
 * Parsing of the remote-helper line protocol, as git speaks it on the helper's stdin (gitremote-helpers(7)):
 *
 *   capabilities
 *       Lists the capabilities of the helper, one per line, ending with a blank line.
 *   list [for-push]
 *       Lists the refs, one per line, in the format "<value> <name> [<attr> ...]". The value may be a hex sha1
 *       hash, "@<dest>" for a symref, ":<keyword> <value>" for a key-value pair [...]. The list ends with a blank line.
 *   option <name> <value>
 *       Outputs a single line containing one of ok, unsupported or error <msg>.
 *   fetch <sha1> <name>
 *       Fetch commands are sent in a batch, one per line, terminated with a blank line. Outputs a single blank line
 *       when all fetch commands in the same batch are complete.
 *   push +<src>:<dst>
 *       A batch sequence of one or more push commands is terminated with a blank line [...]. Zero or more protocol
 *       options may be entered after the last push command, before the batch's terminating blank line. When the push
 *       is complete, outputs one or more ok <dst> or error <dst> <why>? lines [...] terminated by a blank line. The
 *       option field <why> may be quoted in a C style string if it contains an LF.
 *
 * Option values are written by git with quote_c_style (quoted only when they need it); `option object-format` comes
 * with no value at all.
 */

export type HelperCommand =
  | { kind: 'capabilities' }
  | { kind: 'list'; forPush: boolean }
  | { kind: 'option'; name: string; value: string | null }
  | { kind: 'fetch'; id: string; name: string }
  /** `src` null is a delete (`push :<dst>`). */
  | { kind: 'push'; force: boolean; src: string | null; dst: string }
  /** The blank line: ends a batch, or the session when no batch is open. */
  | { kind: 'blank' }
  | { kind: 'unknown'; line: string };

/** Parses one line (without its newline). */
export function parseCommand(line: string): HelperCommand {
  if (line === '') return { kind: 'blank' };
  if (line === 'capabilities') return { kind: 'capabilities' };
  if (line === 'list') return { kind: 'list', forPush: false };
  if (line === 'list for-push') return { kind: 'list', forPush: true };
  const [word, rest] = splitFirst(line);
  if (word === 'option' && rest !== null) {
    const [name, value] = splitFirst(rest);
    return { kind: 'option', name, value: value === null ? null : unquoteC(value) };
  }
  if (word === 'fetch' && rest !== null) {
    const [id, name] = splitFirst(rest);
    if (name !== null) return { kind: 'fetch', id, name };
  }
  if (word === 'push' && rest !== null) {
    const spec = unquoteC(rest);
    const force = spec.startsWith('+');
    const body = force ? spec.slice(1) : spec;
    const colon = body.lastIndexOf(':');
    if (colon >= 0 && colon < body.length - 1) {
      const src = body.slice(0, colon);
      return { kind: 'push', force, src: src === '' ? null : src, dst: body.slice(colon + 1) };
    }
  }
  return { kind: 'unknown', line };
}

function splitFirst(text: string): [string, string | null] {
  const space = text.indexOf(' ');
  return space < 0 ? [text, null] : [text.slice(0, space), text.slice(space + 1)];
}

const utf8 = new TextEncoder();
const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, '\\': 92 };

/** Undoes git's quote_c_style: a value in double quotes with backslash and octal escapes; others pass through. */
export function unquoteC(text: string): string {
  if (!(text.length >= 2 && text.startsWith('"') && text.endsWith('"'))) return text;
  const bytes: number[] = [];
  const body = text.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch !== '\\') {
      bytes.push(...utf8.encode(ch));
      continue;
    }
    const next = body[++i];
    if (/[0-7]/.test(next ?? '')) {
      bytes.push(parseInt(body.slice(i, i + 3), 8));
      i += 2;
    } else if (next !== undefined && next in ESCAPES) {
      bytes.push(ESCAPES[next]);
    } else {
      bytes.push(92, ...utf8.encode(next ?? ''));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}
