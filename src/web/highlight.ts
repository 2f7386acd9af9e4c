/** Source files as highlighted HTML (highlight.js escapes the text it wraps), by the language the file name says. */
import { createRequire } from 'node:module';

/**
 * The part of highlight.js used here, typed locally: its own declarations pull the DOM library into the whole
 * program (`/// <reference lib="dom" />`), which retypes Node's fetch and streams.
 */
interface Highlighter {
  getLanguage(name: string): object | undefined;
  highlight(code: string, options: { language: string; ignoreIllegals: boolean }): { value: string };
}

const hljs = createRequire(import.meta.url)('highlight.js') as Highlighter;

/** Above this, a file is shown as plain escaped text: highlighting it would hold the page up. */
export const HIGHLIGHT_LIMIT = 256 * 1024;

const BY_NAME: Record<string, string> = { Dockerfile: 'dockerfile', Makefile: 'makefile' };

export function languageOf(name: string): string | null {
  if (BY_NAME[name]) return BY_NAME[name]!;
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return ext !== '' && hljs.getLanguage(ext) ? ext : null;
}

/** Highlighted HTML lines of `text`, or null when it is shown unhighlighted (caller escapes). */
export function highlight(name: string, text: string): string | null {
  return highlightAs(languageOf(name), text);
}

/** `text` highlighted as a language highlight.js knows by that name or alias (a Markdown fence's), else null. */
export function highlightAs(language: string | null, text: string): string | null {
  if (language === null || !hljs.getLanguage(language) || text.length > HIGHLIGHT_LIMIT) return null;
  return hljs.highlight(text, { language, ignoreIllegals: true }).value;
}
