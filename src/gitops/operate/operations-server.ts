import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_CONTENT_TYPE } from '../../core/metrics.ts';
import { liveness, readiness, type HealthFacts, type HealthLimits, type Verdict } from './health.ts';

export interface Operated {
  healthFacts(): HealthFacts;
  renderMetrics(): string;
}

/**
 * The controller's operations endpoint, as Flux's and controller-runtime's serve it: `GET /healthz` (liveness),
 * `/readyz` (readiness): 200 with "ok…", or 503 with why; `/metrics` in Prometheus' text format. Nothing else.
 */
export async function serveOperations(operated: Operated, limits: HealthLimits, address: { host: string; port: number }): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('only GET\n');
      return;
    }
    if (path === '/metrics') {
      response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE }).end(operated.renderMetrics());
      return;
    }
    const judge: ((facts: HealthFacts, limits: HealthLimits) => Verdict) | undefined = path === '/healthz' ? liveness : path === '/readyz' ? readiness : undefined;
    if (!judge) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: /healthz, /readyz, /metrics\n');
      return;
    }
    const verdict = judge(operated.healthFacts(), limits);
    response.writeHead(verdict.ok ? 200 : 503, { 'content-type': 'text/plain' }).end(`${verdict.message}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
