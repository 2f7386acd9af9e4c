import { deriveDynamicFieldID } from '@mysten/sui/utils';
import { type ChainObject } from './objects.ts';
import { normalizeType, parseType, remembered } from './move-types.ts';
import { DYNAMIC_FIELD, MoveAbortFailure, type TableStore } from './packages.ts';
import { SUI_FRAMEWORK } from './objects.ts';
import { MAX_DYNAMIC_FIELD_ACCESSES } from '../../core/sui-limits.ts';

/**
 * The objects one transaction reads and writes, layered over the committed state: nothing reaches the store until
 * the transaction succeeds (a failed transaction keeps only its gas charge).
 */
export class WorkingSet {
  readonly #committed: ObjectSource;
  readonly written = new Map<string, ChainObject>();
  readonly created = new Set<string>();
  readonly deleted = new Set<string>();
  /** Objects loaded from the committed state, at the version they had when the transaction started. */
  readonly loaded = new Map<string, ChainObject>();
  /** Distinct dynamic fields the transaction has loaded or added (Sui's object-runtime cache). */
  readonly #children = new Set<string>();

  constructor(committed: ObjectSource) {
    this.#committed = committed;
  }

  get(id: string): ChainObject | undefined {
    if (this.deleted.has(id)) return undefined;
    const written = this.written.get(id);
    if (written) return written;
    const committed = this.#committed.get(id);
    if (committed && !this.loaded.has(id)) this.loaded.set(id, committed);
    return committed;
  }

  write(object: ChainObject): void {
    if (!this.get(object.id)) this.created.add(object.id);
    this.deleted.delete(object.id);
    this.written.set(object.id, object);
  }

  /**
   * Counts a dynamic field the transaction touches through `native`; the first one over Sui's limit fails the
   * command as Sui's object runtime does (MEMORY_LIMIT_EXCEEDED, reported as a MovePrimitiveRuntimeError there).
   */
  touchChild(id: string, native: DynamicFieldNative): void {
    if (this.#children.has(id)) return;
    if (this.#children.size >= MAX_DYNAMIC_FIELD_ACCESSES) throw new ObjectRuntimeLimitFailure(native);
    this.#children.add(id);
  }

  delete(id: string): void {
    this.get(id);
    this.written.delete(id);
    if (this.created.delete(id)) return;
    this.deleted.add(id);
  }
}

export interface ObjectSource { get(id: string): ChainObject | undefined }

/** The `sui::dynamic_field` natives that load a child, with their function index in the module. */
const DYNAMIC_FIELD_NATIVES = { borrow_child_object_mut: 12, remove_child_object: 13, has_child_object_with_ty: 15 } as const;
export type DynamicFieldNative = keyof typeof DYNAMIC_FIELD_NATIVES;

/**
 * Sui's object runtime refusing one more distinct child: `Object runtime cached objects limit (1000 entries)
 * reached`, which the transaction's effects record as `MovePrimitiveRuntimeError` at the native that hit it.
 */
export class ObjectRuntimeLimitFailure extends Error {
  readonly native: DynamicFieldNative;
  readonly functionIndex: number;
  constructor(native: DynamicFieldNative) {
    super(`Object runtime cached objects limit (${MAX_DYNAMIC_FIELD_ACCESSES} entries) reached`);
    this.native = native;
    this.functionIndex = DYNAMIC_FIELD_NATIVES[native];
  }
}

const FIELD_ID_LENGTH = 32;

/** `Field { id, name, value }` in BCS: the three encodings one after another. */
function fieldContents(id: Uint8Array, key: Uint8Array, value: Uint8Array): Uint8Array {
  const contents = new Uint8Array(id.length + key.length + value.length);
  contents.set(id);
  contents.set(key, id.length);
  contents.set(value, id.length + key.length);
  return contents;
}

/**
 * Dynamic field ids derived lately (bounded as `remembered` says), by table, key type and key. An id is a hash of
 * the three (Blake2b in JavaScript, ~0.2 ms each in a young process): each entry is reached two or three times per
 * command (contains, then borrow, add or remove), and a push's dry run and its execution reach the same refs, a few
 * hundred in a mirror push.
 */
const fieldIds = new Map<string, string>();

function fieldIdOf(table: string, keyType: string, key: Uint8Array): string {
  return remembered(fieldIds, `${table} ${keyType} ${Buffer.from(key).toString('hex')}`, () => deriveDynamicFieldID(table, parseType(keyType), key));
}

/** Table entries as dynamic fields: `Field<K, V> { id, name: K, value: V }` owned by the table's UID. */
export function tableStore(working: WorkingSet, txDigest: string): TableStore {
  // Move's table functions reach each field through one native first (add and contains: has_child_object_with_ty).
  const fieldId = (table: string, keyType: string, key: Uint8Array, native: DynamicFieldNative = 'has_child_object_with_ty') => {
    const id = fieldIdOf(table, keyType, key);
    working.touchChild(id, native);
    return id;
  };
  const abort = (code: bigint, functionName: string) => new MoveAbortFailure(SUI_FRAMEWORK, DYNAMIC_FIELD.module, functionName, 0, code);
  const fieldValue = (field: ChainObject, key: Uint8Array) => field.contents.slice(FIELD_ID_LENGTH + key.length);
  const put = (table: string, keyType: string, key: Uint8Array, valueType: string, value: Uint8Array) => {
    const id = fieldId(table, keyType, key);
    const previous = working.get(id);
    working.write({
      id,
      version: previous?.version ?? 0n,
      owner: { $kind: 'ObjectOwner', ObjectOwner: table },
      type: normalizeType(`0x2::dynamic_field::Field<${keyType}, ${valueType}>`),
      contents: fieldContents(Buffer.from(id.slice(2), 'hex'), key, value), // the id is normalized: 0x and 64 hex digits
      hasPublicTransfer: false,
      previousTransaction: txDigest,
      storageRebate: previous?.storageRebate ?? 0n,
    });
  };
  return {
    get(table, keyType, key) {
      const field = working.get(fieldId(table, keyType, key));
      return field ? fieldValue(field, key) : null;
    },
    add(table, keyType, key, valueType, value) {
      if (working.get(fieldId(table, keyType, key))) throw abort(DYNAMIC_FIELD.EFieldAlreadyExists, 'add');
      put(table, keyType, key, valueType, value);
    },
    set(table, keyType, key, valueType, value) {
      if (!working.get(fieldId(table, keyType, key, 'borrow_child_object_mut'))) throw abort(DYNAMIC_FIELD.EFieldDoesNotExist, 'borrow_child_object_mut');
      put(table, keyType, key, valueType, value);
    },
    remove(table, keyType, key) {
      const id = fieldId(table, keyType, key, 'remove_child_object');
      const field = working.get(id);
      if (!field) throw abort(DYNAMIC_FIELD.EFieldDoesNotExist, 'remove');
      working.delete(id);
      return fieldValue(field, key);
    },
  };
}
