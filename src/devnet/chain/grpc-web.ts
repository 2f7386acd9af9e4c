import { GrpcTypes } from '@mysten/sui/grpc';
import { fromBase64, toBase64 } from '@mysten/sui/utils';
import { concatBytes } from '../../core/bytes.ts';
import { readCappedBody } from '../capped-body.ts';
import type { ChainEngine } from './engine.ts';
import { Code, GrpcStatusError } from './grpc-messages.ts';
import { grpcMethods, statusOf, type GrpcMethod } from './grpc-services.ts';

/**
 * The network front's Sui gRPC API, spoken as gRPC-web over HTTP/1.1 (what `SuiGrpcClient`'s fetch transport sends):
 * `POST /<package>.<Service>/<Method>` with `application/grpc-web[+proto]` (binary) or `application/grpc-web-text`
 * (base64) bodies. Each message travels in a 5-byte-prefixed frame (flag byte, big-endian length); a response ends
 * with a trailers frame (flag 0x80) carrying `grpc-status` and `grpc-message`. A call that fails before any message
 * is answered "trailers-only": the status in the HTTP headers and no body. Messages are encoded and decoded by the
 * protobuf types the SDK ships, so both ends agree on the wire format by construction.
 */

const DATA_FRAME = 0x00;
const TRAILER_FRAME = 0x80;
/** Requests larger than this are refused, as tonic refuses messages above its default decoding limit. */
const MAX_REQUEST_BYTES = 4 * 1024 * 1024;

/** The services a fullnode exposes: their method descriptors name the request and response types. */
const SERVICES = [
  GrpcTypes.LedgerService, GrpcTypes.StateService, GrpcTypes.TransactionExecutionService, GrpcTypes.MovePackageService,
  GrpcTypes.SignatureVerificationService, GrpcTypes.NameService, GrpcTypes.SubscriptionService,
];

export function isGrpcWebRequest(request: Request): boolean {
  return request.method === 'POST' && (request.headers.get('content-type') ?? '').startsWith('application/grpc-web');
}

export function grpcWebHandler(engine: ChainEngine): (request: Request) => Promise<Response> {
  return grpcWebServer(grpcMethods(engine), () => engine.refresh());
}

/**
 * gRPC-web over `methods` (by gRPC path), each call after `beforeCall`: the chain's API, or any stand-in that must
 * speak exactly what a fullnode speaks (the tests' lying RPC).
 */
export function grpcWebServer(methods: Record<string, GrpcMethod>, beforeCall: () => Promise<void> = async () => {}): (request: Request) => Promise<Response> {
  return async (request) => {
    const text = (request.headers.get('content-type') ?? '').startsWith('application/grpc-web-text');
    const contentType = text ? 'application/grpc-web-text' : 'application/grpc-web+proto';
    try {
      const path = new URL(request.url).pathname.slice(1);
      const [serviceName, methodName] = path.split('/');
      const descriptor = SERVICES.find((service) => service.typeName === serviceName)?.methods.find((method) => method.name === methodName);
      const implementation = methods[path];
      if (!descriptor || !implementation) throw new GrpcStatusError(Code.UNIMPLEMENTED, `Method not found: ${path}`);
      // The text form is base64: four characters carry three bytes (plus the frame header and padding).
      const bodyLimit = text ? Math.ceil((MAX_REQUEST_BYTES + 5) / 3) * 4 : MAX_REQUEST_BYTES + 5;
      const body = await readCappedBody(request, bodyLimit);
      if (body === null) throw new GrpcStatusError(Code.INTERNAL, `request of more than ${MAX_REQUEST_BYTES} bytes exceeds the limit of ${MAX_REQUEST_BYTES}`);
      let input: object;
      try {
        input = descriptor.I.fromBinary(requestMessage(text ? fromBase64(new TextDecoder().decode(body)) : body));
      } catch (error) {
        throw error instanceof GrpcStatusError ? error : new GrpcStatusError(Code.INTERNAL, `failed to decode ${descriptor.I.typeName}: ${(error as Error).message}`);
      }
      await beforeCall();
      const output = await implementation(input);
      const messages = descriptor.serverStreaming ? (output as object[]) : [output];
      const frames = [...messages.map((message) => frame(DATA_FRAME, descriptor.O.toBinary(descriptor.O.create(message)))), frame(TRAILER_FRAME, trailers(Code.OK, ''))];
      const bytes = concatBytes(frames);
      return new Response(text ? toBase64(bytes) : bytes, { status: 200, headers: { 'content-type': contentType } });
    } catch (error) {
      const status = statusOf(error);
      return new Response(null, { status: 200, headers: { 'content-type': contentType, 'grpc-status': String(status.code), 'grpc-message': percentEncode(status.message) } });
    }
  };
}

/** The one message of a unary or server-streaming request: exactly one uncompressed data frame. */
export function requestMessage(body: Uint8Array): Uint8Array {
  if (body.length < 5) throw new GrpcStatusError(Code.INTERNAL, 'malformed gRPC-web request: no complete frame header');
  if (body[0] !== DATA_FRAME) {
    throw new GrpcStatusError(body[0] === 1 ? Code.UNIMPLEMENTED : Code.INTERNAL, body[0] === 1 ? 'compressed messages are not supported' : `malformed gRPC-web request: frame flag ${body[0]}`);
  }
  const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(1);
  if (body.length !== 5 + length) throw new GrpcStatusError(Code.INTERNAL, `malformed gRPC-web request: frame of ${length} bytes in a body of ${body.length - 5}`);
  return body.subarray(5);
}

function frame(flag: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + payload.length);
  out[0] = flag;
  new DataView(out.buffer).setUint32(1, payload.length);
  out.set(payload, 5);
  return out;
}

function trailers(code: number, message: string): Uint8Array {
  return new TextEncoder().encode(`grpc-status:${code}\r\n${message ? `grpc-message:${percentEncode(message)}\r\n` : ''}`);
}

/** gRPC's status-message encoding: printable ASCII except '%' as is, every other byte of the UTF-8 as %XX. */
function percentEncode(message: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(message)) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
