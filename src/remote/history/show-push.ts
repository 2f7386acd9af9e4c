/**
 * `git walrus show`: one push in full, with the commits its pack introduced, read from Walrus with no clone.
 * A thin pack's deltas may need objects of earlier packs: the pack is first read alone, and only when some of its
 * objects cannot be resolved are the earlier packs loaded under it, in push order.
 */
import { UsageError, WalrusGitError } from '../../core/errors.ts';
import type { Log } from '../../core/log.ts';
import type { BlobStore } from '../../ports/blob-store.ts';
import type { KeyService } from '../../ports/key-service.ts';
import type { Ledger, PackEntry, PushEvent } from '../../ports/ledger.ts';
import { PackKeys } from '../sealed-packs.ts';
import type { Finding } from './finding.ts';
import { checkPack, packLabel, type BlobIdOf } from './verify-packs.ts';

/** A commit as `show` prints it (src/git/pack-reader.ts `CommitSummary` has this shape). */
export interface ShownCommit {
  oid: string;
  parents: string[];
  author: { name: string; email: string; timestamp: number; timezoneOffset: number };
  subject: string;
}

/** What `show` needs from an object store that packs are added to in push order (src/git/pack-reader.ts). */
export interface PackCommits {
  addPack(bytes: Uint8Array, label: string): Promise<string[]>;
  readCommit(oid: string): Promise<ShownCommit | null>;
  close(): Promise<void>;
}

export interface ShowDeps {
  ledger: Ledger;
  blobStore: BlobStore;
  blobIdOf: BlobIdOf;
  openPackObjects: () => Promise<PackCommits>;
  /** Opens a private repository's pack keys (only its readers can show its commits). */
  keyService?: KeyService;
  log: Log;
}

export interface PushDetails {
  event: PushEvent;
  /** Commits stored in the push's pack, newest author date first. */
  commits: ShownCommit[];
}

/**
 * The pack of a push could not be read intact; `findings` say which push, blob and difference.
 * What to do: run `git walrus verify --deep` to see the whole repository's state; a writer with the objects can store them again (`git walrus gc`).
 */
export class PackCheckFailedError extends WalrusGitError {
  constructor(findings: Finding[]) {
    super('PACK_CHECK_FAILED', findings.map((finding) => finding.message).join('\n'), { findings });
  }
}

export async function showPush(deps: ShowDeps, id: string, seq: number, options: { signal?: AbortSignal } = {}): Promise<PushDetails> {
  const [repository, events] = await Promise.all([deps.ledger.getRepository(id), deps.ledger.listPushes(id)]);
  const event = events.find((candidate) => candidate.seq === seq);
  if (event === undefined) {
    throw new UsageError(
      repository.seq === 0 ? `no push ${seq}: the repository has no pushes yet` : `no push ${seq}: pushes are numbered 1 to ${repository.seq}`,
      { seq, pushes: repository.seq },
    );
  }
  if (event.pack === null || event.packIndex === null) return { event, commits: [] };
  if (repository.hashLength === 32) throw new UsageError('show reads the commits of SHA-1 repositories only; this one uses SHA-256 (git walrus log shows its pushes)');

  const index = event.packIndex;
  const place = { index, seq };
  // Every pack this may read (the push's, and the live ones before it for a thin pack), for a private repository's keys.
  const from = index >= repository.liveFrom ? repository.liveFrom : 0;
  const packs = repository.private ? await deps.ledger.listPacks(id, from) : [];
  const keys = await PackKeys.of(deps, repository, packs, from);
  const read = async (pack: PackEntry, at: { index: number; seq: number | null }): Promise<Uint8Array> => {
    deps.log.progress(`reading ${packLabel(at)} (${pack.size} bytes)`);
    const check = await checkPack(deps.blobStore, deps.blobIdOf, pack, at, { keepBytes: true, signal: options.signal });
    if (check.findings.length > 0 || check.bytes === null) throw new PackCheckFailedError(check.findings);
    return keys === null ? check.bytes : keys.decryptAll(at.index - from, check.bytes);
  };
  const bytes = await read(event.pack, place);

  let objects = await deps.openPackObjects();
  try {
    let oids: string[];
    try {
      oids = await objects.addPack(bytes, packLabel(place));
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'PACK_UNREADABLE') throw error;
      // A thin pack: load the packs it may delta against (the live ones before it), then it again.
      await objects.close();
      objects = await deps.openPackObjects();
      const bases = (repository.private ? packs : await deps.ledger.listPacks(id, from)).slice(0, index - from);
      const seqOf = new Map(events.filter((e) => e.packIndex !== null).map((e) => [e.packIndex!, e.seq]));
      for (const [offset, pack] of bases.entries()) {
        const at = { index: from + offset, seq: seqOf.get(from + offset) ?? null };
        await objects.addPack(await read(pack, at), packLabel(at));
      }
      oids = await objects.addPack(bytes, packLabel(place));
    }
    deps.log.progress(`read ${packLabel(place)}: ${oids.length} objects`, true);
    const commits: ShownCommit[] = [];
    for (const oid of oids) {
      const commit = await objects.readCommit(oid);
      if (commit !== null && commit.oid === oid) commits.push(commit);
    }
    commits.sort((a, b) => b.author.timestamp - a.author.timestamp || a.oid.localeCompare(b.oid));
    return { event, commits };
  } finally {
    await objects.close();
  }
}
