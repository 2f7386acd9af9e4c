/**
 * Markdown (READMEs) as safe HTML, the way git hosts render it: markdown-it with raw HTML on, GitHub-style heading
 * anchors, footnotes, task lists and highlighted fences; sanitize-html then keeps an allowlist of document markup
 * (no script, style, form, frame or event handler; only http(s)/mailto URLs). Relative links and images point at the
 * repository's own pages. Every id the content carries gets a `user-content-` prefix (and `#` links with it), so a
 * README cannot shadow the page's own elements; an address with the bare id (`#install`, typed or linked from
 * elsewhere) still lands on its heading through the page script. Images from elsewhere are left to the page's CSP,
 * which blocks them.
 */
import { slug } from 'github-slugger';
import MarkdownIt from 'markdown-it';
import anchor from 'markdown-it-anchor';
import footnote from 'markdown-it-footnote';
import sanitizeHtml from 'sanitize-html';
import { createRequire } from 'node:module';
import { highlightAs } from './highlight.ts';

/** The task-list plugin ships no type declarations; its default (disabled checkboxes) is the one wanted. */
const taskLists = createRequire(import.meta.url)('markdown-it-task-lists') as (md: InstanceType<typeof MarkdownIt>) => void;

const ID_PREFIX = 'user-content-';

const markdown = new MarkdownIt({
  html: true,
  linkify: true,
  highlight: (code, info) => {
    const lit = highlightAs(info.trim().split(/\s+/)[0] ?? '', code);
    return lit === null ? '' : `<pre><code class="hljs">${lit}</code></pre>`;
  },
})
  .use(anchor, {
    slugify: slug,
    tabIndex: false,
    // A named link beside the heading (not inside it): the heading's own text stays its accessible name.
    permalink: anchor.permalink.linkAfterHeader({ style: 'aria-label', symbol: '#', assistiveText: (title) => `Link to the section “${title}”`, wrapper: ['<div class="heading">', '</div>'] }),
  })
  .use(footnote)
  .use(taskLists);

const TEXT_TAGS = sanitizeHtml.defaults.allowedTags.filter((tag) => !['main', 'nav', 'header', 'footer', 'aside', 'article'].includes(tag));

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...TEXT_TAGS, 'img', 'picture', 'source', 'details', 'summary', 'del', 'ins', 'input'],
  allowedAttributes: {
    '*': ['id', 'title', 'lang', 'dir', 'align'],
    a: ['href', 'name', 'rel', 'aria-label'],
    img: ['src', 'srcset', 'alt', 'width', 'height'],
    source: ['srcset', 'media', 'type', 'width', 'height'],
    details: ['open'],
    ol: ['start', 'type'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    input: ['type', 'checked', 'disabled'],
  },
  allowedClasses: {
    code: ['hljs', 'language-*'],
    span: ['hljs-*'],
    a: ['header-anchor', 'footnote-backref'],
    div: ['heading'],
    li: ['task-list-item', 'footnote-item'],
    ul: ['contains-task-list'],
    ol: ['contains-task-list', 'footnotes-list'],
    input: ['task-list-item-checkbox'],
    sup: ['footnote-ref'],
    section: ['footnotes'],
    hr: ['footnotes-sep'],
  },
  selfClosing: [...sanitizeHtml.defaults.selfClosing, 'source'],
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href', 'src', 'srcset'],
};

export interface LinkBase {
  /** The page of a path at the README's ref (a file or folder). */
  page(path: string): string;
  /** The raw bytes of a path at the README's ref (images). */
  raw(path: string): string;
  /** The folder the README is in ('' = the root). */
  dir: string;
}

export function renderMarkdown(source: string, links: LinkBase): string {
  return sanitizeHtml(markdown.render(source, {}), {
    ...SANITIZE,
    transformTags: {
      '*': (tagName, attribs) => ({ tagName, attribs: attribs.id ? { ...attribs, id: prefixed(attribs.id) } : attribs }),
      a: (tagName, attribs) => ({
        tagName,
        attribs: { ...attribs, ...(attribs.href ? { href: relink(attribs.href, links, 'page') } : {}), ...(attribs.name ? { name: prefixed(attribs.name) } : {}), rel: 'nofollow noopener noreferrer' },
      }),
      img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, ...(attribs.src ? { src: relink(attribs.src, links, 'raw') } : {}), ...(attribs.srcset ? { srcset: relinkSet(attribs.srcset, links) } : {}) } }),
      source: (tagName, attribs) => ({ tagName, attribs: attribs.srcset ? { ...attribs, srcset: relinkSet(attribs.srcset, links) } : attribs }),
      // A checkbox is only ever a task list's mark: never a control that could be ticked or submitted.
      input: (tagName, attribs) => ({ tagName, attribs: { type: 'checkbox', disabled: '', ...(attribs.checked !== undefined ? { checked: '' } : {}), ...(attribs.class ? { class: attribs.class } : {}) } }),
    },
  });
}

function prefixed(id: string): string {
  return id.startsWith(ID_PREFIX) ? id : ID_PREFIX + id;
}

/** Each URL of a `srcset` (comma-separated "URL descriptor" candidates) resolved like an image's `src`. */
function relinkSet(srcset: string, links: LinkBase): string {
  return srcset.split(',').map((candidate) => {
    const [url, ...descriptor] = candidate.trim().split(/\s+/);
    return [relink(url ?? '', links, 'raw'), ...descriptor].join(' ');
  }).join(', ');
}

/** A link relative to the README, resolved inside the repository; absolute URLs are left alone, anchors prefixed. */
function relink(target: string, links: LinkBase, kind: 'page' | 'raw'): string {
  if (target.startsWith('#')) return target.length > 1 ? `#${prefixed(target.slice(1))}` : target;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return target;
  const [pathPart] = target.split(/[?#]/);
  // A link to a heading of another file (`guide.md#install`) keeps its anchor, prefixed as that file's ids are; a
  // line or a range of lines (`#L12-L20`) is the file page's own.
  const fragment = /#(.+)$/.exec(target)?.[1];
  const hash = kind === 'raw' || fragment === undefined ? '' : /^L\d+(-L\d+)?$/.test(fragment) ? `#${fragment}` : `#${encodeURIComponent(prefixed(decodeSafely(fragment)))}`;
  const joined = pathPart!.startsWith('/') ? pathPart!.slice(1) : [links.dir, pathPart].filter(Boolean).join('/');
  const parts: string[] = [];
  for (const segment of decodeSafely(joined).split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') parts.pop();
    else parts.push(segment);
  }
  return kind === 'raw' ? links.raw(parts.join('/')) : links.page(parts.join('/')) + hash;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
