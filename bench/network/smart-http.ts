/**
 * Native git's smart HTTP, the baseline a git host gives: `git http-backend` run as a CGI program for each request
 * by a small web server on 127.0.0.1, serving the bare repositories under `root` (fetch and push; push is allowed
 * for every repository, as `http.receivepack` would be for an authenticated user). Request headers reach the CGI as
 * its `HTTP_*` variables (a gzipped body and `Git-Protocol: version=2` included), and its `Status:` and headers are
 * turned into the response's.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface SmartHttpServer {
  /** `http://127.0.0.1:<port>`; a repository `<root>/x.git` is at `<url>/x.git`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startSmartHttp(root: string, env: NodeJS.ProcessEnv): Promise<SmartHttpServer> {
  const server = createServer((req, res) => serve(root, env, req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function serve(root: string, env: NodeJS.ProcessEnv, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [`HTTP_${name.toUpperCase().replace(/-/g, '_')}`, String(value)]));
  const cgi = spawn('git', ['http-backend'], {
    env: {
      ...env, ...headers,
      GIT_PROJECT_ROOT: root, GIT_HTTP_EXPORT_ALL: '1', REMOTE_USER: 'bench', REMOTE_ADDR: '127.0.0.1',
      GATEWAY_INTERFACE: 'CGI/1.1', SERVER_PROTOCOL: 'HTTP/1.1', REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname), QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '', ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  req.pipe(cgi.stdin);
  cgi.stdin.on('error', () => {}); // the CGI may answer before reading a body it refuses
  let head = Buffer.alloc(0);
  let started = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (started) { res.write(chunk); return; }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    started = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const at = line.indexOf(':');
      const [name, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      if (name.toLowerCase() === 'status') status = Number(value.split(' ')[0]);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  cgi.on('close', (code) => {
    if (!started) res.writeHead(500).end(`git http-backend exited (${code}) without a response`);
    else res.end();
  });
}
