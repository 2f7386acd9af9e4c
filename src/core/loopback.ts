/**
 * Whether a listen address keeps a server on this machine: all of 127.0.0.0/8 (any alias, not only 127.0.0.1),
 * ::1 in any spelling, IPv4-mapped loopback, and `localhost`. Everything else (0.0.0.0 and :: included) is reachable
 * from elsewhere.
 */

/** A dotted-quad IPv4 address (the core does no I/O, so it reads addresses itself rather than with node:net). */
function isIpv4(name: string): boolean {
  const parts = name.split('.');
  return parts.length === 4 && parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255);
}

export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost') return true;
  if (isIpv4(name)) return name.startsWith('127.');
  if (!name.includes(':') || !/^[0-9a-f:.]+$/.test(name)) return false;
  const mapped = /^(?:0{0,4}:){0,5}:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name)?.[1];
  if (mapped !== undefined) return mapped.startsWith('127.');
  return expandIpv6(name) === '0000:0000:0000:0000:0000:0000:0000:0001';
}

/** The eight groups of an IPv6 address (without an embedded IPv4 part), each four digits. */
function expandIpv6(address: string): string {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => g.padStart(4, '0')).join(':');
}
