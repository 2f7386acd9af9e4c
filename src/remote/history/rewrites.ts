/**
 * History rewrites: ref updates that can lose commits (forced updates and deletions), with who made them and when,
 * as the push events record them. The chain cannot check ancestry, so `forced` is what the pusher declared.
 */
import type { PushEvent } from '../../ports/ledger.ts';

export interface HistoryRewrite {
  seq: number;
  kind: 'forced' | 'deleted';
  ref: string;
  /** The value before: for a deletion, the commit the ref last pointed to. */
  old: string | null;
  new: string | null;
  sender: string;
  timestampMs: number;
  txDigest: string;
}

export function findRewrites(events: readonly PushEvent[]): HistoryRewrite[] {
  const rewrites: HistoryRewrite[] = [];
  for (const event of events) {
    for (const update of event.updates) {
      const kind = update.new === null ? 'deleted' : update.force ? 'forced' : null;
      if (kind === null) continue;
      rewrites.push({
        seq: event.seq,
        kind,
        ref: update.name,
        old: update.old,
        new: update.new,
        sender: event.sender,
        timestampMs: event.timestampMs,
        txDigest: event.txDigest,
      });
    }
  }
  return rewrites;
}
