/**
 * The tenant's side of a provider's gateway (docs/architecture.md, The provider's gateway): signed requests to the
 * endpoint the provider registered on chain, and what an unreachable or misbehaving gateway means in the tenant's terms.
 */
import { randomBytes } from 'node:crypto';
import { WalrusGitError } from '../core/errors.ts';
import { canonicalRequest, formatAuthorization } from '../core/signed-request.ts';

export type Signer = (message: Uint8Array) => Promise<{ address: string; signature: string }>;

/** The gateway did not answer, or answered something that is not its API. */
export class GatewayError extends WalrusGitError {
  constructor(message: string, data: Record<string, unknown> = {}, retryable = true) {
    super('GATEWAY', message, data, { retryable });
  }
}

/** The gateway answered with a refusal (401, 403, 404, 429…): its reason is the message. */
export class GatewayRefusal extends WalrusGitError {
  constructor(status: number, why: string, endpoint: string) {
    super('GATEWAY_REFUSED', `the provider's gateway at ${endpoint} refused (${status}): ${why}`, { status, endpoint });
  }
}

export interface GatewayTarget {
  /** The provider's registered endpoint (`https://gw.example.com`). */
  endpoint: string;
  provider: string;
  lease: string;
}

/** A signed GET of `path` (with its query) for the lease; the response once its status is OK. */
export async function gatewayGet(target: GatewayTarget, path: string, sign: Signer, signal?: AbortSignal): Promise<Response> {
  const base = endpointUrl(target);
  const url = new URL(path, base);
  const sent = `${url.pathname}${url.search}`;
  const timeMs = Date.now();
  const nonce = randomBytes(16).toString('hex');
  const { address, signature } = await sign(new TextEncoder().encode(canonicalRequest({ method: 'GET', path: sent, lease: target.lease, timeMs, nonce })));
  let response: Response;
  try {
    response = await fetch(url, { headers: { authorization: formatAuthorization({ address, timeMs, nonce, signature }) }, ...(signal ? { signal } : {}) });
  } catch (error) {
    const cause = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw new GatewayError(`the gateway of provider ${target.provider} at ${target.endpoint} did not answer (${cause}): check that the endpoint the provider registered is where its gateway runs (\`git walrus providers\`), or ask the provider`, { endpoint: target.endpoint });
  }
  if (response.ok) return response;
  const text = await response.text().catch(() => '');
  let why: string | undefined;
  try {
    why = (JSON.parse(text) as { why?: string }).why;
  } catch {
    why = undefined;
  }
  if (why === undefined) {
    throw new GatewayError(`the endpoint of provider ${target.provider} (${target.endpoint}) answered ${response.status} without the gateway's API (${text.slice(0, 120).replace(/\s+/g, ' ') || 'no body'}): is the gateway running behind it? (\`git walrus gateway\`, deploy/provider/gateway.yaml)`, { endpoint: target.endpoint, status: response.status });
  }
  throw new GatewayRefusal(response.status, why, target.endpoint);
}

/** The JSON a signed GET answers. */
export async function gatewayJson<T>(target: GatewayTarget, path: string, sign: Signer, signal?: AbortSignal): Promise<T> {
  const response = await gatewayGet(target, path, sign, signal);
  try {
    return await response.json() as T;
  } catch {
    throw new GatewayError(`the gateway of provider ${target.provider} at ${target.endpoint} answered ${path} with something that is not JSON: it may be another service or an older gateway`, { endpoint: target.endpoint });
  }
}

/** Each line of an NDJSON answer, parsed, as it arrives. */
export async function* ndjson<T>(response: Response): AsyncIterable<T> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    pending += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line) yield JSON.parse(line) as T;
    }
  }
  if (pending.trim()) yield JSON.parse(pending) as T;
}

function endpointUrl(target: GatewayTarget): URL {
  try {
    const url = new URL(target.endpoint);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url;
  } catch {
    // fall through
  }
  throw new GatewayError(`provider ${target.provider} registered the endpoint '${target.endpoint}', which is not an http(s) URL: the provider must register its gateway's URL (\`git walrus provider register --endpoint\`)`, { endpoint: target.endpoint }, false);
}
