/**
 * The checks of Seal's `/v1/fetch_key` (MystenLabs/seal `crates/key-server/src/{server.rs,valid_ptb.rs,errors.rs}`,
 * key server 0.6.10), in the order the real server makes them:
 *
 * 1. the PTB (`ValidPtb`): at most 100 commands, at least one input and one command, every command a `MoveCall`
 *    of a `seal_approve*` function of the first command's package, every argument an input, the first one a pure
 *    `vector<u8>` (the inner key id);
 * 2. the package exists (its first version is the namespace: devnet packages are never upgraded);
 * 3. an MVR name, if the certificate names one (the devnet has no MVR registry, so none resolves);
 * 4. the certificate: `ttl_min` ≤ 30, `creation_time` not in the future, not expired;
 * 5. the user's signature over the session's personal message;
 * 6. the session key's Ed25519 signature over BCS `{ptb, enc_key, enc_verification_key}`;
 * 7. the policy: the PTB dry-run with the certificate's user as sender, no gas payment, the reference gas price;
 *    success approves, a missing function is an invalid PTB, any other failure denies.
 *
 * Pure except for `policy`, the chain's dry run, which the caller provides.
 */
import { bcs } from '@mysten/sui/bcs';
import { fromBase64, normalizeSuiAddress, toBase64 } from '@mysten/sui/utils';
import { ed25519 } from '@noble/curves/ed25519.js';
import { extract, encryptToKey, parseEncryptionKey, type G1Point } from './ibe.ts';
import { BodyRejection, forbidden, invalidPtb, noAccess } from './errors.ts';
import type { PolicyOutcome, Ptb } from './policy.ts';

/** Seal's limit on `seal_approve` calls per request (`MAX_COMMANDS`). */
export const MAX_COMMANDS = 100;
/** The key servers' default `session_key_ttl_max`. */
export const SESSION_KEY_TTL_MAX_MIN = 30;

/** A request body with the shapes serde would accept (anything else is a 422 before any check). */
export interface FetchKeyRequest {
  /** base64 BCS `ProgrammableTransaction` (checked by `validatePtb`). */
  ptb: string;
  encKey: G1Point;
  encKeyBytes: Uint8Array;
  encVerificationKey: Uint8Array;
  requestSignature: Uint8Array;
  certificate: {
    user: string;
    sessionVk: Uint8Array;
    creationTime: number;
    ttlMin: number;
    signature: string;
    mvrName?: string;
  };
}

function bytesField(value: unknown, name: string, length?: number): Uint8Array {
  let bytes: Uint8Array;
  try {
    if (typeof value !== 'string') throw new Error();
    bytes = fromBase64(value);
  } catch {
    throw new BodyRejection(`Failed to deserialize the JSON body into the target type: ${name}: invalid base64`);
  }
  if (length !== undefined && bytes.length !== length) {
    throw new BodyRejection(`Failed to deserialize the JSON body into the target type: ${name}: expected ${length} bytes, got ${bytes.length}`);
  }
  return bytes;
}

