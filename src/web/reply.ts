import type { Readable } from 'node:stream';
import type { Html } from './html.ts';

/** What a route answers. */
export interface Reply {
  status?: number;
  type?: string;
  /** A stream is piped (a raw file of any size), and closed unread for HEAD. */
  body: string | Uint8Array | Readable;
  headers?: Record<string, string>;
}

export interface RouteRequest {
  method: string;
  /** The path's captured parts, decoded. */
  params: string[];
  query: URLSearchParams;
}

export function htmlReply(body: Html, status = 200): Reply {
  return { status, type: 'text/html; charset=utf-8', body: body.text };
}

export function jsonReply(value: unknown, status = 200): Reply {
  return { status, type: 'application/json; charset=utf-8', body: JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? v.toString() : v)) };
}

export function redirect(location: string): Reply {
  return { status: 303, type: 'text/plain; charset=utf-8', body: '', headers: { location } };
}

/** A page that is not there (a bad ref, path, id): 404 with a message in the user's terms. */
export class NotFound extends Error {}
