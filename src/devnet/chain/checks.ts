/** The checks a validator makes before executing a transaction: signatures, expiration, each input. */
import { createPublicKey, verify } from 'node:crypto';
import { fromBase64, normalizeSuiAddress } from '@mysten/sui/utils';
import { blake2b } from '@noble/hashes/blake2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { concatBytes } from '../../core/bytes.ts';
import { CLOCK_ID, objectDigest } from './objects.ts';
import { TransactionRejectedError } from './errors.ts';
import { WorkingSet } from './working-set.ts';
import { MAX_PURE_ARGUMENT_SIZE } from '../../core/sui-limits.ts';
import type { ExecutionRequest, Slot, Input } from './execution.ts';

export async function verifySignatures(txBytes: Uint8Array, signatures: string[], signers: string[]): Promise<void> {
  if (signatures.length !== signers.length) {
    throw new TransactionRejectedError('SignerSignatureNumberMismatch', `Expect ${signers.length} signer signatures but got ${signatures.length}`);
  }
  const remaining = new Set(signers);
  for (const signature of signatures) {
    let address: string;
    try {
      address = nativeEd25519Signer(txBytes, signature) ?? await sdkSigner(txBytes, signature);
    } catch (error) {
      throw new TransactionRejectedError('InvalidSignature', `Invalid user signature: ${(error as Error).message}`);
    }
    if (!remaining.delete(address)) {
      throw new TransactionRejectedError('SignerSignatureAbsent', `Signature is not valid: Required Signature from ${[...remaining].join(', ')} is absent (got a signature from ${address})`, { signer: address });
    }
  }
}

/**
 * The signer of a valid Ed25519 transaction signature, checked by OpenSSL: a few ms in a young process, where the
 * SDK's JavaScript curve and the cryptography module it loads take ~30 ms more. Undefined for any other scheme, and
 * for a signature OpenSSL does not accept, which the SDK then judges: OpenSSL verifies by RFC 8032, stricter than the
 * ZIP 215 rules of Sui's validators and of the SDK, so what it accepts they accept too, and its rejections are never
 * final here.
 */
export function nativeEd25519Signer(txBytes: Uint8Array, signature: string): string | undefined {
  try {
    return nativeEd25519Check(txBytes, fromBase64(signature));
  } catch {
    return undefined; // a malformed signature or key: the SDK's parse says what is wrong with it
  }
}

function nativeEd25519Check(txBytes: Uint8Array, serialized: Uint8Array): string | undefined {
  // flag 0x00 ‖ 64-byte signature ‖ 32-byte public key (Sui's serialized signature for Ed25519)
  if (serialized.length !== 1 + 64 + 32 || serialized[0] !== 0x00) return undefined;
  const publicKey = serialized.subarray(65);
  // The digest signed: blake2b-256 of the intent (TransactionData, V0, Sui) ‖ the transaction bytes.
  const digest = blake2b.create({ dkLen: 32 }).update(TRANSACTION_INTENT).update(txBytes).digest();
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
  if (!verify(null, digest, key, serialized.subarray(1, 65))) return undefined;
  return normalizeSuiAddress(bytesToHex(blake2b(concatBytes([serialized.subarray(0, 1), publicKey]), { dkLen: 32 })));
}

const TRANSACTION_INTENT = Uint8Array.from([0, 0, 0]);
/** SubjectPublicKeyInfo for an Ed25519 key, up to its 32 bytes (RFC 8410). */
const ED25519_SPKI_PREFIX = Uint8Array.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);

async function sdkSigner(txBytes: Uint8Array, signature: string): Promise<string> {
  // Loaded here, not at the top: it pulls the SDK's whole cryptography, which reading the chain never needs.
  const { verifyTransactionSignature } = await import('@mysten/sui/verify');
  return normalizeSuiAddress((await verifyTransactionSignature(txBytes, signature)).toSuiAddress());
}

interface ValidityWindow {
  minEpoch: string | number | null;
  maxEpoch: string | number | null;
  minTimestamp: string | number | null;
  maxTimestamp: string | number | null;
  chain: string;
}

/**
 * Sui's checks of a transaction's expiration (sui-types `TransactionData::validity_check`, then the epoch check at
 * signing). `ValidDuring` (and `Validity`, which only adds a proposer restriction a one-validator network has no use
 * for): no network accepts a timestamp bound yet; both epochs are required and span at most two epochs (the SDK
 * sets [current, current + 1] for address-balance gas); the chain must be this one, so bytes signed for another
 * network cannot replay here; and the current epoch must lie in the window. The nonce only makes otherwise equal
 * transactions distinct: it is part of the digest and nothing else checks it.
 */