/** Decodes the JSON body of a `fetch_key` request, field by field as the server's serde types do. */
export function parseFetchKeyRequest(body: unknown): FetchKeyRequest {
  const b = body as Record<string, unknown> | null;
  const cert = b?.certificate as Record<string, unknown> | undefined;
  if (typeof b !== 'object' || b === null || typeof cert !== 'object' || cert === null) {
    throw new BodyRejection('Failed to deserialize the JSON body into the target type: missing field `certificate`');
  }
  if (typeof b.ptb !== 'string') throw new BodyRejection('Failed to deserialize the JSON body into the target type: missing field `ptb`');
  if (typeof cert.user !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(cert.user)) {
    throw new BodyRejection('Failed to deserialize the JSON body into the target type: certificate.user: invalid address');
  }
  if (!Number.isSafeInteger(cert.creation_time) || (cert.creation_time as number) < 0) {
    throw new BodyRejection('Failed to deserialize the JSON body into the target type: certificate.creation_time: expected u64');
  }
  if (!Number.isInteger(cert.ttl_min) || (cert.ttl_min as number) < 0 || (cert.ttl_min as number) > 0xffff) {
    throw new BodyRejection('Failed to deserialize the JSON body into the target type: certificate.ttl_min: expected u16');
  }
  if (typeof cert.signature !== 'string') throw new BodyRejection('Failed to deserialize the JSON body into the target type: missing field `signature`');
  if (cert.mvr_name !== undefined && cert.mvr_name !== null && typeof cert.mvr_name !== 'string') {
    throw new BodyRejection('Failed to deserialize the JSON body into the target type: certificate.mvr_name: expected a string');
  }
  const encKeyBytes = bytesField(b.enc_key, 'enc_key', 48);
  let encKey: G1Point;
  try {
    encKey = parseEncryptionKey(encKeyBytes);
  } catch {
    throw new BodyRejection('Failed to deserialize the JSON body into the target type: enc_key: not a G1 point');
  }
  return {
    ptb: b.ptb,
    encKey,
    encKeyBytes,
    encVerificationKey: bytesField(b.enc_verification_key, 'enc_verification_key', 96),
    requestSignature: bytesField(b.request_signature, 'request_signature', 64),
    certificate: {
      user: normalizeSuiAddress(cert.user),
      sessionVk: bytesField(cert.session_vk, 'certificate.session_vk', 32),
      creationTime: cert.creation_time as number,
      ttlMin: cert.ttl_min as number,
      signature: cert.signature,
      ...(typeof cert.mvr_name === 'string' ? { mvrName: cert.mvr_name } : {}),
    },
  };
}

export interface ValidPtb {
  ptb: Ptb;
  /** The PTB's bytes as the client sent (and signed) them. */
  bytes: Uint8Array;
  /** The package every command calls, `0x` + 64 hex. */
  packageId: string;
  /** The key ids without the package prefix, one per command. */
  innerIds: Uint8Array[];
}

/** `ValidPtb::try_from_base64`: the PTB rules, with the real server's messages. */
export function validatePtb(base64: string): ValidPtb {
  let bytes: Uint8Array;
  try {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64) || base64.length % 4 !== 0) throw new Error('not base64');
    bytes = fromBase64(base64);
  } catch {
    throw invalidPtb('Invalid Base64');
  }
  let ptb: Ptb;
  try {
    ptb = bcs.ProgrammableTransaction.parse(bytes);
    if (bcs.ProgrammableTransaction.serialize(ptb).toBytes().length !== bytes.length) throw new Error('trailing bytes');
  } catch {
    throw invalidPtb('Invalid BCS');
  }
  if (ptb.commands.length > MAX_COMMANDS) throw invalidPtb(`Too many commands in PTB (more than ${MAX_COMMANDS})`);
  if (ptb.inputs.length === 0 || ptb.commands.length === 0) throw invalidPtb('Empty PTB input or command');
  const first = ptb.commands[0]!.MoveCall;
  if (!first) throw invalidPtb('Invalid first command');
  const packageId = normalizeSuiAddress(first.package);
  const innerIds = ptb.commands.map((command) => {
    const call = command.MoveCall;
    if (!call) throw invalidPtb('Non MoveCall command');
    if (!call.arguments.every((arg) => arg.$kind === 'Input')) throw invalidPtb('Only pure inputs are allowed');
    const id = keyId(ptb, call.arguments);
    if (!call.function.startsWith('seal_approve') || normalizeSuiAddress(call.package) !== packageId) throw invalidPtb('Invalid function or package id');
    return id;
  });
  return { ptb, bytes, packageId, innerIds };
}

function keyId(ptb: Ptb, args: NonNullable<Ptb['commands'][number]['MoveCall']>['arguments']): Uint8Array {
  if (args.length === 0) throw invalidPtb('Empty args');
  const input = ptb.inputs[args[0]!.Input!];
  if (!input?.Pure) throw invalidPtb('Invalid first parameter for seal_approve');
  const bytes = fromBase64(input.Pure.bytes);
  try {
    const id = bcs.byteVector().parse(bytes);
    if (bcs.byteVector().serialize(id).toBytes().length !== bytes.length) throw new Error('trailing bytes');
    return id;
  } catch {
    throw invalidPtb('Invalid BCS for first parameter for seal_approve');
  }
}

