// hello-npm: the example app of git-remote-walrus's GitOps controller (examples/hello-npm/README.md).
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import ms from 'ms';

const { name, version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));
const port = Number(process.env.PORT ?? 8080);
const started = Date.now();

const server = createServer((request, response) => {
  const { pathname } = new URL(request.url, 'http://localhost');
  if (pathname === '/healthz') {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n');
    return;
  }
  if (pathname === '/') {
    const body = { app: name, version, uptime: ms(Date.now() - started, { long: true }), node: process.version };
    response.writeHead(200, { 'content-type': 'application/json' }).end(`${JSON.stringify(body)}\n`);
    return;
  }
  response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
});

server.listen(port, () => console.log(`${name} ${version} listening on port ${server.address().port}`));

// Kubernetes sends SIGTERM while it takes the pod out of the Service: keep serving for a moment, so connections
// routed here before that took effect still get an answer, then stop accepting, finish what is in flight, and exit.
// (`exec` in the start script lets the signal npm forwards reach this process rather than a shell.)
const drainMs = Number(process.env.SHUTDOWN_DELAY_MS ?? 2000);
const stop = (signal) => {
  console.log(`${signal}: stopping in ${drainMs} ms`);
  setTimeout(() => server.close(() => process.exit(0)), drainMs).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
