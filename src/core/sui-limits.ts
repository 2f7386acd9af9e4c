/**
 * Sui's per-transaction limits (protocol config, mainnet 2026) that bound how many refs one push transaction can
 * carry. The devnet enforces the same values (src/devnet/chain/limits.ts re-exports them).
 */

/** `max_tx_size_bytes`: the signed transaction's BCS. */
export const MAX_TX_SIZE_BYTES = 128 * 1024;
/** `max_pure_argument_size`: each pure input (the vectors of ref names, old and new ids). */
export const MAX_PURE_ARGUMENT_SIZE = 16 * 1024;
/**
 * `object_runtime_max_num_cached_objects`: distinct dynamic fields (Table entries) one transaction may load. Each
 * ref a push touches is one; the pack appended is one more.
 */
export const MAX_DYNAMIC_FIELD_ACCESSES = 1000;
