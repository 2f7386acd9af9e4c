import type { Ledger, RepositoryInfo } from '../ports/ledger.ts';

export interface RemoteSnapshot {
  info: RepositoryInfo;
  refs: Map<string, string>;
}

/** The repository object and its refs, read together (in one ledger call where the adapter offers it). */
export async function readRemote(ledger: Ledger, id: string): Promise<RemoteSnapshot> {
  if (ledger.getRepositoryState) return ledger.getRepositoryState(id);
  const [info, refs] = await Promise.all([ledger.getRepository(id), ledger.listRefs(id)]);
  return { info, refs };
}
