/**
 * The devnet server answers only its own machine's clients. A web page in the developer's browser can send requests
 * to 127.0.0.1 (a form post or a `text/plain` fetch needs no CORS preflight) and could mint faucet coins or send
 * transactions; a DNS-rebinding page can even read the answers. So a request must name this server in `Host`
 * (127.0.0.1, localhost, [::1], or the address it was started on; at any port, since a relay or port forward may
 * stand in front), and one that carries an `Origin` (every browser request but a same-origin GET) must come from
 * such a host too. Command-line clients and the SDKs in Node send no `Origin`.
 */
export interface OriginRefusal {
  status: 403;
  message: string;
}

/** Why a request with these `Host` and `Origin` headers is refused, or null when it is this machine's own. */
export function foreignRequest(headers: { host?: string; origin?: string }, serverHost: string): OriginRefusal | null {
  const local = new Set(['127.0.0.1', 'localhost', '[::1]', serverHost.includes(':') ? `[${serverHost}]` : serverHost].map((name) => name.toLowerCase()));
  if (!local.has(hostnameOf(`http://${headers.host ?? ''}`) ?? '')) {
    return { status: 403, message: `this devnet answers requests for ${[...local].join(', ')} only, not Host ${JSON.stringify(headers.host ?? '')}` };
  }
  if (headers.origin !== undefined && !local.has(hostnameOf(headers.origin) ?? '')) {
    return { status: 403, message: `this devnet does not answer web pages of other origins (Origin ${JSON.stringify(headers.origin)})` };
  }
  return null;
}

/** The host name (lower case, an IPv6 address in brackets) of an http(s) URL, or null. */
function hostnameOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}