export function checkExpiration(expiration: { $kind: string; Epoch?: string | number; ValidDuring?: ValidityWindow; Validity?: ValidityWindow }, request: ExecutionRequest): void {
  const expired = () => new TransactionRejectedError('TransactionExpired', 'Transaction Expired');
  if (expiration.$kind === 'Epoch' && BigInt(expiration.Epoch!) < BigInt(request.epoch)) throw expired();
  const window = expiration.ValidDuring ?? expiration.Validity;
  if (window === undefined) return;
  const unsupported = (what: string) => new TransactionRejectedError('Unsupported', `Feature is not supported: ${what}`);
  if (window.minTimestamp !== null || window.maxTimestamp !== null) throw unsupported('Timestamp-based transaction expiration is not yet supported');
  if (window.minEpoch === null || window.maxEpoch === null) throw unsupported('Both min_epoch and max_epoch must be specified');
  const [min, max, epoch] = [BigInt(window.minEpoch), BigInt(window.maxEpoch), BigInt(request.epoch)];
  if (max !== min && max !== min + 1n) throw unsupported('max_epoch must be at most min_epoch + 1');
  if (window.chain !== request.chainId) {
    throw new TransactionRejectedError('InvalidChainId', `Transaction chain ID ${window.chain} does not match network chain ID ${request.chainId}.`, { provided: window.chain, expected: request.chainId });
  }
  if (epoch < min || epoch > max) throw expired();
}

export function checkInput(input: Input, index: number, sender: string, working: WorkingSet, checkOwner: boolean): Slot {
  if (input.Pure) {
    const bytes = fromBase64(input.Pure.bytes);
    if (bytes.length > MAX_PURE_ARGUMENT_SIZE) {
      throw new TransactionRejectedError('SizeLimitExceeded', `Size limit exceeded: max_pure_argument_size ${MAX_PURE_ARGUMENT_SIZE} exceeded by input ${index} (${bytes.length})`, { limit: 'max_pure_argument_size', input: index });
    }
    return { kind: 'pure', bytes };
  }
  const arg = input.Object;
  if (!arg) throw new TransactionRejectedError('Unsupported', `input ${index}: unsupported kind ${input.$kind}`);
  if (arg.SharedObject) {
    const id = normalizeSuiAddress(arg.SharedObject.objectId);
    const object = working.get(id);
    if (!object) throw new TransactionRejectedError('ObjectNotFound', `Could not find the referenced object ${id}`, { objectId: id });
    if (object.owner.$kind !== 'Shared') throw new TransactionRejectedError('NotSharedObjectError', `Object ${id} is not a shared object; pass it by reference (ImmOrOwnedObject)`, { objectId: id });
    if (object.owner.Shared.initialSharedVersion !== String(arg.SharedObject.initialSharedVersion)) {
      throw new TransactionRejectedError('SharedObjectStartingVersionMismatch', `Shared object ${id} has initial shared version ${object.owner.Shared.initialSharedVersion}, not ${arg.SharedObject.initialSharedVersion}`, { objectId: id });
    }
    if (id === CLOCK_ID && arg.SharedObject.mutable) throw new TransactionRejectedError('ImmutableParameterExpectedError', `Immutable parameter expected for object ${id} (the Clock is read-only)`);
    return { kind: 'object', id, mutable: arg.SharedObject.mutable, shared: true };
  }
  const ref = arg.ImmOrOwnedObject ?? arg.Receiving!;
  const id = normalizeSuiAddress(ref.objectId);
  const object = working.get(id);
  if (!object) throw new TransactionRejectedError('ObjectNotFound', `Could not find the referenced object ${id} at version ${ref.version}`, { objectId: id });
  if (object.owner.$kind === 'Shared') {
    throw new TransactionRejectedError('NotOwnedObjectError', `Object ${id} is shared: it must be passed as a shared object with its initial shared version ${object.owner.Shared.initialSharedVersion}`, { objectId: id });
  }
  if (String(object.version) !== String(ref.version)) {
    throw new TransactionRejectedError('ObjectVersionUnavailableForConsumption', `Object ${id} at version ${ref.version} is not available for consumption, its current version: ${object.version}`, { objectId: id });
  }
  if (objectDigest(object) !== ref.digest) throw new TransactionRejectedError('InvalidObjectDigest', `Invalid digest for object ${id}: expected ${objectDigest(object)}, got ${ref.digest}`, { objectId: id });
  if (checkOwner && object.owner.$kind === 'AddressOwner' && object.owner.AddressOwner !== sender) {
    throw new TransactionRejectedError('IncorrectUserSignature', `Object ${id} is owned by account address ${object.owner.AddressOwner}, but given owner/signer address is ${sender}`, { objectId: id });
  }
  if (object.owner.$kind === 'ObjectOwner') throw new TransactionRejectedError('InvalidChildObjectArgument', `Object ${id} is owned by object ${object.owner.ObjectOwner} and cannot be an input`);
  return { kind: 'object', id, mutable: object.owner.$kind !== 'Immutable', shared: false };
}
