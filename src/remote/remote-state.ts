import type { Ledger, RepositoryInfo } from '../ports/ledger.ts';

export interface RemoteSnapshot {
  info: RepositoryInfo;
  refs: Map<string, string>;
}

/** The repository object and its refs, read together. */
export async function readRemote(ledger: Ledger, id: string): Promise<RemoteSnapshot> {
  const [info, refs] = await Promise.all([ledger.getRepository(id), ledger.listRefs(id)]);
  return { info, refs };
}
