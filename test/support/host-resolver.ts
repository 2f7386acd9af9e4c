/**
 * Preloaded into a CLI process (host-resolver-env.ts): names in $WALRUS_TEST_HOSTS (JSON, name → IPv4 address) resolve
 * to those addresses, every other name as usual. It stands in for the DNS record a provider makes for its endpoint's
 * host, which a test machine has no resolver for: the request still goes to that host name (its Host header is it).
 */
import dns from 'node:dns';

const hosts = JSON.parse(process.env.WALRUS_TEST_HOSTS ?? '{}') as Record<string, string>;
const system = dns.lookup;
type Callback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

dns.lookup = ((hostname: string, options: dns.LookupOptions | number | Callback, callback?: Callback) => {
  const done = (typeof options === 'function' ? options : callback)!;
  const wanted = typeof options === 'object' ? options : {};
  const address = hosts[hostname.toLowerCase()];
  if (address === undefined) return (system as (...args: unknown[]) => void)(hostname, options, callback);
  process.nextTick(() => (wanted.all ? done(null, [{ address, family: 4 }]) : done(null, address, 4)));
}) as typeof dns.lookup;
