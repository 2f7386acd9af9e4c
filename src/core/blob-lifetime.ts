/**
 * Pure judgement of how long a pack stays on Walrus (docs/architecture.md, Storage lifecycle): a pack lives as long as
 * its shortest-lived chunk, and is gone from that chunk's end epoch on (ends are exclusive, as Walrus counts them).
 */

/** The furthest ahead Walrus stores or extends a blob (testnet and mainnet: `max_epochs_ahead`). */
export const MAX_EPOCHS_AHEAD = 53;

/** Epochs before its end from which a live pack is reported as expiring, unless configured otherwise. */
export const DEFAULT_EXPIRY_WARNING_EPOCHS = 5;

export type LifetimeVerdict = 'expired' | 'expiring' | 'ok' | 'unknown';

export interface PackEnd {
  /** The first epoch the pack is no longer whole (null: a chunk is already gone; undefined: not reported). */
  endEpoch: number | null | undefined;
  /** The chunk that ends first (the one that is gone, when one is). */
  blobId: string;
}

/** The end of a pack from the ends of its chunks. */
export function packEnd(chunks: readonly string[], endEpochs: ReadonlyMap<string, number | null | undefined>): PackEnd {
  let end: PackEnd = { endEpoch: undefined, blobId: chunks[0] ?? '' };
  for (const blobId of chunks) {
    const endEpoch = endEpochs.get(blobId);
    if (endEpoch === null) return { endEpoch: null, blobId };
    if (endEpoch !== undefined && (end.endEpoch === undefined || endEpoch < end.endEpoch!)) end = { endEpoch, blobId };
  }
  return end;
}

export function lifetimeVerdict(endEpoch: number | null | undefined, epoch: number, warnWithin: number): LifetimeVerdict {
  if (endEpoch === undefined) return 'unknown';
  if (endEpoch === null || endEpoch <= epoch) return 'expired';
  return endEpoch - epoch <= warnWithin ? 'expiring' : 'ok';
}
