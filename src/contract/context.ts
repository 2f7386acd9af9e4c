/**
 * What the contract model needs from whoever executes it (the devnet chain engine, or the in-memory context in
 * memory-context.ts for tests): the transaction's sender, fresh object ids, event emission and `sui::table`
 * storage. Tables are dynamic fields of the table's UID, so the store is keyed by table id plus the BCS of the key,
 * and gets the Move type tags the engine needs to derive dynamic-field ids and object types exactly like Sui.
 */
export interface MoveContext {
  /** The transaction sender, `0x` + 64 hex. */
  readonly sender: string;
  /** Id of the published package, `0x` + 64 hex; type tags of our own structs start with it. */
  readonly packageId: string;
  /** A fresh object id (`object::new(ctx)`); the engine derives it from the transaction digest like Sui. */
  newId(): string;
  /** Emits an event; `type` is module-qualified (`events::Pushed`), the engine prefixes the package id. */
  emit(type: string, bcs: Uint8Array): void;
  readonly tables: TableStore;
  /**
   * Sends a new object to an address (`transfer::public_transfer`): `type` is the full type tag (a coin's
   * `0x2::coin::Coin<0x2::sui::SUI>`, or module-qualified like `market::ProviderCap` for ours, which the engine
   * prefixes with the package id), `bcs` its contents (starting with its UID).
   */
  transfer(type: string, bcs: Uint8Array, recipient: string): void;
}

/** `sui::table` entries: BCS key → BCS value, per table id. */
export interface TableStore {
  get(table: string, keyType: string, key: Uint8Array): Uint8Array | null;
  /** Adds an entry; aborts like Move (`dynamic_field::EFieldAlreadyExists`) if the key is present. */
  add(table: string, keyType: string, key: Uint8Array, valueType: string, value: Uint8Array): void;
  /** Replaces the value of an existing entry (`borrow_mut` + assignment). */
  set(table: string, keyType: string, key: Uint8Array, valueType: string, value: Uint8Array): void;
  /** Removes an entry; aborts like Move (`dynamic_field::EFieldDoesNotExist`) if it is absent. */
  remove(table: string, keyType: string, key: Uint8Array): void;
}
