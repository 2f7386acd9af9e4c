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

Markdown('raw HTML is text, javascript: links are not links, nothing carries a handler', () => {
  const out = renderMarkdown('<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(2)>\n\n![i](data:text/html,hi)', links);
  assert.not.match(out, /<script|<img[^>]*onerror|href="javascript/i);
  assert.match(out, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});

Markdown('relative links stay inside the repository, from the README’s folder; absolute ones are kept', () => {
  const out = renderMarkdown('[a](guide.md) [b](../LICENSE) [c](/src/x.ts#L1) [d](https://example.com/) [e](#top) ![f](img/logo.png)', links);
  assert.match(out, /href="\/p\?path=docs%2Fguide\.md"/);
  assert.match(out, /href="\/p\?path=LICENSE"/);
  assert.match(out, /href="\/p\?path=src%2Fx\.ts"/);
  assert.match(out, /href="https:\/\/example\.com\/"/);
  assert.match(out, /href="#top"/);
  assert.match(out, /src="\/r\?path=docs%2Fimg%2Flogo\.png"/);
  assert.match(renderMarkdown('[up](../../../../etc/passwd)', links), /href="\/p\?path=etc%2Fpasswd"/, 'no way above the root');
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
