import { isIP } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import { UsageError } from '../core/errors.ts';

/**
 * The address `git walrus devnet --host` may bind: loopback, or an address one of this machine's interfaces carries
 * (a test network's bridge, so pods reach the devnet). Wildcards and foreign addresses are refused: the devnet has no
 * authentication, and its faucet must never face a network it was not started for.
 */
export function checkBindAddress(host: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string {
  const version = isIP(host);
  if (version === 0) throw new UsageError(`--host '${host}' is not an IP address (give the IPv4 or IPv6 address to bind, e.g. 127.0.0.1)`, { host });
  const normalized = version === 6 ? canonicalIpv6(host) : host;
  if (isLoopback(normalized)) return host;
  const local = Object.values(interfaces).flatMap((list) => list ?? []).map((info) => (info.family === 'IPv6' ? canonicalIpv6(info.address) : info.address));
  if (local.includes(normalized)) return host;
  throw new UsageError(
    `--host ${host} is neither a loopback address nor an address of a local interface (local: ${[...new Set(local)].join(', ') || 'none'}); the devnet binds only those`,
    { host },
  );
}

function isLoopback(address: string): boolean {
  return address === canonicalIpv6('::1') || /^127\.\d+\.\d+\.\d+$/.test(address);
}

/** One spelling per IPv6 address (zone ids dropped), so `::1` and `0:0::1` compare equal. */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
}
