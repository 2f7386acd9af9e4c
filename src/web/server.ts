/**
 * The HTTP server of `git walrus web`: node:http, a route table, and the headers every answer carries. A strict
 * Content-Security-Policy allows scripts and styles from /static only (no inline code), nothing from elsewhere; the
 * Host header must name this server on loopback (no DNS rebinding), and a POST, or a GET from a browser, must come
 * from its own pages (or be typed in).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { messageOf, WalrusGitError } from '../core/errors.ts';
import type { WebServices, WebSettings } from './app.ts';
import { html } from './html.ts';
import { page, repoNav, tabOfPath } from './layout.ts';
import { RepositoryUnreadableError } from './repositories.ts';
import { NotFound, htmlReply, type Reply, type RouteRequest } from './reply.ts';
import { routes } from './routes.ts';
import { type WebContext } from './web-context.ts';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Links in a README must not make the browser resolve their hosts before anyone follows them.
  'x-dns-prefetch-control': 'off',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * The address cannot be served: taken, not this machine's, or not allowed.
 * What to do: choose a free port (`--port`) or an address of this machine (`--host`).
 */
export class ListenError extends WalrusGitError {
  constructor(listen: { host: string; port: number }, cause: NodeJS.ErrnoException) {
    const why = cause.code === 'EADDRINUSE' ? `port ${listen.port} is in use (leave --port out for a free one)`
      : cause.code === 'EADDRNOTAVAIL' ? `${listen.host} is not an address of this machine`
        : cause.code === 'EACCES' ? `port ${listen.port} needs privileges (use a port above 1023)`
          : cause.message;
    super('WEB_LISTEN_FAILED', `cannot serve on ${listen.host}:${listen.port}: ${why}`, { host: listen.host, port: listen.port, code: cause.code });
  }
}

export interface WebServer {
  /** The server's base URL, e.g. http://127.0.0.1:41234/ */
  url: string;
  close(): Promise<void>;
}

export async function startWebServer(services: WebServices, settings: WebSettings, listen: { host: string; port: number }): Promise<WebServer> {
  const context: WebContext = await routes(services, settings);
  let allowedHosts = new Set<string>();
  const server: Server = createServer((request, response) => {
    void handle(context, settings, allowedHosts, request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new ListenError(listen, error)));
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostPart = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  allowedHosts = new Set([`${hostPart}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]);
  return {
    url: `http://${hostPart}:${port}/`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

async function handle(context: WebContext, settings: WebSettings, allowedHosts: Set<string>, request: IncomingMessage, response: ServerResponse): Promise<void> {
  let reply: Reply;
  try {
    reply = await answer(context, settings, allowedHosts, request);
  } catch (error) {
    reply = await errorReply(context, request, error);
  }
  response.writeHead(reply.status ?? 200, { ...SECURITY_HEADERS, 'content-type': reply.type ?? 'text/html; charset=utf-8', 'cache-control': 'no-store', ...reply.headers });
  const { body } = reply;
  if (body instanceof Readable) {
    if (request.method === 'HEAD') {
      body.destroy();
      response.end();
    } else {
      // A stream that fails half-way ends the response short: the browser sees an incomplete download, never a
      // complete-looking wrong one.
      pipeline(body, response).catch((error: unknown) => context.services.log.debug(`web: ${request.url}: stream ended: ${messageOf(error)}`));
    }
    return;
  }
  response.end(request.method === 'HEAD' ? undefined : body);
}

/**
 * A page that could not be made: 404 for what is not there, 502 when the repository's packs cannot be read (a corrupt
 * or lost pack: the storage served bad data), 500 otherwise; a repository's page keeps its tabs, so the chain's pages
 * (push log, access) stay one click away.
 */
async function errorReply(context: WebContext, request: IncomingMessage, error: unknown): Promise<Reply> {
  const notFound = error instanceof NotFound || (error instanceof WalrusGitError && /NOT_FOUND/.test(error.code));
  const unreadable = error instanceof RepositoryUnreadableError;
  if (!notFound) context.services.log.debug(`web: ${request.method} ${request.url}: ${(error as Error)?.stack ?? messageOf(error)}`);
  const inRepository = /^\/repos\/(0x[0-9a-f]{64})(\/[^?]*)?/.exec(request.url ?? '');
  const info = inRepository === null ? null : await context.services.ledger.getRepository(inRepository[1]!).catch(() => null);
  const title = notFound ? 'Not found' : unreadable ? 'Contents unreadable' : 'Something went wrong';
  return htmlReply(page({
    title,
    network: context.services.networkName,
    ...(info !== null ? { repo: repoNav(info, tabOfPath(inRepository![2] ?? '')) } : {}),
    body: html`<h1>${title}</h1><p class="problem">${messageOf(error)}</p>${unreadable && info !== null ? html`<p>Its pages from the chain still show: the <a href="/repos/${info.id}/pushes">push log</a> says which push's pack fails (“Verify everything”), and the <a href="/repos/${info.id}/access">access list</a> who may push its objects again.</p>` : ''}`,
  }), notFound ? 404 : unreadable ? 502 : 500);
}

async function answer(context: WebContext, settings: WebSettings, allowedHosts: Set<string>, request: IncomingMessage): Promise<Reply> {
  const text = (status: number, body: string): Reply => ({ status, type: 'text/plain; charset=utf-8', body });
  if (!settings.exposed && !allowedHosts.has(request.headers.host ?? '')) return text(421, 'this server answers to its own loopback address only\n');
  const method = request.method ?? 'GET';
  if (method === 'POST') {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${request.headers.host}`) return text(403, 'a POST must come from this server\'s own pages\n');
    if (request.headers['sec-fetch-site'] !== undefined && request.headers['sec-fetch-site'] !== 'same-origin') return text(403, 'a POST must come from this server\'s own pages\n');
    request.resume();
  } else if (method !== 'GET' && method !== 'HEAD') {
    return text(405, 'read-only: GET only\n');
  }
  const url = new URL(request.url ?? '/', 'http://localhost');
  // Pages start work (a verify run, a clone that decrypts, reading every artifact): another site may not make this
  // server do that with a link, an <img> or a frame. Browsers say where a request comes from (Sec-Fetch-Site); one
  // typed or bookmarked says `none`, and a client without the header (curl) is no other site.
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none' && !url.pathname.startsWith('/static/')) {
    return htmlReply(page({ title: 'Opened from another site', network: context.services.networkName, body: html`<h1>Opened from another site</h1><p>Another site asked for this page, so nothing was done. <a href="${url.pathname}${url.search}">Open it here</a>.</p>` }), 403);
  }
  for (const route of context.table) {
    if (route.method !== (method === 'HEAD' ? 'GET' : method)) continue;
    const match = route.pattern.exec(url.pathname);
    if (match === null) continue;
    let params: string[];
    try {
      params = match.slice(1).map((part) => decodeURIComponent(part));
    } catch {
      throw new NotFound('malformed address');
    }
    const routeRequest: RouteRequest = { method, params, query: url.searchParams };
    return route.handle(routeRequest);
  }
  throw new NotFound(`no page at ${url.pathname}`);
}
