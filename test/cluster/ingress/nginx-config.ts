/**
 * The ingress stand-in's nginx configuration, pure: the cluster's `networking.k8s.io/v1` Ingresses (of class `nginx`
 * or none), their Services and Endpoints in, nginx.conf out. Like ingress-nginx it proxies to the Service's ready
 * endpoints (pod IP and target port) directly, so the apps see the ingress's own address as the client; a host no
 * Ingress names answers 404, a backend without ready endpoints 503. Every change of input gives a new text; the same
 * input gives the same text (the runner reloads nginx only when the text changes).
 */
import type { V1Endpoints, V1Ingress, V1IngressBackend, V1Service } from '@kubernetes/client-node';

/** The class the stand-in serves (and Ingresses that name none). */
export const INGRESS_CLASS = 'nginx';

export interface IngressInputs {
  ingresses: readonly V1Ingress[];
  services: readonly V1Service[];
  endpoints: readonly V1Endpoints[];
}

export interface NginxOptions {
  /** The address nginx listens on (port 80). */
  listen: string;
  /** nginx's own files: pid, logs, temporary files. */
  dir: string;
}

interface Route {
  path: string;
  pathType: string;
  /** null: the backend has no ready endpoint (503). */
  upstream: string | null;
}

/** The ready `ip:port` pairs behind an Ingress backend, sorted, or an empty list. */
export function backendAddresses(namespace: string, backend: V1IngressBackend | undefined, inputs: IngressInputs): string[] {
  const wanted = backend?.service;
  if (!wanted) return [];
  const service = inputs.services.find((s) => s.metadata?.namespace === namespace && s.metadata?.name === wanted.name);
  const port = service?.spec?.ports?.find((p) => (wanted.port?.name !== undefined ? p.name === wanted.port.name : p.port === wanted.port?.number));
  if (!service || !port) return [];
  const endpoints = inputs.endpoints.find((e) => e.metadata?.namespace === namespace && e.metadata?.name === wanted.name);
  const out = new Set<string>();
  for (const subset of endpoints?.subsets ?? []) {
    // The endpoint port of the Service port: same name, or the only one when the Service has one unnamed port.
    const target = subset.ports?.find((p) => (p.name ?? '') === (port.name ?? '')) ?? (subset.ports?.length === 1 && !port.name ? subset.ports[0] : undefined);
    if (!target) continue;
    for (const address of subset.addresses ?? []) out.add(`${address.ip}:${target.port}`);
  }
  return [...out].sort();
}

/** nginx.conf for the Ingresses of `inputs`. */
export function nginxConfig(inputs: IngressInputs, options: NginxOptions): string {
  const upstreams = new Map<string, string[]>();
  const hosts = new Map<string, Route[]>();
  const served = inputs.ingresses
    .filter((ingress) => (ingress.spec?.ingressClassName ?? INGRESS_CLASS) === INGRESS_CLASS && !ingress.metadata?.deletionTimestamp)
    // The oldest Ingress wins a (host, path) two of them claim, as in ingress-nginx.
    .sort((a, b) => time(a) - time(b) || key(a).localeCompare(key(b)));
  for (const ingress of served) {
    const namespace = ingress.metadata!.namespace!;
    for (const rule of ingress.spec?.rules ?? []) {
      const host = rule.host ?? '_';
      const routes = hosts.get(host) ?? [];
      hosts.set(host, routes);
      for (const path of rule.http?.paths ?? []) {
        const pathType = path.pathType === 'Exact' ? 'Exact' : 'Prefix'; // ImplementationSpecific: a prefix here
        const at = pathType === 'Exact' ? path.path || '/' : (path.path || '/').replace(/\/+$/, '') || '/';
        if (routes.some((route) => route.path === at && route.pathType === pathType)) continue;
        const addresses = backendAddresses(namespace, path.backend, inputs);
        const name = `u${upstreams.size}_${`${namespace}_${path.backend.service?.name ?? 'none'}`.replace(/[^A-Za-z0-9_]/g, '_')}`;
        if (addresses.length > 0) upstreams.set(name, addresses);
        routes.push({ path: at, pathType, upstream: addresses.length > 0 ? name : null });
      }
    }
  }
  const lines: string[] = [
    'worker_processes 1;',
    `pid ${options.dir}/nginx.pid;`,
    `error_log ${options.dir}/error.log warn;`,
    // The workers write only nginx's temporary files under dir; root keeps them inside the run's own directory.
    'user root root;',
    'events { worker_connections 1024; }',
    'http {',
    `  access_log ${options.dir}/access.log;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `  ${kind}_temp_path ${options.dir}/tmp/${kind};`),
    '  server_names_hash_bucket_size 128;',
    '  proxy_http_version 1.1;',
    '  proxy_set_header Connection "";',
    '  proxy_set_header Host $host;',
    '  proxy_set_header X-Real-IP $remote_addr;',
    '  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
    '  proxy_set_header X-Forwarded-Host $host;',
    '  proxy_set_header X-Forwarded-Proto $scheme;',
    // A pod that went away between two reloads: the request goes to the next endpoint (ingress-nginx's default).
    '  proxy_next_upstream error timeout;',
    '  proxy_connect_timeout 5s;',
  ];
  for (const [name, addresses] of upstreams) {
    lines.push(`  upstream ${name} {`, ...addresses.map((address) => `    server ${address} max_fails=0;`), '    keepalive 16;', '  }');
  }
  // A host no Ingress names: 404 from the ingress itself.
  const defaultRoutes = hosts.get('_') ?? [];
  lines.push(`  server {`, `    listen ${options.listen}:80 default_server;`, '    server_name _;');
  lines.push(...locationsOf(defaultRoutes));
  if (!defaultRoutes.some((route) => route.path === '/')) lines.push('    location / { return 404; }');
  lines.push('  }');
  for (const [host, routes] of [...hosts].filter(([host]) => host !== '_').sort(([a], [b]) => a.localeCompare(b))) {
    lines.push('  server {', `    listen ${options.listen}:80;`, `    server_name ${host};`, ...locationsOf(routes));
    if (!routes.some((route) => route.path === '/' && route.pathType !== 'Exact')) lines.push('    location / { return 404; }');
    lines.push('  }');
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** The locations of a server's routes; an Exact path wins the `=` location a Prefix of the same path would add. */
function locationsOf(routes: Route[]): string[] {
  const seen = new Set<string>();
  return [...routes].sort((a, b) => (a.pathType === 'Exact' ? 0 : 1) - (b.pathType === 'Exact' ? 0 : 1)).flatMap(locations).filter((line) => {
    const selector = line.slice(0, line.indexOf('{'));
    if (seen.has(selector)) return false;
    seen.add(selector);
    return true;
  });
}

/** nginx locations of one Ingress path: Exact as `=`; Prefix element-wise (the path itself and below `path/`). */
function locations(route: Route): string[] {
  const body = route.upstream ? `proxy_pass http://${route.upstream};` : 'return 503;';
  const path = route.path;
  if (route.pathType === 'Exact') return [`    location = ${path} { ${body} }`];
  if (path === '/') return [`    location / { ${body} }`];
  return [`    location = ${path} { ${body} }`, `    location ^~ ${path}/ { ${body} }`];
}

function time(ingress: V1Ingress): number {
  const created = ingress.metadata?.creationTimestamp;
  return created ? new Date(created).getTime() : 0;
}

function key(ingress: V1Ingress): string {
  return `${ingress.metadata?.namespace}/${ingress.metadata?.name}`;
}
