import { formatOfHashLength } from '../core/object-id.ts';
import type { Ledger } from '../ports/ledger.ts';
import type { RefListing } from '../protocol/answers.ts';
import { readRemote } from './remote-state.ts';

/** The `list` answer from chain state: every ref, HEAD as a symref, and the object format when git asked. */
export async function listRemote(ledger: Ledger, repositoryId: string, reportObjectFormat: boolean): Promise<RefListing> {
  const { info, refs } = await readRemote(ledger, repositoryId);
  return { objectFormat: reportObjectFormat ? formatOfHashLength(info.hashLength) : null, head: info.head, refs };
}
