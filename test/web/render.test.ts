import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeHtml, href, html, trusted } from '../../src/web/html.ts';
import { renderMarkdown } from '../../src/web/markdown.ts';
import { explorerFor } from '../../src/web/explorer.ts';

const links = { dir: 'docs', page: (path: string) => href('/p', { path }), raw: (path: string) => href('/r', { path }) };

const Html = suite('web: html templates');

Html('interpolations are escaped, trusted markup and nested templates are not', () => {
  const name = '<img src=x onerror=alert(1)>"\'&`';
  assert.is(html`<b title="${name}">${name}</b>`.text, '<b title="&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&#96;">&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&#96;</b>');
  assert.is(html`<p>${html`<i>${'<'}</i>`}${trusted('<br>')}${[1, null, false, 'x']}</p>`.text, '<p><i>&lt;</i><br>1x</p>');
  assert.is(escapeHtml('a&b'), 'a&amp;b');
  assert.is(href('/x', { ref: 'refs/heads/a&b', path: '', page: 2 }), '/x?ref=refs%2Fheads%2Fa%26b&page=2');
});

const Markdown = suite('web: Markdown');

Markdown('hostile HTML loses scripts, styles, handlers, forms, frames and javascript: URLs; checkboxes stay inert', () => {
  const out = renderMarkdown([
    '<script>alert(1)</script>',
    '',
    '[x](javascript:alert(1)) <a href="JaVaScRiPt:alert(3)">y</a> <img src=x onerror=alert(2) style="position:fixed"> <b onclick="alert(4)">b</b>',
    '',
    '<style>body { display: none }</style><iframe src="https://evil.example/"></iframe><form action="https://evil.example/"><input type="text" name="q"><button>go</button></form>',
    '',
    '![i](data:text/html,hi) <meta http-equiv="refresh" content="0;url=https://evil.example/"><link rel="prefetch" href="https://evil.example/">',
    '',
    '<svg><a href="javascript:alert(5)">s</a></svg> <a href="https://ok.example/" ping="https://evil.example/" target="_blank">ok</a>',
  ].join('\n'), links);
  assert.not.match(out, /<script|<style|<iframe|<form|<button|<meta|<link|<svg|="javascript:|="data:|onerror|onclick|style=|ping=|target=|alert\(1\)<\/script/i);
  assert.match(out, /<a href="https:\/\/ok\.example\/" rel="nofollow noopener noreferrer">ok<\/a>/);
  assert.match(out, /<input type="checkbox" disabled \/>/, 'a raw input can only be a disabled checkbox');
  assert.match(out, /<b>b<\/b>/);
});

Markdown('raw HTML a README uses renders as markup: picture, source, img, details, summary, kbd, sub, sup, br', () => {
  const out = renderMarkdown([
    '<picture><source media="(prefers-color-scheme: dark)" srcset="img/dark.png 2x, https://cdn.example/a.png"><img src="img/logo.png" alt="Logo" width="200"></picture>',
    '',
    '<details open><summary>More</summary>',
    '',
    'Press <kbd>Ctrl</kbd>, H<sub>2</sub>O, x<sup>2</sup><br>done',
    '</details>',
  ].join('\n'), links);
  assert.match(out, /<picture><source media="\(prefers-color-scheme: dark\)" srcset="\/r\?path=docs%2Fimg%2Fdark\.png 2x, https:\/\/cdn\.example\/a\.png" \/><img src="\/r\?path=docs%2Fimg%2Flogo\.png" alt="Logo" width="200" \/><\/picture>/);
  assert.match(out, /<details open(="")?><summary>More<\/summary>/);
  assert.match(out, /Press <kbd>Ctrl<\/kbd>, H<sub>2<\/sub>O, x<sup>2<\/sup><br \/>done/);
});

Markdown('headings get GitHub slugs, duplicates numbered, and a table of contents links to them', () => {
  const out = renderMarkdown('- [Install](#install)\n- [Again](#install-1)\n- [API & Use](#api--use)\n\n## Install\n\n## Install\n\n### API & Use\n\n<h2 id="certified-badge">Raw</h2> <a name="old">x</a>', links);
  assert.match(out, /<a href="#user-content-install" rel="nofollow noopener noreferrer">Install<\/a>/);
  assert.match(out, /<a href="#user-content-install-1" rel/);
  assert.match(out, /<a href="#user-content-api--use" rel/);
  assert.match(out, /<h2 id="user-content-install">Install<\/h2>\n<a class="header-anchor" href="#user-content-install" aria-label="Link to the section “Install”"/);
  assert.match(out, /<h2 id="user-content-install-1">Install<\/h2>/);
  assert.match(out, /<h3 id="user-content-api--use">API &amp; Use<\/h3>/);
  assert.match(out, /<h2 id="user-content-certified-badge">Raw<\/h2>/, 'a raw id cannot take one of the page\u2019s own ids');
  assert.match(out, /<a name="user-content-old"/);
  for (const [, id] of out.matchAll(/ id="([^"]*)"/g)) assert.ok(id!.startsWith('user-content-'), id);
});

