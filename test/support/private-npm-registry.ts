/**
 * A private npm registry for tests, on 127.0.0.1: the two requests npm makes to install a package, a packument GET
 * (`/@scope%2fname`, npm's spelling, or `/@scope/name`) and a tarball GET (the packument's `dist.tarball`), each refused
 * with 401 and a WWW-Authenticate challenge, as a registry refuses an anonymous or wrong token, unless the request
 * carries `Authorization: Bearer <token>`. It serves one package it builds itself: `index.js` exporting `greeting`,
 * packed under `package/` as npm packs it, with its sha512 integrity and sha1 shasum.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RegistryRequest {
  path: string;
  /** What the request was answered: 200, 401 or 404. */
  status: number;
  /** The Authorization header's scheme, and whether its token was the registry's (never the token itself). */
  auth: 'none' | 'bearer-right' | 'bearer-wrong' | 'other';
}

export interface PrivateRegistry {
  /** `http://127.0.0.1:<port>/`, as .npmrc names it. */
  url: string;
  /** The `//127.0.0.1:<port>/` part .npmrc keys the token by. */
  authKey: string;
  /** The package's name (`@scope/name`), version and the tarball's integrity, for a lockfile. */
  name: string;
  version: string;
  tarball: string;
  integrity: string;
  requests: RegistryRequest[];
  close(): Promise<void>;
}

/** Builds the package `name`@`version` exporting `greeting` and serves it, answering only `token`. */
export async function startPrivateRegistry(name: string, version: string, greeting: string, token: string): Promise<PrivateRegistry> {
  const bytes = packPackage(name, version, greeting);
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  const shasum = createHash('sha1').update(bytes).digest('hex');
  const base = name.split('/').at(-1)!;
  const tarballPath = `/${name}/-/${base}-${version}.tgz`;
  const requests: RegistryRequest[] = [];
  let url = '';
  const server = createServer((request, response) => {
    const header = request.headers.authorization;
    const auth: RegistryRequest['auth'] = header === undefined ? 'none' : header === `Bearer ${token}` ? 'bearer-right' : header.startsWith('Bearer ') ? 'bearer-wrong' : 'other';
    const path = decodeURIComponent((request.url ?? '/').split('?')[0]!);
    const answer = (status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) => {
      requests.push({ path, status, auth });
      response.writeHead(status, { 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers });
      response.end(body);
    };
    if (request.method !== 'GET' && request.method !== 'HEAD') return answer(405, 'application/json', '{"error":"method not allowed"}');
    if (auth !== 'bearer-right') {
      return answer(401, 'application/json', JSON.stringify({ error: 'authentication required' }), { 'www-authenticate': 'Bearer realm="private registry"' });
    }
    if (path === `/${name}`) {
      const manifest = { name, version, main: 'index.js', dist: { tarball: `${url}${tarballPath.slice(1)}`, integrity, shasum } };
      return answer(200, 'application/json', JSON.stringify({ name, 'dist-tags': { latest: version }, versions: { [version]: manifest } }));
    }
    if (path === tarballPath) return answer(200, 'application/octet-stream', bytes);
    return answer(404, 'application/json', '{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}/`;
  return {
    url, authKey: `//127.0.0.1:${port}/`, name, version, tarball: `${url}${tarballPath.slice(1)}`, integrity, requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** The package as npm packs it: a gzipped tar of `package/package.json` and `package/index.js`. */
function packPackage(name: string, version: string, greeting: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'private-package-'));
  try {
    mkdirSync(join(dir, 'package'));
    writeFileSync(join(dir, 'package', 'package.json'), `${JSON.stringify({ name, version, main: 'index.js', license: 'UNLICENSED' })}\n`);
    writeFileSync(join(dir, 'package', 'index.js'), `module.exports = { greeting: ${JSON.stringify(greeting)} };\n`);
    execFileSync('tar', ['-czf', join(dir, 'package.tgz'), '-C', dir, 'package']);
    return readFileSync(join(dir, 'package.tgz'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
