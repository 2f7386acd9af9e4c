import { isIP } from 'node:net';
import type { NetworkInterfaceInfo } from 'node:os';
import { UsageError } from '../core/errors.ts';

/**
 * The address `git walrus devnet --host` may bind: loopback, or an address one of this machine's interfaces carries
 * (a test network's bridge, so pods reach the devnet). Wildcards and foreign addresses are refused: the devnet has no
 * authentication, and its faucet must never face a network it was not started for.
 */
export function checkBindAddress(host: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>, option = '--host'): string {
  const version = isIP(host);
  if (version === 0) throw new UsageError(`${option} '${host}' is not an IP address (give the IPv4 or IPv6 address to bind, e.g. 127.0.0.1)`, { host });
  const normalized = version === 6 ? canonicalIpv6(host) : host;
  if (isLoopback(normalized)) return host;
  const local = Object.values(interfaces).flatMap((list) => list ?? []).map((info) => (info.family === 'IPv6' ? canonicalIpv6(info.address) : info.address));
  if (local.includes(normalized)) return host;
  throw new UsageError(
    `${option} ${host} is neither a loopback address nor an address of a local interface (local: ${[...new Set(local)].join(', ') || 'none'}); the devnet binds only those`,
    { host },
  );
}

/**
 * A `host:port` a storage node registers on chain as its public address (`--storage-node-address`): where clients
 * reach it, e.g. a proxy or load balancer in front of the port it listens on. The host is held to the same rule as
 * `--host` (loopback or a local interface's address: the devnet never sends clients elsewhere); IPv6 in brackets.
 */
export function checkAdvertisedAddress(address: string, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(address);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535 || (match[1] !== undefined && isIP(match[1]) !== 6)) {
    throw new UsageError(`--storage-node-address '${address}' is not host:port (e.g. 127.0.0.1:9101, or [::1]:9101)`, { address });
  }
  checkBindAddress(match[1] ?? match[2], interfaces, '--storage-node-address');
  return address;
}

function isLoopback(address: string): boolean {
  return address === canonicalIpv6('::1') || /^127\.\d+\.\d+\.\d+$/.test(address);
}

/** One spelling per IPv6 address (zone ids dropped), so `::1` and `0:0::1` compare equal. */
function canonicalIpv6(address: string): string {
  return new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
}
