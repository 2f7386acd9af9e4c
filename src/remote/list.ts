import { formatOfHashLength } from '../core/object-id.ts';
import type { RefListing } from '../ports/helper-backend.ts';
import type { RemoteSnapshot } from './remote-state.ts';

/** The `list` answer from chain state: every ref, HEAD as a symref, and the object format when git asked. */
export function listingOf(snapshot: RemoteSnapshot, reportObjectFormat: boolean): RefListing {
  return { objectFormat: reportObjectFormat ? formatOfHashLength(snapshot.info.hashLength) : null, head: snapshot.info.head, refs: snapshot.refs };
}
