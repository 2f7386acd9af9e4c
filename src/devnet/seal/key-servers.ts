/**
 * The devnet's Seal key servers: three independent servers (DEVNET_SEAL in src/config/networks.ts), each with its own
 * master key kept in the state directory, registered on the devnet chain like real ones (objects.ts), speaking
 * Seal's HTTP protocol (`POST /v1/fetch_key`, `GET /v1/service`) with its headers and error bodies, and deciding
 * access by dry-running the request's PTB on the chain engine with the certificate's user as sender.
 *
 * Server n (1-based) answers under `/seal/<n>`. Both fronts mount them: the embedded network through `fetch` (in
 * process, never a socket), `git walrus devnet` on its port. A server can be taken down: the embedded fetch then
 * fails like a refused connection and the network front drops the connection, as a dead server would. Which servers
 * are down is kept in `<dir>/seal/down`, so every process sharing the state directory (each git command opens the
 * embedded network itself) sees the same outage.
 *
 * A server can also sit behind an API-key gateway, as providers run theirs (`<dir>/seal/api-keys`): the gateway
 * answers before the key server sees anything, the way Kong's key-auth plugin does: 401 with
 * `{"message":"No API key found in request"}` without the header, `{"message":"Unauthorized"}` with a wrong key.
 */
import { dirname, join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { bcs } from '@mysten/sui/bcs';
import { toBase64 } from '@mysten/sui/utils';
import { withFileLock, writeFileAtomic } from '../../fs/atomic.ts';
import { DEVNET_SEAL } from '../../core/devnet-protocol.ts';
import type { ChainEngine } from '../chain/engine.ts';
import { PACKAGE_TYPE } from '../chain/objects.ts';
import { KeyServerV2, keyServerObjects } from './objects.ts';
import { BodyRejection, KeyServerError, PlainRejection } from './errors.ts';
import { isJsonRequest, readCappedBody } from '../capped-body.ts';
import { dryRun } from './policy.ts';
import type { KeyRequestContext } from './fetch-key.ts';

// The cryptography (@noble/curves' BLS12-381: ~0.1 s to load, ~0.1 s per public key) loads at the first request or
// registration, so the git processes that open the embedded network only to push or fetch public repositories never
// pay for it.
const ibe = () => import('./ibe.ts');
const protocol = () => import('./fetch-key.ts');

/** The key-server release whose behaviour this follows (the SDK requires ≥ 0.4.1 in `X-KeyServer-Version`). */
export const KEY_SERVER_VERSION = '0.6.10';
/** Where the key servers are registered until a `git walrus devnet` server registers its own address. */
export const LOCAL_SEAL_URL = 'http://seal.local.invalid';
/** The real server's body limit (`MAX_REQUEST_SIZE`). */
export const MAX_REQUEST_BYTES = 180 * 1024;
/** The key servers' default requirement on `Client-Sdk-Version` for `Client-Sdk-Type: typescript`. */
const TS_SDK_MINIMUM = [0, 4, 5] as const;
const PATH = /^\/seal\/([1-9][0-9]*)(\/v1\/(?:fetch_key|service))$/;

export interface DevnetKeyServersOptions {
  /** Key servers (1-based) that are down from now on, all others up; absent: as the state directory says. */
  down?: Iterable<number>;
}

/** The API key a gateway in front of a key server requires: header `name` carrying `value`. */
export interface GatewayApiKey {
  name: string;
  value: string;
}

export interface DevnetKeyServers {
  /** `KeyServer` object ids, server 1 first. */
  readonly objectIds: readonly string[];
  /** Answers a request for `/seal/<n>/v1/…` (404 for any other path). */
  handle(request: Request): Promise<Response>;
  /** An in-process `fetch` for the key servers' URLs (any host: it is matched by path), failing like a dead server for one that is down. */
  readonly fetch: typeof fetch;
  /** Whether `pathname` belongs to a key server that is down (the network front then drops the connection). */
  isDown(pathname: string): boolean;
  /** Takes key server n (1-based) down, or brings it back, for every process sharing the state directory. */
  setDown(n: number, down: boolean): void;
  /** Puts key server n (1-based) behind a gateway requiring `key` (null: no gateway), for every process sharing the state directory. */
  requireApiKey(n: number, key: GatewayApiKey | null): void;
  /** Points the on-chain registrations at `<baseUrl>/seal/<n>`, as an operator moving its servers would. */
  register(baseUrl: string): Promise<void>;
  /** Requests answered so far by each key server (server 1 first), whatever the answer. */
  readonly served: readonly number[];
}

/** Opens the key servers of the devnet whose state is in `dir` (`<dir>/seal` holds their keys), registering them on first use. */
export async function openKeyServers(dir: string, engine: ChainEngine, options: DevnetKeyServersOptions = {}): Promise<DevnetKeyServers> {
  const objectIds = DEVNET_SEAL.keyServers.map((server) => server.objectId);
  const { keys: masterKeys, created } = await loadMasterKeys(join(dir, 'seal'), objectIds.length);
  if (options.down !== undefined) setKeyServersDown(dir, options.down);
  const down = { has: (n: number) => keyServersDown(dir).has(n) };
  const served = objectIds.map(() => 0);

  const registrations = async (url: (n: number) => string) => {
    const { masterPublicKey } = await ibe();
    await engine.putSystemObjects(objectIds.flatMap((objectId, i) => keyServerObjects({
      objectId, name: `devnet-${i + 1}`, url: url(i + 1), publicKey: masterPublicKey(masterKeys[i]!),
    })));
  };
  // Registered at the embedded address when the chain has no registration yet (or the keys are new); a server's
  // address, once registered, is kept.
  await engine.refresh();
  // Registered means the KeyServer object exists (a registration writes it and its version field at once): a lookup,
  // where the field's id would be a hash every process opening the network pays for.
  if (created || objectIds.some((id) => engine.object(id) === undefined)) {
    await registrations((n) => registeredUrl(engine, objectIds[n - 1]!) ?? `${LOCAL_SEAL_URL}/seal/${n}`);
  }

  const context = (): KeyRequestContext => ({
    now: Date.now(),
    packageExists: async (id) => engine.object(id)?.type === PACKAGE_TYPE,
    verifyUserSignature: async (message, signature, address) => {
      const { verifyPersonalMessageSignature } = await import('@mysten/sui/verify');
      return verifyPersonalMessageSignature(message, signature, { address }).then(() => true, () => false);
    },
    policy: (ptb, sender) => dryRun(engine, ptb, sender),
  });

  const serve = async (n: number, endpoint: string, request: Request): Promise<Response> => {
    served[n - 1]! += 1;
    const masterKey = masterKeys[n - 1]!;
    try {
      checkHeaders(request.headers);
      if (endpoint === '/v1/service' && request.method === 'GET') return await serviceResponse(masterKey, objectIds[n - 1]!, new URL(request.url).searchParams);
      if (endpoint === '/v1/fetch_key' && request.method === 'POST') {
        const { checkFetchKey, fetchKeyResponse, parseFetchKeyRequest } = await protocol();
        const parsed = parseFetchKeyRequest(await readJsonBody(request));
        await engine.refresh();
        const { fullIds } = await checkFetchKey(parsed, context());
        return withHeaders(Response.json(fetchKeyResponse(masterKey, fullIds, parsed.encKey)));
      }
      return withHeaders(new Response(null, { status: 405 }));
    } catch (error) {
      if (error instanceof KeyServerError) return withHeaders(Response.json({ error: error.error, message: error.message }, { status: error.status }));
      if (error instanceof BodyRejection || error instanceof PlainRejection) return withHeaders(new Response(error.message, { status: error.status, headers: { 'content-type': 'text/plain; charset=utf-8' } }));
      return withHeaders(Response.json({ error: 'Failure', message: 'Internal server error, please try again later' }, { status: 503 }));
    }
  };

  const route = (pathname: string): { n: number; endpoint: string } | null => {
    const match = PATH.exec(pathname);
    if (!match) return null;
    const n = Number(match[1]);
    return n <= objectIds.length ? { n, endpoint: match[2]! } : null;
  };

  const handle = async (request: Request): Promise<Response> => {
    const target = route(new URL(request.url).pathname);
    if (!target) return new Response('not found', { status: 404 });
    if (request.method === 'OPTIONS') return withHeaders(new Response(null, { status: 204 }));
    const refusal = gatewayRefusal(keyServerApiKeys(dir).get(target.n), request.headers);
    if (refusal !== null) return refusal;
    return serve(target.n, target.endpoint, request);
  };

  return {
    objectIds,
    handle,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const request = new Request(input, init);
      const target = route(new URL(request.url).pathname);
      if (!target) throw new TypeError(`fetch failed: ${request.url} is not a devnet key server`);
      if (down.has(target.n)) throw new TypeError('fetch failed', { cause: Object.assign(new Error(`connect ECONNREFUSED (devnet key server ${target.n} is down)`), { code: 'ECONNREFUSED' }) });
      return handle(request);
    }) as typeof fetch,
    isDown: (pathname) => {
      const target = route(pathname);
      return target !== null && down.has(target.n);
    },
    setDown: (n, isDown) => {
      const current = keyServersDown(dir);
      if (isDown) current.add(n);
      else current.delete(n);
      setKeyServersDown(dir, current);
    },
    requireApiKey: (n, key) => requireKeyServerApiKey(dir, n, key),
    register: (baseUrl) => registrations((n) => `${baseUrl.replace(/\/$/, '')}/seal/${n}`),
    served,
  };
}

