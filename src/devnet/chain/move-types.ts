import { bcs, TypeTagSerializer, type BcsType } from '@mysten/sui/bcs';
import type { TypeTag } from '@mysten/sui/bcs';

/**
 * Move types as the chain checks them: normalized type strings, parameter signatures (`&mut T`, `&T`, `T`) and the
 * rule of which types may be passed as pure arguments, with BCS validation as strict as the Move VM's
 * (canonical encoding, valid UTF-8, no trailing bytes).
 */

export type Reference = 'mutable' | 'immutable' | null;

export interface Signature { reference: Reference; type: string }

export function normalizeType(type: string): string {
  return remembered(normalized, type, () => TypeTagSerializer.tagToString(TypeTagSerializer.parseFromStr(type, true)).replace(/, /g, ','));
}

/** The parsed tag, shared by every caller: read it, never change it. */
export function parseType(type: string): TypeTag {
  return remembered(parsed, type, () => TypeTagSerializer.parseFromStr(type, true));
}

/**
 * A transaction spells the same few types hundreds of times (a Table entry per ref, each with its Field type), and
 * parsing one is the dearest step of writing it: both are pure, so each spelling is worked out once per process.
 */
const normalized = new Map<string, string>();
const parsed = new Map<string, TypeTag>();
const REMEMBERED_TYPES = 4096;

export function remembered<T>(cache: Map<string, T>, key: string, compute: () => T): T {
  let value = cache.get(key);
  if (value === undefined) {
    value = compute();
    if (cache.size >= REMEMBERED_TYPES) cache.clear(); // types are few; a flood of distinct ones only costs a re-parse
    cache.set(key, value);
  }
  return value;
}

/** Parses a parameter signature such as `&mut 0x2::clock::Clock`, substituting type arguments for `T0`, `T1`, …. */
export function parseSignature(text: string, typeArguments: string[] = []): Signature {
  let body = text.trim();
  let reference: Reference = null;
  if (body.startsWith('&mut ')) { reference = 'mutable'; body = body.slice(5); }
  else if (body.startsWith('&')) { reference = 'immutable'; body = body.slice(1); }
  body = body.replace(/\bT(\d+)\b/g, (_, index: string) => {
    const argument = typeArguments[Number(index)];
    if (argument === undefined) throw new Error(`missing type argument T${index}`);
    return argument;
  });
  return { reference, type: normalizeType(body) };
}

const STRING = normalizeType('0x1::string::String');
const ASCII = normalizeType('0x1::ascii::String');
const ID = normalizeType('0x2::object::ID');
const OPTION = /^0x0{63}1::option::Option<(.+)>$/;
export const TX_CONTEXT = normalizeType('0x2::tx_context::TxContext');

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The BCS schema of a type that may be a pure argument, or null when the type is not pure (structs, objects). */
export function pureSchema(type: string): BcsType<unknown> | null {
  const tag = parseType(type);
  if ('bool' in tag) return bcs.bool() as BcsType<unknown>;
  if ('u8' in tag) return bcs.u8() as BcsType<unknown>;
  if ('u16' in tag) return bcs.u16() as BcsType<unknown>;
  if ('u32' in tag) return bcs.u32() as BcsType<unknown>;
  if ('u64' in tag) return bcs.u64() as BcsType<unknown>;
  if ('u128' in tag) return bcs.u128() as BcsType<unknown>;
  if ('u256' in tag) return bcs.u256() as BcsType<unknown>;
  if ('address' in tag) return bcs.Address as BcsType<unknown>;
  if ('vector' in tag) {
    const inner = pureSchema(TypeTagSerializer.tagToString(tag.vector));
    return inner ? (bcs.vector(inner) as BcsType<unknown>) : null;
  }
  if (type === STRING || type === ASCII) {
    return bcs.byteVector().transform({
      input: (value: string) => new TextEncoder().encode(value),
      output: (bytes: Uint8Array) => {
        const text = utf8.decode(bytes);
        if (type === ASCII && /[^\x00-\x7f]/.test(text)) throw new Error('not ASCII');
        return text;
      },
    }) as BcsType<unknown>;
  }
  if (type === ID) return bcs.Address as BcsType<unknown>;
  const option = OPTION.exec(type);
  if (option) {
    const inner = pureSchema(option[1]);
    return inner ? (bcs.option(inner) as BcsType<unknown>) : null;
  }
  return null;
}

/** Decodes a pure argument as `type`; throws when the bytes are not exactly one canonical value of that type. */
export function decodePure(type: string, bytes: Uint8Array): unknown {
  const schema = pureSchema(type);
  if (!schema) throw new Error(`${type} cannot be a pure argument`);
  const value = schema.parse(bytes);
  const again = schema.serialize(value).toBytes();
  if (again.length !== bytes.length || again.some((byte, index) => byte !== bytes[index])) throw new Error('non-canonical or trailing bytes');
  return value;
}

export function optionInner(type: string): string | null {
  return OPTION.exec(type)?.[1] ?? null;
}
