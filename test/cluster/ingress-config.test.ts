import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { V1Endpoints, V1Ingress, V1Service } from '@kubernetes/client-node';
import { backendAddresses, nginxConfig } from './ingress/nginx-config.ts';

const config = suite('ingress stand-in: nginx.conf from Ingresses, Services and Endpoints');

const service = (name: string, ports: { name?: string; port: number }[] = [{ name: 'http', port: 80 }], namespace = 'team'): V1Service => ({ metadata: { name, namespace }, spec: { ports } });
const endpoints = (name: string, ips: string[], port = 3000, portName: string | undefined = 'http', namespace = 'team'): V1Endpoints => ({
  metadata: { name, namespace }, subsets: [{ addresses: ips.map((ip) => ({ ip })), notReadyAddresses: [{ ip: '10.244.1.99' }], ports: [{ ...(portName ? { name: portName } : {}), port }] }],
});
const ingress = (name: string, host: string | undefined, backend: string, fields: { path?: string; pathType?: string; className?: string; created?: string; namespace?: string; port?: { number?: number; name?: string } } = {}): V1Ingress => ({
  metadata: { name, namespace: fields.namespace ?? 'team', creationTimestamp: new Date(fields.created ?? '2026-11-25T10:00:00Z') },
  spec: {
    ...(fields.className ? { ingressClassName: fields.className } : {}),
    rules: [{ ...(host ? { host } : {}), http: { paths: [{ path: fields.path ?? '/', pathType: fields.pathType ?? 'Prefix', backend: { service: { name: backend, port: fields.port ?? { number: 80 } } } }] } }],
  },
});
const OPTIONS = { listen: '10.244.1.254', dir: '/run/x' };

config('a backend is its Service port\'s ready endpoints (by port name, or by number), never the not-ready ones', () => {
  const inputs = { ingresses: [], services: [service('web')], endpoints: [endpoints('web', ['10.244.1.5', '10.244.1.4'])] };
  assert.equal(backendAddresses('team', { service: { name: 'web', port: { number: 80 } } }, inputs), ['10.244.1.4:3000', '10.244.1.5:3000']);
  assert.equal(backendAddresses('team', { service: { name: 'web', port: { name: 'http' } } }, inputs), ['10.244.1.4:3000', '10.244.1.5:3000']);
  assert.equal(backendAddresses('team', { service: { name: 'web', port: { number: 81 } } }, inputs), []);
  assert.equal(backendAddresses('other', { service: { name: 'web', port: { number: 80 } } }, inputs), []);
  const unnamed = { ingresses: [], services: [service('web', [{ port: 80 }])], endpoints: [endpoints('web', ['10.244.1.4'], 8080, undefined)] };
  assert.equal(backendAddresses('team', { service: { name: 'web', port: { number: 80 } } }, unnamed), ['10.244.1.4:8080']);
});

config('each host a server proxying to its upstream; unknown hosts 404; no ready endpoint 503; other classes ignored', () => {
  const text = nginxConfig({
    ingresses: [ingress('web', 'web.apps.test', 'web'), ingress('down', 'down.apps.test', 'down'), ingress('traefik', 'other.apps.test', 'web', { className: 'traefik' })],
    services: [service('web'), service('down')],
    endpoints: [endpoints('web', ['10.244.1.4', '10.244.1.5']), endpoints('down', [])],
  }, OPTIONS);
  assert.match(text, /upstream u0_team_web \{\n {4}server 10\.244\.1\.4:3000 max_fails=0;\n {4}server 10\.244\.1\.5:3000 max_fails=0;/);
  assert.match(text, /server_name web\.apps\.test;\n {4}location \/ \{ proxy_pass http:\/\/u0_team_web; \}/);
  assert.match(text, /server_name down\.apps\.test;\n {4}location \/ \{ return 503; \}/);
  assert.not.match(text, /other\.apps\.test/);
  assert.match(text, /listen 10\.244\.1\.254:80 default_server;\n {4}server_name _;\n {4}location \/ \{ return 404; \}/);
  assert.match(text, /proxy_next_upstream error timeout;/);
  // The same input, the same text (the watcher reloads only on a change).
  assert.is(nginxConfig({ ingresses: [ingress('web', 'web.apps.test', 'web')], services: [service('web')], endpoints: [endpoints('web', ['10.244.1.5', '10.244.1.4'])] }, OPTIONS),
    nginxConfig({ ingresses: [ingress('web', 'web.apps.test', 'web')], services: [service('web')], endpoints: [endpoints('web', ['10.244.1.4', '10.244.1.5'])] }, OPTIONS));
});

config('paths: Prefix matches the path and below it (element-wise), Exact only itself; the oldest Ingress wins a clash', () => {
  const text = nginxConfig({
    ingresses: [
      ingress('api', 'a.test', 'api', { path: '/api/', pathType: 'Prefix' }),
      ingress('exact', 'a.test', 'web', { path: '/health', pathType: 'Exact' }),
      ingress('newer', 'a.test', 'other', { path: '/api', created: '2026-11-25T11:00:00Z' }),
    ],
    services: [service('api'), service('web'), service('other')],
    endpoints: [endpoints('api', ['10.244.1.4']), endpoints('web', ['10.244.1.5']), endpoints('other', ['10.244.1.6'])],
  }, OPTIONS);
  assert.match(text, /location = \/api \{ proxy_pass http:\/\/u0_team_api; \}\n {4}location \^~ \/api\/ \{ proxy_pass http:\/\/u0_team_api; \}/);
  assert.match(text, /location = \/health \{ proxy_pass http:\/\/u1_team_web; \}/);
  assert.not.match(text, /team_other/);
  assert.match(text, /server_name a\.test;[^}]*\}[^}]*\}[^}]*\}\n {4}location \/ \{ return 404; \}/);
});

config.run();