const downFile = (dir: string) => join(dir, 'seal', 'down');

/** The key servers (1-based) that are down on the devnet whose state is in `dir`. */
export function keyServersDown(dir: string): Set<number> {
  let text = '';
  try {
    text = readFileSync(downFile(dir), 'utf8');
  } catch {
    return new Set();
  }
  return new Set(text.split(/[\s,]+/).filter(Boolean).map(Number));
}

/**
 * Marks exactly `servers` (1-based) as down on the devnet whose state is in `dir`, for every process that shares it
 * (tests of private clones through real git processes; `git walrus devnet --key-servers-down`).
 */
export function setKeyServersDown(dir: string, servers: Iterable<number>): void {
  writeFileAtomicSync(downFile(dir), `${[...new Set(servers)].sort().join(' ')}\n`);
}

const apiKeysFile = (dir: string) => join(dir, 'seal', 'api-keys');

/** The API keys the gateways in front of the key servers (1-based) require, on the devnet whose state is in `dir`. */
export function keyServerApiKeys(dir: string): Map<number, GatewayApiKey> {
  let text = '';
  try {
    text = readFileSync(apiKeysFile(dir), 'utf8');
  } catch {
    return new Map();
  }
  return new Map(Object.entries(JSON.parse(text) as Record<string, GatewayApiKey>).map(([n, key]) => [Number(n), key]));
}

