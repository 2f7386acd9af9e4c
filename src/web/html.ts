/**
 * HTML built from tagged templates: every interpolated value is escaped unless it is already `Html` (built here, or
 * by a renderer that sanitizes). Whatever a pusher controls (file names, ref names, messages, Markdown) can only
 * reach a page as text.
 */
export class Html {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  toString(): string {
    return this.text;
  }
}

export type Fragment = Html | string | number | bigint | null | undefined | false | readonly Fragment[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: Fragment): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Fragment[]): Html {
  let out = strings[0]!;
  values.forEach((value, i) => { out += render(value) + strings[i + 1]!; });
  return new Html(out);
}

/** Markup a trusted renderer produced (sanitized Markdown, highlight.js or diff2html output). */
export function trusted(text: string): Html {
  return new Html(text);
}

/** A URL path with query parameters, each encoded. */
export function href(path: string, query: Record<string, string | number | undefined> = {}): string {
  const params = Object.entries(query).filter((entry): entry is [string, string | number] => entry[1] !== undefined && entry[1] !== '');
  return params.length === 0 ? path : `${path}?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`;
}