/** The message a user signs to create a session key (seal-sdk `signed_message`). */
export function personalMessage(packageName: string, sessionVk: Uint8Array, creationTimeMs: number, ttlMin: number): string {
  const time = new Date(creationTimeMs).toISOString().slice(0, 19).replace('T', ' ');
  return `Accessing keys of package ${packageName} for ${ttlMin} mins from ${time} UTC, session key ${toBase64(sessionVk)}`;
}

const RequestFormat = bcs.struct('RequestFormat', { ptb: bcs.byteVector(), enc_key: bcs.byteVector(), enc_verification_key: bcs.byteVector() });

/** What the session key signs for one request (`signed_request`). */
export function signedRequest(ptb: Uint8Array, request: FetchKeyRequest): Uint8Array {
  return RequestFormat.serialize({ ptb, enc_key: request.encKeyBytes, enc_verification_key: request.encVerificationKey }).toBytes();
}

export interface KeyRequestContext {
  /** Now, in ms since the epoch. */
  now: number;
  /** Whether a package object exists at this id (the first version of every devnet package is itself). */
  packageExists(packageId: string): Promise<boolean>;
  /** The personal-message signature check (`verifyPersonalMessageSignature` for `address`). */
  verifyUserSignature(message: Uint8Array, signature: string, address: string): Promise<boolean>;
  /** Dry-runs the PTB with `sender`; throws KeyServerError for a request the chain refuses to run. */
  policy(ptb: Ptb, sender: string): Promise<PolicyOutcome>;
}

/** Runs every check in order and returns the full ids (package ‖ inner id) the request may have. */
export async function checkFetchKey(request: FetchKeyRequest, context: KeyRequestContext): Promise<{ fullIds: Uint8Array[] }> {
  const valid = validatePtb(request.ptb);
  if (!(await context.packageExists(valid.packageId))) throw forbidden('InvalidPackage', 'Invalid package ID');
  const cert = request.certificate;
  if (cert.mvrName !== undefined) throw forbidden('InvalidMVRName', 'Invalid MVR name');
  const age = context.now - cert.creationTime;
  if (cert.ttlMin > SESSION_KEY_TTL_MAX_MIN || age < 0 || age > cert.ttlMin * 60_000) {
    throw forbidden('InvalidCertificate', 'Invalid certificate time or ttl');
  }
  const message = new TextEncoder().encode(personalMessage(valid.packageId, cert.sessionVk, cert.creationTime, cert.ttlMin));
  if (!(await context.verifyUserSignature(message, cert.signature, cert.user))) throw forbidden('InvalidSignature', 'Invalid user signature');
  let sessionSignatureValid = false;
  try {
    sessionSignatureValid = ed25519.verify(request.requestSignature, signedRequest(valid.bytes, request), cert.sessionVk);
  } catch {
    sessionSignatureValid = false;
  }
  if (!sessionSignatureValid) throw forbidden('InvalidSessionSignature', 'Invalid session key signature');
  const outcome = await context.policy(valid.ptb, cert.user);
  if (!outcome.approved) {
    if (outcome.kind === 'FunctionNotFound') throw invalidPtb('The seal_approve function was not found on the module');
    throw noAccess(outcome.description);
  }
  const prefix = bcs.Address.serialize(valid.packageId).toBytes();
  return { fullIds: valid.innerIds.map((id) => Uint8Array.from([...prefix, ...id])) };
}

/** The `fetch_key` answer: each full id's key, ElGamal-encrypted to the request's key. */
export function fetchKeyResponse(masterKey: Uint8Array, fullIds: Uint8Array[], encKey: G1Point) {
  return {
    decryption_keys: fullIds.map((id) => {
      const [c0, c1] = encryptToKey(encKey, extract(masterKey, id));
      return { id: Array.from(id), encrypted_key: [toBase64(c0), toBase64(c1)] };
    }),
  };
}
