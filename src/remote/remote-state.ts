import type { Ledger, RepositoryInfo } from '../ports/ledger.ts';
import type { ListedRefs, LocalRepository } from '../ports/local-repository.ts';

export interface RemoteSnapshot {
  info: RepositoryInfo;
  refs: Map<string, string>;
}

/**
 * The repository object and its refs. Refs change only by a push or repack, and both advance the repository's seq,
 * so where a local repository keeps the refs it last listed, a read of the object alone tells whether they still
 * hold: a fetch with nothing new is one chain read. HEAD and everything else come from the object just read.
 * `onInfo` sees the object as soon as it is read, with what the local repository kept of its last listing (null
 * where it never listed this remote, as in a clone), and runs beside the refs' read (a clone starts its pack downloads
 * there); the snapshot is returned once both have settled.
 */
export async function readRemote(ledger: Ledger, id: string, local?: LocalRepository | null, onInfo?: (info: RepositoryInfo, kept: ListedRefs | null) => Promise<void>): Promise<RemoteSnapshot> {
  if (!local) {
    const [info, refs] = await Promise.all([ledger.getRepository(id), ledger.listRefs(id)]);
    return { info, refs };
  }
  const [info, kept] = await Promise.all([ledger.getRepository(id), local.readListedRefs(id)]);
  const current = async () => {
    if (kept !== null && kept.seq === info.seq) return kept.refs;
    // Read after the object: these refs are at info.seq or newer, and a newer seq on chain makes the next list read
    // them again, so what is kept is never older than the seq it is kept under.
    const refs = await ledger.listRefs(id);
    await local.writeListedRefs(id, { seq: info.seq, refs });
    return refs;
  };
  const [refs] = await Promise.all([current(), onInfo?.(info, kept)]);
  return { info, refs };
}
