/**
 * A request to a provider's gateway, signed with the caller's Sui key (docs/architecture.md, The provider's gateway).
 * The signed text names everything that makes the request what it is (method, path with its query, lease, time and a
 * fresh nonce), so a signature cannot be moved to another lease, another path or a later time, and a gateway that
 * remembers nonces for as long as a time is accepted refuses it twice. Pure: the client signs the text as a Sui
 * personal message, the gateway checks it; both build it here.
 */

/** The first line of every signed text: another scheme or version never verifies as this one. */
export const SIGNED_REQUEST_DOMAIN = 'walrus-gateway-request-v1';
/** The `Authorization` scheme. */
export const SIGNED_REQUEST_SCHEME = 'WalrusSig';

export interface SignedRequestFields {
  method: string;
  /** Path and query exactly as sent (`/v1/leases/0x…/logs?tail=50`). */
  path: string;
  lease: string;
  /** The client's clock when it signed (Unix ms). */
  timeMs: number;
  /** Fresh per request: 16 to 64 lowercase hex digits. */
  nonce: string;
}

export interface Authorization {
  /** The Sui address the signature must belong to. */
  address: string;
  timeMs: number;
  nonce: string;
  /** The Sui serialized signature (base64) over the canonical text as a personal message. */
  signature: string;
}

/** The text the client signs and the gateway checks, one field per line. */
export function canonicalRequest(fields: SignedRequestFields): string {
  return [SIGNED_REQUEST_DOMAIN, fields.method.toUpperCase(), fields.path, fields.lease.toLowerCase(), String(fields.timeMs), fields.nonce].join('\n');
}

export function formatAuthorization(auth: Authorization): string {
  return `${SIGNED_REQUEST_SCHEME} address=${auth.address},time=${auth.timeMs},nonce=${auth.nonce},signature=${auth.signature}`;
}

const ADDRESS = /^0x[0-9a-f]{64}$/;
const NONCE = /^[0-9a-f]{16,64}$/;
const SIGNATURE = /^[A-Za-z0-9+/]{40,400}={0,2}$/;

/** The header's fields, or why it is not one this gateway reads (the reason is shown to the caller). */
export function parseAuthorization(header: string | undefined): { ok: true; auth: Authorization } | { ok: false; why: string } {
  if (!header) return { ok: false, why: `no Authorization header: sign the request (${SIGNED_REQUEST_SCHEME}, as \`git walrus lease status\` does)` };
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space) !== SIGNED_REQUEST_SCHEME) return { ok: false, why: `the Authorization scheme must be ${SIGNED_REQUEST_SCHEME}` };
  const fields = new Map<string, string>();
  for (const part of header.slice(space + 1).split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return { ok: false, why: `malformed Authorization field '${part.trim().slice(0, 40)}'` };
    const name = part.slice(0, eq).trim();
    if (fields.has(name)) return { ok: false, why: `Authorization field ${name} given twice` };
    fields.set(name, part.slice(eq + 1).trim());
  }
  const address = fields.get('address')?.toLowerCase() ?? '';
  const time = fields.get('time') ?? '';
  const nonce = fields.get('nonce') ?? '';
  const signature = fields.get('signature') ?? '';
  if (!ADDRESS.test(address)) return { ok: false, why: 'Authorization address must be 0x and 64 hex digits' };
  if (!/^[0-9]{1,15}$/.test(time)) return { ok: false, why: 'Authorization time must be Unix milliseconds' };
  if (!NONCE.test(nonce)) return { ok: false, why: 'Authorization nonce must be 16 to 64 lowercase hex digits' };
  if (!SIGNATURE.test(signature)) return { ok: false, why: 'Authorization signature must be a base64 Sui signature' };
  return { ok: true, auth: { address, timeMs: Number(time), nonce, signature } };
}
