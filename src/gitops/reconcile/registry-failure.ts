/**
 * npm's own report that it could not reach the package registry (or a host a lockfile fetches tarballs from), read
 * from the last lines a build or test step wrote. npm prints a failed command's error as a block of `npm error …`
 * lines (npm 9 and older: `npm ERR! …`) that ends its output, with the error's code and, for a request, its URL:
 *
 *   npm error code EAI_AGAIN
 *   npm error syscall getaddrinfo
 *   npm error errno EAI_AGAIN
 *   npm error request to https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org
 *   npm error A complete log of this run can be found in: /build-home/.npm/_logs/2026-11-25T16_37_50_793Z-debug-0.log
 *
 * or `npm error code E503` / `npm error 503 Service Unavailable - GET https://…` for a registry's HTTP error.
 * Only such a block counts, and only when it ends the output: an app whose own test cannot reach its database also
 * prints ECONNREFUSED, but not as npm's error code (`npm test` and `npm run` print no block for a script that fails,
 * only its exit code), and a dependency's install script that fails is npm's `code 1`. Those stay the app's.
 */
export interface RegistryFailure {
  /** npm's error code: EAI_AGAIN, ECONNREFUSED, E503, FETCH_ERROR, … */
  code: string;
  /** host[:port] of the request that failed (never its credentials or path), when npm named it. */
  host?: string;
  /** What the code means, in words. */
  what: string;
}

/** npm's codes for a host it could not reach or that did not answer (Node's system errors, as npm passes them on). */
const UNREACHABLE: Record<string, string> = {
  EAI_AGAIN: 'its name did not resolve (a temporary DNS failure)',
  EAI_FAIL: 'its name did not resolve (the DNS server failed)',
  ENOTFOUND: 'its name did not resolve (no such host, or no DNS answer)',
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  ERR_SOCKET_TIMEOUT: 'the connection timed out',
  EHOSTUNREACH: 'there is no route to the host',
  ENETUNREACH: 'the network is unreachable',
};

/** A line of npm's log on the terminal, at any level (npm 10+ and older spellings). */
const NPM_LOG = /^npm (?:error|ERR!|warn|WARN|notice|http|timing|info|verbose|verb|silly|sill)(?: |$)/;
const NPM_ERROR = /^npm (?:error|ERR!)(?: |$)/;

export function registryFailure(output: string | undefined): RegistryFailure | undefined {
  const block = lastNpmLines(output ?? '').filter((line) => NPM_ERROR.test(line));
  if (block.length === 0) return undefined;
  // npm's own code line only: a script that failed is `code 1`, whatever the error it printed says (`code: 'EAI_AGAIN'`).
  const code = block.map((line) => /^npm (?:error|ERR!) code (\S+)$/.exec(line)?.[1]).find(Boolean);
  if (!code) return undefined;
  const what = UNREACHABLE[code] ?? httpError(code, block) ?? fetchTimeout(code, block);
  if (!what) return undefined;
  const host = hostOf(block);
  return { code, ...(host ? { host } : {}), what };
}

/**
 * npm's log lines that end the output (blank lines after them aside), or none when something else ends it. With a
 * verbose loglevel (an offer's `npm_config_loglevel`), `npm verbose …` lines come between and after the error lines.
 */
function lastNpmLines(output: string): string[] {
  const lines = output.split('\n').map((line) => line.trimEnd());
  while (lines.length > 0 && lines.at(-1) === '') lines.pop();
  let start = lines.length;
  while (start > 0 && NPM_LOG.test(lines[start - 1]!)) start -= 1;
  return lines.slice(start);
}

/** A registry's 5xx or 429 (npm's code is `E` and the status: E500, E502, E503, E429), with its status line's words. */
function httpError(code: string, block: readonly string[]): string | undefined {
  const status = /^E(5\d\d|429)$/.exec(code)?.[1];
  if (!status) return undefined;
  const words = block.map((line) => new RegExp(`^npm (?:error|ERR!) ${status} (.+?) - [A-Z]+ `).exec(line)?.[1]).find(Boolean);
  return `the registry answered HTTP ${status}${words ? ` ${words}` : ''}`;
}

/** npm's fetch-timeout passed with no answer: `FETCH_ERROR` with `network timeout at: <url>` (its code for other fetch errors too). */
function fetchTimeout(code: string, block: readonly string[]): string | undefined {
  if (code !== 'FETCH_ERROR' || !block.some((line) => / network timeout at: https?:\/\//.test(line))) return undefined;
  return 'it did not answer in time (npm\'s fetch-timeout)';
}

/** host[:port] of the first URL npm names (URL.host carries neither credentials nor path), else the name a lookup failed for. */
function hostOf(block: readonly string[]): string | undefined {
  for (const line of block) {
    const url = /https?:\/\/[^\s'"]+/.exec(line)?.[0];
    if (!url) continue;
    try {
      return new URL(url).host || undefined;
    } catch {
      continue;
    }
  }
  return block.map((line) => / getaddrinfo [A-Z_]+ ([A-Za-z0-9.-]+)/.exec(line)?.[1]).find(Boolean);
}
