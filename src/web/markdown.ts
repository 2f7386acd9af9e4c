/**
 * README Markdown as safe HTML: markdown-it with raw HTML off renders it, sanitize-html then keeps only plain
 * document markup (no script, no style, no event handler, no `javascript:` URL). Relative links point at the
 * repository's own pages: files and folders at the same ref, images through the raw-file route.
 */
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

const markdown = new MarkdownIt({ html: false, linkify: true });

export interface LinkBase {
  /** The page of a path at the README's ref (a file or folder). */
  page(path: string): string;
  /** The raw bytes of a path at the README's ref (images). */
  raw(path: string): string;
  /** The folder the README is in ('' = the root). */
  dir: string;
}

export function renderMarkdown(source: string, links: LinkBase): string {
  const rendered = markdown.render(source);
  return sanitizeHtml(rendered, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'del', 'input'],
    allowedAttributes: { a: ['href', 'title', 'rel'], img: ['src', 'alt', 'title'], code: ['class'], th: ['align'], td: ['align'], input: ['type', 'checked', 'disabled'] },
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href', 'src'],
    transformTags: {
      a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, ...(attribs.href ? { href: relink(attribs.href, links, 'page') } : {}), rel: 'nofollow noopener noreferrer' } }),
      img: (tagName, attribs) => ({ tagName, attribs: { ...attribs, ...(attribs.src ? { src: relink(attribs.src, links, 'raw') } : {}) } }),
    },
  });
}

/** A link relative to the README, resolved inside the repository; absolute URLs and anchors are left alone. */
function relink(target: string, links: LinkBase, kind: 'page' | 'raw'): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('//')) return target;
  const [pathPart] = target.split(/[?#]/);
  const joined = pathPart!.startsWith('/') ? pathPart!.slice(1) : [links.dir, pathPart].filter(Boolean).join('/');
  const parts: string[] = [];
  for (const segment of decodeSafely(joined).split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') parts.pop();
    else parts.push(segment);
  }
  return kind === 'raw' ? links.raw(parts.join('/')) : links.page(parts.join('/'));
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
