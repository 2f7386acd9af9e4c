/**
 * Walrus storage epochs of the devnet, derived from wall time so that every process sharing a state directory
 * agrees: epoch 1 starts at genesis, and each epoch lasts `epochDurationMs`. A blob stored in epoch e for k epochs
 * has end epoch e + k (exclusive) and is gone from epoch e + k on, as on the real network. Pure.
 */
export interface EpochClock {
  genesisMs: number;
  epochDurationMs: number;
}

export function currentEpoch(clock: EpochClock, nowMs: number): number {
  return 1 + Math.max(0, Math.floor((nowMs - clock.genesisMs) / clock.epochDurationMs));
}

export function isExpired(endEpoch: number, epoch: number): boolean {
  return epoch >= endEpoch;
}
