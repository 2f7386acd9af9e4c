/**
 * Checks the repository's current tables against the push events: the refs the events leave behind must be the
 * refs on chain, and every pack the events announce must be the pack entry the chain stores at that index. The
 * log replay proves the events; this proves the state the helper actually reads agrees with them.
 */
import type { PackEntry, PushEvent } from '../../ports/ledger.ts';
import type { Finding } from './finding.ts';

/** Ref name → object id after applying every event's updates in order. */
export function replayRefs(events: readonly PushEvent[]): Map<string, string> {
  const refs = new Map<string, string>();
  for (const event of events) {
    for (const update of event.updates) {
      if (update.new === null) refs.delete(update.name);
      else refs.set(update.name, update.new);
    }
  }
  return refs;
}

export function verifyRefs(events: readonly PushEvent[], chainRefs: ReadonlyMap<string, string>): Finding[] {
  const replayed = replayRefs(events);
  const lastTouch = new Map<string, number>();
  for (const event of events) for (const update of event.updates) lastTouch.set(update.name, event.seq);
  const findings: Finding[] = [];
  const names = [...new Set([...replayed.keys(), ...chainRefs.keys()])].sort();
  for (const name of names) {
    const expected = replayed.get(name) ?? null;
    const actual = chainRefs.get(name) ?? null;
    if (expected === actual) continue;
    const seq = lastTouch.get(name) ?? null;
    findings.push({
      code: 'STATE_REF_MISMATCH',
      seq,
      message: `${seq === null ? 'repository' : `push ${seq}`}: ref ${name} is ${actual ?? 'absent'} on chain, but the push events leave it at ${expected ?? 'absent'}`,
    });
  }
  return findings;
}

/** `packs` are the chain's entries with index `from`, `from + 1`, …; events announcing earlier packs are skipped. */
export function verifyPackTable(events: readonly PushEvent[], packs: readonly PackEntry[], from: number): Finding[] {
  const findings: Finding[] = [];
  const announced = new Map<number, PushEvent>();
  for (const event of events) if (event.packIndex !== null) announced.set(event.packIndex, event);
  for (const [index, event] of announced) {
    if (index < from) continue;
    const stored = packs[index - from];
    if (stored === undefined) {
      findings.push({ code: 'STATE_PACK_MISMATCH', seq: event.seq, message: `push ${event.seq}: pack #${index} is announced by the event but absent from the chain's pack table` });
    } else if (event.pack === null || !samePack(event.pack, stored)) {
      findings.push({
        code: 'STATE_PACK_MISMATCH',
        seq: event.seq,
        message: `push ${event.seq}: pack #${index} on chain (${describePack(stored)}) differs from the event's (${event.pack === null ? 'none' : describePack(event.pack)})`,
      });
    }
  }
  packs.forEach((pack, offset) => {
    const index = from + offset;
    if (!announced.has(index)) {
      findings.push({ code: 'STATE_PACK_MISMATCH', seq: null, message: `repository: pack #${index} (${describePack(pack)}) is on chain, but no push event announces it` });
    }
  });
  return findings;
}

function samePack(a: PackEntry, b: PackEntry): boolean {
  return a.size === b.size && a.sha256 === b.sha256 && a.chunks.length === b.chunks.length && a.chunks.every((chunk, i) => chunk === b.chunks[i]);
}

function describePack(pack: PackEntry): string {
  return `${pack.size} bytes, sha256 ${pack.sha256}, blobs ${pack.chunks.join(', ')}`;
}