/** Replaces `path` whole (readers in other processes see the old text or the new one), creating its directory. */
/**
 * Puts key server n (1-based) of the devnet whose state is in `dir` behind a gateway requiring `key` (null: none),
 * for every process that shares it.
 */
export function requireKeyServerApiKey(dir: string, n: number, key: GatewayApiKey | null): void {
  const current = keyServerApiKeys(dir);
  if (key === null) current.delete(n);
  else current.set(n, key);
  writeFileAtomicSync(apiKeysFile(dir), `${JSON.stringify(Object.fromEntries(current))}\n`);
}

function writeFileAtomicSync(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** A gateway's answer to a request without the API key it requires, or with another one; null when it lets it through. */
function gatewayRefusal(required: GatewayApiKey | undefined, headers: Headers): Response | null {
  if (required === undefined) return null;
  const sent = headers.get(required.name);
  if (sent === required.value) return null;
  const message = sent === null || sent === '' ? 'No API key found in request' : 'Unauthorized';
  return Response.json({ message }, { status: 401, headers: { 'WWW-Authenticate': 'Key realm="seal-gateway"' } });
}

/** The URL a key server is registered under on the chain, if it is registered. */
function registeredUrl(engine: ChainEngine, objectId: string): string | undefined {
  const field = keyServerObjects({ objectId, name: '', url: '', publicKey: new Uint8Array() })[1]!;
  const stored = engine.object(field.id);
  if (!stored) return undefined;
  const value = KeyServerV2.parse(stored.contents.slice(32 + 8));
  return value.server_type.Independent?.url;
}

/**
 * Each key server's master key (hex, 32 bytes big-endian) in `<dir>/<n>.key`, created once by whichever process comes
 * first; `created` says this call made one.
 */
async function loadMasterKeys(dir: string, count: number): Promise<{ keys: Uint8Array[]; created: boolean }> {
  const paths = Array.from({ length: count }, (_, i) => join(dir, `${i + 1}.key`));
  const read = () => Promise.all(paths.map((path) => readFile(path, 'utf8').then((hex): Uint8Array | null => Uint8Array.from(Buffer.from(hex.trim(), 'hex')), () => null)));
  const keys = await read();
  if (keys.every((key) => key !== null)) return { keys: keys as Uint8Array[], created: false };
  return withFileLock(join(dir, 'lock'), async () => {
    let created = false;
    const current = await Promise.all((await read()).map(async (key, i) => {
      if (key !== null) return key;
      const { generateMasterKey } = await ibe();
      const fresh = generateMasterKey();
      await writeFileAtomic(paths[i]!, `${Buffer.from(fresh).toString('hex')}\n`);
      created = true;
      return fresh;
    }));
    return { keys: current, created };
  });
}

/** `handle_request_headers`: the SDK version header is required, and a TypeScript SDK must be recent enough. */
function checkHeaders(headers: Headers): void {
  const version = headers.get('Client-Sdk-Version');
  if (version === null) throw new KeyServerError(400, 'MissingRequiredHeader', 'Missing required header: Client-Sdk-Version');
  const parts = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:[-+][0-9A-Za-z.+-]*)?$/.exec(version);
  if (!parts) throw new KeyServerError(400, 'InvalidSDKVersion', 'Invalid SDK version');
  if (headers.get('Client-Sdk-Type') === 'typescript') {
    const [major, minor, patch] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
    const [a, b, c] = TS_SDK_MINIMUM;
    if (major < a || (major === a && (minor < b || (minor === b && patch < c)))) throw new KeyServerError(426, 'DeprecatedSDKVersion', 'Deprecated SDK version');
  }
}

