/**
 * The provider's gateway (docs/architecture.md, The provider's gateway): the HTTP API behind the endpoint a provider
 * registers on chain, answering a lease's tenant (and the provider) with its app's status, releases with their build
 * output, events and logs. It reads the cluster through the AppWindow port and the chain through the MarketLedger
 * port, and writes neither. Every path but /v1/health is a signed request (src/core/signed-request.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { canonicalRequest, parseAuthorization } from '../../core/signed-request.ts';
import { leaseEndLine } from '../../core/lease-end.ts';
import { messageOf } from '../../core/errors.ts';
import { normalizeSuiId } from '../../core/walrus-url.ts';
import type { V1Pod } from '@kubernetes/client-node';
import type { AppWindow } from '../../ports/app-window.ts';
import type { LogRecord } from '../../ports/gateway-api.ts';
import type { LeaseInfo, MarketLedger } from '../../ports/market.ts';
import type { ObjectRef } from '../../ports/cluster.ts';
import { leaseAppName, tenantNamespace } from '../provider/plan.ts';
import { releaseOutputSelector } from '../templates/release-output.ts';
import { ANNOTATIONS, appResourceName, selectorLabels } from '../templates/names.ts';
import type { Component } from '../templates/names.ts';
import { mayRead } from './access.ts';
import { ReplayWindow } from './replay-window.ts';
import { eventsView, releasesView, statusView } from './status-view.ts';
import { ByteRate, FollowerSlots } from './stream-bounds.ts';

export interface GatewayDeps {
  providerId: string;
  market: Pick<MarketLedger, 'getLease' | 'providerCapHolder'>;
  window: AppWindow;
  /** Whether `signature` is `address`'s Sui personal-message signature over `message`. */
  verify(message: Uint8Array, signature: string, address: string): Promise<boolean>;
  now(): number;
  log(line: string): void;
}

export interface GatewayLimits {
  followersPerLease: number;
  followers: number;
  bytesPerSecond: number;
  burstBytes: number;
  maxTail: number;
  events: number;
  /** How long a lease or provider read from the chain is used again. */
  chainCacheMs: number;
  /** How often a follow looks for the app's new pods. */
  podPollMs: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  followersPerLease: 4, followers: 200, bytesPerSecond: 64 * 1024, burstBytes: 256 * 1024, maxTail: 5000, events: 60, chainCacheMs: 5000, podPollMs: 1000,
};

const APP_CONTAINER = 'app';
const DEFAULT_TAIL = 100;
const LEASE_PATH = /^\/v1\/leases\/(0x[0-9a-fA-F]{1,64})\/(status|releases|events|logs)$/;

/** A request the gateway refuses, with its HTTP status and why, in the caller's terms. */
class Refusal extends Error {
  readonly status: number;
  readonly why: string;

  constructor(status: number, why: string) {
    super(why);
    this.status = status;
    this.why = why;
  }
}

export class Gateway {
  readonly #deps: GatewayDeps;
  readonly #limits: GatewayLimits;
  readonly #replay: ReplayWindow;
  readonly #slots: FollowerSlots;
  readonly #chain = new Map<string, { at: number; value: Promise<unknown> }>();
  readonly #streams = new Set<AbortController>();

  constructor(deps: GatewayDeps, limits: Partial<GatewayLimits> = {}) {
    this.#deps = deps;
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
    this.#replay = new ReplayWindow({ sinceMs: deps.now() });
    this.#slots = new FollowerSlots(this.#limits.followersPerLease, this.#limits.followers);
  }

  /** How many log followers are being served. */
  get followers(): number {
    return this.#slots.count;
  }

