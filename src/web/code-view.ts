/**
 * A text file as numbered lines: each line a row with its own anchor (`#L12`), so a line can be linked; the page
 * script marks a range (`#L12-L20`). Highlighted HTML is cut at each newline, closing the spans still open and
 * opening them again on the next line, so every row is well-formed markup.
 */
import { highlight } from './highlight.ts';
import { escapeHtml, html, trusted, type Html } from './html.ts';

/** highlight.js output (only `<span class="…">`, `</span>` and escaped text) as one well-formed piece per line. */
export function highlightedLines(highlighted: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let current = '';
  for (const token of highlighted.split(/(<span[^>]*>|<\/span>|\n)/)) {
    if (token === '\n') {
      lines.push(current + '</span>'.repeat(open.length));
      current = open.join('');
    } else {
      if (token.startsWith('<span')) open.push(token);
      else if (token === '</span>') open.pop();
      current += token;
    }
  }
  lines.push(current + '</span>'.repeat(open.length));
  return lines;
}

/** The lines of `text` as markup, highlighted when the language of file `name` is known. */
function lineMarkup(name: string, text: string): string[] {
  const lit = highlight(name, text);
  const lines = lit === null ? text.split('\n').map(escapeHtml) : highlightedLines(lit);
  // A final newline ends the last line; it starts no empty one.
  if (lines.length > 1 && text.endsWith('\n')) lines.pop();
  return lines;
}

/** The file `name` holding `text`, highlighted when its language is known, one numbered row per line. */
export function numberedCode(name: string, text: string): Html {
  return html`<div class="code-box"><table class="code-lines hljs"><tbody>${lineMarkup(name, text).map((line, i) => html`<tr id="L${i + 1}"><td class="line-no"><a href="#L${i + 1}">${i + 1}</a></td><td class="line"><code>${trusted(line)}</code></td></tr>`)}</tbody></table></div>`;
}

/**
 * The same rows with who last changed each line: `cell(commit)` describes a commit once, at the first line of each run
 * of lines it last changed (the rows after it in the run leave the cell empty).
 */
export function blamedCode(name: string, text: string, commits: readonly string[], cell: (commit: string) => Html): Html {
  return html`<div class="code-box"><table class="code-lines blame hljs"><tbody>${lineMarkup(name, text).map((line, i) => {
    const commit = commits[i] ?? '';
    const first = i === 0 || commits[i - 1] !== commit;
    return html`<tr id="L${i + 1}"${first ? html` class="hunk-start"` : ''}><td class="blame-cell">${first && commit !== '' ? cell(commit) : ''}</td><td class="line-no"><a href="#L${i + 1}">${i + 1}</a></td><td class="line"><code>${trusted(line)}</code></td></tr>`;
  })}</tbody></table></div>`;
}