/** `GET /v1/service?service_id=…`: the key server's proof of possession of its master key. */
async function serviceResponse(masterKey: Uint8Array, objectId: string, params: URLSearchParams): Promise<Response> {
  const asked = params.get('service_id');
  if (asked === null || !/^0x[0-9a-fA-F]{1,64}$/.test(asked) || `0x${asked.slice(2).toLowerCase().padStart(64, '0')}` !== objectId) {
    throw new KeyServerError(400, 'InvalidServiceId', 'Invalid service ID');
  }
  const { proofOfPossession } = await ibe();
  const pop = proofOfPossession(masterKey, bcs.Address.serialize(objectId).toBytes());
  return withHeaders(Response.json({ service_id: objectId, pop: toBase64(pop) }));
}

async function readJsonBody(request: Request): Promise<unknown> {
  if (!isJsonRequest(request)) throw new PlainRejection(415, 'Expected request with `Content-Type: application/json`');
  const body = await readCappedBody(request, MAX_REQUEST_BYTES);
  if (body === null) throw new PlainRejection(413, 'Failed to buffer the request body: length limit exceeded');
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch (error) {
    throw new PlainRejection(400, `Failed to parse the request body as JSON: ${(error as Error).message}`);
  }
}

/** Every answer carries the key server's version (the SDK refuses one without it) and permissive CORS, as upstream. */
function withHeaders(response: Response): Response {
  const headers = new Headers(response.headers);
  headers.set('X-KeyServer-Version', KEY_SERVER_VERSION);
  headers.set('X-KeyServer-GitVersion', 'devnet');
  headers.set('Access-Control-Allow-Origin', '*');
  headers.set('Access-Control-Allow-Headers', '*');
  headers.set('Access-Control-Expose-Headers', '*');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