Markdown('fenced code is highlighted on the server with highlight.js classes; unknown languages stay plain text', () => {
  const out = renderMarkdown('```js\nconst a = "<b>";\n```\n\n```nosuchlanguage\n<i>x</i>\n```', links);
  assert.match(out, /<pre><code class="hljs"><span class="hljs-keyword">const<\/span> a = <span class="hljs-string">"&lt;b&gt;"<\/span>;/);
  assert.match(out, /<pre><code class="language-nosuchlanguage">&lt;i&gt;x&lt;\/i&gt;/);
});

Markdown('task lists render disabled checkboxes; footnotes link both ways', () => {
  const out = renderMarkdown('- [ ] todo\n- [x] done\n\nA claim[^n].\n\n[^n]: The source.', links);
  assert.match(out, /<ul class="contains-task-list">\n<li class="task-list-item"><input type="checkbox" disabled class="task-list-item-checkbox" \/> todo<\/li>/);
  assert.match(out, /<li class="task-list-item"><input type="checkbox" disabled checked class="task-list-item-checkbox" \/> done<\/li>/);
  assert.match(out, /<sup class="footnote-ref"><a href="#user-content-fn1" id="user-content-fnref1" rel="nofollow noopener noreferrer">\[1\]<\/a><\/sup>/);
  assert.match(out, /<li id="user-content-fn1" class="footnote-item"><p>The source\. <a href="#user-content-fnref1" class="footnote-backref"/);
});

Markdown('relative links stay inside the repository, from the README’s folder; absolute ones are kept', () => {
  const out = renderMarkdown('[a](guide.md) [b](../LICENSE) [c](/src/x.ts#L1) [d](https://example.com/) [e](#top) ![f](img/logo.png)', links);
  assert.match(out, /href="\/p\?path=docs%2Fguide\.md"/);
  assert.match(out, /href="\/p\?path=LICENSE"/);
  assert.match(out, /href="\/p\?path=src%2Fx\.ts#L1"/, 'a line link stays the file page\u2019s own');
  assert.match(out, /href="https:\/\/example\.com\/"/);
  assert.match(out, /href="#user-content-top"/);
  assert.match(out, /src="\/r\?path=docs%2Fimg%2Flogo\.png"/);
  assert.match(renderMarkdown('[up](../../../../etc/passwd)', links), /href="\/p\?path=etc%2Fpasswd"/, 'no way above the root');
});

Markdown('a link to a heading of another file keeps its anchor, prefixed as that file\u2019s ids are', () => {
  const out = renderMarkdown('[a](guide.md#install) [b](../README.md#api--use) [c](x.ts#L3-L5) ![d](img/logo.png#x)', links);
  assert.match(out, /href="\/p\?path=docs%2Fguide\.md#user-content-install"/);
  assert.match(out, /href="\/p\?path=README\.md#user-content-api--use"/);
  assert.match(out, /href="\/p\?path=docs%2Fx\.ts#L3-L5"/);
  assert.match(out, /src="\/r\?path=docs%2Fimg%2Flogo\.png"/, 'raw bytes have no anchor');
});

Markdown('every link keeps the rel the link transform gives it (no referrer, no opener, no follow)', () => {
  const out = renderMarkdown('[d](https://example.com/) [a](guide.md) <https://auto.example/>', links);
  const anchors = out.match(/<a [^>]*>/g) ?? [];
  assert.is(anchors.length, 3);
  for (const a of anchors) assert.match(a, /rel="nofollow noopener noreferrer"/, a);
});

const Explorer = suite('web: explorer links');

Explorer('testnet and mainnet only', () => {
  assert.is(explorerFor('local'), null);
  assert.is(explorerFor('devnet'), null);
  assert.is(explorerFor('testnet')!.tx('Abc'), 'https://suiscan.xyz/testnet/tx/Abc');
  assert.is(explorerFor('mainnet')!.blob('x-y_z'), 'https://walruscan.com/mainnet/blob/x-y_z');
  assert.is(explorerFor('mainnet')!.object('0x1'), 'https://suiscan.xyz/mainnet/object/0x1');
});

Html.run();
Markdown.run();
Explorer.run();