  handle = (request: IncomingMessage, response: ServerResponse): void => {
    this.#route(request, response).catch((error) => {
      const refusal = error instanceof Refusal ? error : new Refusal(502, `the gateway could not answer: ${messageOf(error)}`);
      if (!(error instanceof Refusal)) this.#deps.log(`gateway: ${request.method} ${request.url}: ${messageOf(error)}`);
      if (response.headersSent) response.end();
      else json(response, refusal.status, { error: statusWord(refusal.status), why: refusal.why });
    });
  };

  /** Ends every follow (the server is stopping). */
  stop(): void {
    for (const stream of this.#streams) stream.abort();
  }

  async #route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://gateway');
    if (request.method !== 'GET') throw new Refusal(405, 'the gateway answers GET only');
    if (url.pathname === '/v1/health') return json(response, 200, { ok: true, provider: this.#deps.providerId });
    const match = LEASE_PATH.exec(url.pathname);
    if (!match) throw new Refusal(404, `no such path: ${url.pathname} (see /v1/leases/<lease>/status|releases|events|logs)`);
    const lease = normalizeSuiId(match[1]!);
    const what = match[2]!;
    const signer = await this.#authenticate(request, lease);
    const info = await this.#cached(`lease ${lease}`, () => this.#deps.market.getLease(lease)) as LeaseInfo;
    const capHolder = await this.#cached(`cap holder ${this.#deps.providerId}`, () => this.#deps.market.providerCapHolder(this.#deps.providerId)) as string | null;
    const decision = mayRead(info, { id: this.#deps.providerId, capHolder }, signer);
    if (!decision.ok) throw new Refusal(decision.status, decision.why);
    const ref = { namespace: tenantNamespace(info.tenant), name: leaseAppName(info.id) };
    if (what === 'status') return json(response, 200, await this.#status(info, ref));
    if (what === 'releases') {
      const [app, configMaps] = await Promise.all([this.#deps.window.readApp(ref), this.#deps.window.listConfigMaps(ref.namespace, releaseOutputSelector({ metadata: ref }))]);
      return json(response, 200, { releases: releasesView(app, configMaps) });
    }
    if (what === 'events') {
      const events = await this.#deps.window.listEvents(ref.namespace);
      return json(response, 200, { events: eventsView(events, ref.name, this.#limits.events) });
    }
    return this.#logs(url.searchParams, lease, ref, response, request);
  }

  async #status(lease: LeaseInfo, ref: ObjectRef) {
    const window = this.#deps.window;
    const name = appResourceName({ metadata: ref });
    const [app, deployment, pods, buildPods] = await Promise.all([
      window.readApp(ref), window.readDeployment({ namespace: ref.namespace, name }),
      window.listPods(ref.namespace, componentSelector(ref, 'run')), window.listPods(ref.namespace, componentSelector(ref, 'build')),
    ]);
    return statusView(lease, ref, app, deployment, pods, buildPods);
  }

  /** The signer's address, once its signature, time and nonce are good; a Refusal (401) otherwise. */
  async #authenticate(request: IncomingMessage, lease: string): Promise<string> {
    const parsed = parseAuthorization(header(request, 'authorization'));
    if (!parsed.ok) throw new Refusal(401, parsed.why);
    const { auth } = parsed;
    const now = this.#deps.now();
    const time = this.#replay.checkTime(auth.timeMs, now);
    if (!time.ok) throw new Refusal(time.status!, time.why!);
    const text = canonicalRequest({ method: request.method ?? 'GET', path: request.url ?? '/', lease, timeMs: auth.timeMs, nonce: auth.nonce });
    if (!(await this.#deps.verify(new TextEncoder().encode(text), auth.signature, auth.address))) {
      throw new Refusal(401, `the signature is not ${auth.address}'s over this request (method, path, lease, time and nonce)`);
    }
    const fresh = this.#replay.admit(auth.address, auth.nonce, now);
    if (!fresh.ok) throw new Refusal(fresh.status!, fresh.why!);
    return auth.address;
  }

  #cached(key: string, read: () => Promise<unknown>): Promise<unknown> {
    const now = this.#deps.now();
    const hit = this.#chain.get(key);
    if (hit && now - hit.at < this.#limits.chainCacheMs) return hit.value;
    const value = read();
    this.#chain.set(key, { at: now, value });
    value.catch(() => this.#chain.delete(key));
    if (this.#chain.size > 10_000) this.#chain.delete(this.#chain.keys().next().value!);
    return value;
  }

  async #logs(query: URLSearchParams, lease: string, ref: ObjectRef, response: ServerResponse, request: IncomingMessage): Promise<void> {
    const tail = Math.min(numberParam(query, 'tail') ?? DEFAULT_TAIL, this.#limits.maxTail);
    const since = numberParam(query, 'since');
    const replica = numberParam(query, 'replica');
    const previous = query.get('previous') === '1';
    const follow = query.get('follow') === '1';
    const window = this.#deps.window;
    const pick = (pods: string[]) => {
      if (replica === undefined) return pods;
      if (replica >= pods.length) throw new Refusal(400, `replica ${replica} does not exist: the app has ${pods.length} (0 to ${pods.length - 1})`);
      return [pods[replica]!];
    };
    const pods = () => window.listPods(ref.namespace, componentSelector(ref, 'run'));
    const chosen = pick((await pods()).map((pod) => pod.metadata!.name!).sort());
    const options = { tailLines: tail, ...(since !== undefined ? { sinceSeconds: since } : {}), ...(previous ? { previous } : {}) };
    if (!follow) {
      const logs = await Promise.all(chosen.map(async (pod) => ({ pod, text: await window.readLog({ namespace: ref.namespace, name: pod }, APP_CONTAINER, options).catch((error) => `(no log: ${messageOf(error)})`) })));
      response.writeHead(200, { 'content-type': 'application/x-ndjson' });
      for (const { pod, text } of logs) {
        for (const line of text.split('\n').filter((candidate, i, all) => candidate !== '' || i < all.length - 1)) response.write(`${JSON.stringify({ pod, container: APP_CONTAINER, line })}\n`);
      }
      response.end();
      return;
    }
    const slot = this.#slots.acquire(lease);
    if (!slot.ok) throw new Refusal(429, slot.why);
    const abort = new AbortController();
    this.#streams.add(abort);
    const done = () => abort.abort();
    request.on('close', done);
    response.on('close', done);
    response.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    const rate = new ByteRate(this.#limits.bytesPerSecond, this.#limits.burstBytes, this.#deps.now());
    // One writer for every pod's lines: each waits its turn for the rate and for the client to take the bytes.
    let turn = Promise.resolve();
    const send = (record: LogRecord) => {
      const text = `${JSON.stringify(record)}\n`;
      turn = turn.then(async () => {
        if (abort.signal.aborted) return;
        const wait = rate.take(Buffer.byteLength(text), this.#deps.now());
        if (wait > 0) await sleep(wait, abort.signal);
        if (!response.write(text)) await new Promise<void>((resolve) => { response.once('drain', resolve); abort.signal.addEventListener('abort', () => resolve(), { once: true }); });
      });
      return turn;
    };
    const following = new Map<string, Promise<void>>();
    const followPod = (pod: string, from: typeof options | Record<string, never>) => {
      following.set(pod, (async () => {
        try {
          for await (const line of window.followLog({ namespace: ref.namespace, name: pod }, APP_CONTAINER, from, abort.signal)) await send({ pod, container: APP_CONTAINER, line });
        } catch (error) {
          if (!abort.signal.aborted) this.#deps.log(`gateway: follow ${ref.namespace}/${pod}: ${messageOf(error)}`);
        }
      })());
    };
    try {
      // A replica is followed once its app container has started (the API has no log before that); the ones there at
      // the start from the request's tail, a rolling update's new ones from their first line, each said in one line.
      // A pod that went keeps what it sent. The follow ends when the lease does, saying why.
      const initial = new Set(chosen);
      while (!abort.signal.aborted) {
        const started = await pods().then((list) => list.filter(appStarted), () => []);
        for (const pod of started) {
          const name = pod.metadata!.name!;
          if (following.has(name) || (replica !== undefined && !initial.has(name))) continue;
          if (initial.has(name)) followPod(name, options);
          else {
            const commit = pod.metadata?.annotations?.[ANNOTATIONS.commit];
            await send({ notice: `following ${name}, a new replica${commit ? ` (release ${commit.slice(0, 12)})` : ''}` });
            followPod(name, {});
          }
        }
        const info = await this.#cached(`lease ${lease}`, () => this.#deps.market.getLease(lease)).catch(() => null) as LeaseInfo | null;
        if (info?.end) {
          await send({ notice: `the lease ended: ${leaseEndLine(info.end)}; the follow ends` });
          break;
        }
        await sleep(this.#limits.podPollMs, abort.signal);
      }
    } finally {
      abort.abort();
      slot.release();
      this.#streams.delete(abort);
      await Promise.allSettled(following.values());
      response.end();
    }
  }
}

/** The gateway on `host:port` (0: a free port). */
export async function serveGateway(gateway: Gateway, host: string, port: number): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer(gateway.handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`,
    server,
    close: async () => {
      gateway.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function componentSelector(ref: ObjectRef, component: Component): string {
  return Object.entries(selectorLabels({ metadata: ref }, component)).map(([key, value]) => `${key}=${value}`).join(',');
}

/** Whether the pod's app container has run (running now, or stopped), so the API has its log. */
function appStarted(pod: V1Pod): boolean {
  const status = pod.status?.containerStatuses?.find((container) => container.name === APP_CONTAINER);
  return Boolean(status?.state?.running || status?.state?.terminated || status?.lastState?.terminated);
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function numberParam(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^[0-9]{1,9}$/.test(value)) throw new Refusal(400, `${name} must be a whole number, not '${value.slice(0, 20)}'`);
  return Number(value);
}

function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  response.end(text);
}

function statusWord(status: number): string {
  return ({ 400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 405: 'MethodNotAllowed', 429: 'TooManyFollowers', 503: 'Busy' } as Record<number, string>)[status] ?? 'GatewayError';
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
  });
}
