/**
 * Protocol limits and gas prices the devnet enforces, with the values of Sui's protocol config (mainnet, 2026).
 */
export const MAX_MOVE_OBJECT_SIZE = 250 * 1024;
export const MAX_INPUT_OBJECTS = 2048;
export const MAX_COMMANDS = 1024;
export const MAX_ARGUMENTS = 512;
export const MAX_EVENTS_PER_TX = 1024;

/** MIST per computation unit at the reference price. */
export const REFERENCE_GAS_PRICE = 1000n;
/** Storage price: MIST per storage unit; a byte costs 100 units (`obj_data_cost_refundable`). */
export const STORAGE_PRICE = 76n;
export const STORAGE_UNITS_PER_BYTE = 100n;
/** Fixed per-object overhead in bytes counted for storage (`object_storage_per_byte` applies to it too). */
export const OBJECT_STORAGE_OVERHEAD = 98;
/** 99% of an object's storage fee is refunded when it is overwritten or deleted. */
export const REBATE_BASIS_POINTS = 9900n;
export const MIN_COMPUTATION_UNITS = 1000n;
/** Computation is charged in buckets, as Sui does, so small changes in work do not change the price. */
export const COMPUTATION_BUCKETS = [1000n, 5000n, 10_000n, 20_000n, 50_000n, 200_000n, 1_000_000n, 5_000_000n];
export const MAX_GAS_BUDGET = 50_000_000_000n;
export const MIST_PER_SUI = 1_000_000_000n;
/** What one faucet request sends (the real devnet faucet sends 10 SUI per coin; we send more so tests never run dry). */
export const FAUCET_AMOUNT = 1000n * MIST_PER_SUI;
export const PROTOCOL_VERSION = 100;
export const EPOCH_DURATION_MS = 86_400_000;

export function storageCost(bytes: number): bigint {
  return BigInt(bytes + OBJECT_STORAGE_OVERHEAD) * STORAGE_UNITS_PER_BYTE * STORAGE_PRICE;
}

export function computationUnits(work: bigint): bigint {
  const units = work < MIN_COMPUTATION_UNITS ? MIN_COMPUTATION_UNITS : work;
  return COMPUTATION_BUCKETS.find((bucket) => bucket >= units) ?? units;
}
